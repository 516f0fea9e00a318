/** How the search box tells typing from a query that arrives whole (search.svelte.ts setQuery). */
/**
 * Whether `after` is `before` with at most one character typed and one removed at one place
 * (a keystroke, a backspace, one character typed over a selection of one). Anything more —
 * a paste, a drop, a word deleted at once, the field cleared — is a query that arrived whole.
 */
export function isKeystroke(before: string, after: string): boolean {
  const a = [...before];
  const b = [...after];
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  return a.length - pre - suf <= 1 && b.length - pre - suf <= 1;
}
