/**
 * The app's own steps back in history (closing the file viewer steps back over the entry its
 * opening added) and the URL writes that must wait for them. `history.back()` lands later, as a
 * popstate; a URL written before it lands (a query typed right after Esc) would be written on
 * the entry being left, and the entry returned to would bring the old query back (its hashchange
 * re-applies it). So writes wait until the step has landed, and then go on the entry returned to;
 * App.svelte also writes the current search there (a search that answered after the step
 * landed but before its hashchange).
 */
let stepping = false;
let waiting: Array<() => void> = [];

/** Steps back one entry, as the app's own move (not the person's Back). */
export function stepBack(): void {
  stepping = true;
  history.back();
}

/** Runs `write` now, or once the app's step back has landed. */
export function whenSettled(write: () => void): void {
  if (stepping) waiting.push(write);
  else write();
}

/** Called on every popstate: whether it was the app's own step; the waiting writes run now. */
export function landed(): boolean {
  if (!stepping) return false;
  stepping = false;
  const run = waiting;
  waiting = [];
  for (const write of run) write();
  return true;
}
