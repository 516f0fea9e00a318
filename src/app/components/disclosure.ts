/**
 * A `<summary>` as the button it is: role `button` with `aria-expanded` kept in step with its
 * `<details>`. Chromium exposes a bare summary as a disclosure triangle that Playwright's
 * getByRole (and some screen readers) do not list as a button, so the filter menus, Details
 * and a scan's warnings could not be found by role and name. Use: `<summary use:disclosure>`.
 */
export function disclosure(summary: HTMLElement): { destroy(): void } {
  const details = summary.parentElement;
  summary.setAttribute('role', 'button');
  const sync = () => summary.setAttribute('aria-expanded', String(details instanceof HTMLDetailsElement && details.open));
  sync();
  details?.addEventListener('toggle', sync);
  return { destroy: () => details?.removeEventListener('toggle', sync) };
}
