/**
 * How a page of texts is shared among embedding threads (the CLI's pool, the app's embedder
 * worker and its helpers): one contiguous run per thread, cut by characters so the runs take
 * about as long. Pure.
 */

/** Cut `texts` into at most `parts` contiguous runs of about equal characters: the start index of each. */
export function splitByChars(texts: readonly string[], parts: number): number[] {
  let total = 0;
  for (const t of texts) total += t.length + 1;
  const starts = [0];
  let sum = 0;
  for (let i = 0; i < texts.length && starts.length < parts; i++) {
    sum += texts[i]!.length + 1;
    if (sum >= (total * starts.length) / parts && i + 1 < texts.length) starts.push(i + 1);
  }
  return starts;
}
