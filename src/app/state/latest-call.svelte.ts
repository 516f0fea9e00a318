/**
 * "The latest request wins", shared by the ranked search and the line (exact/regex) search:
 * a new call aborts the one in flight (the bridge tells the worker to stop), an answer is
 * applied only while its call is still the latest, failures go to handleError (an abort is
 * silent), and `loading` is true exactly while the latest call runs.
 */
import { handleError } from './notices.svelte.ts';

export class LatestCall {
  #ctl: AbortController | null = null;
  #loading = $state(false);

  get loading(): boolean {
    return this.#loading;
  }

  async run<T>(call: (signal: AbortSignal) => Promise<T>, apply: (answer: T) => void): Promise<void> {
    this.#ctl?.abort();
    const ctl = new AbortController();
    this.#ctl = ctl;
    this.#loading = true;
    try {
      const answer = await call(ctl.signal);
      if (!ctl.signal.aborted) apply(answer);
    } catch (e) {
      handleError(e, 'Search');
    } finally {
      if (this.#ctl === ctl) {
        this.#loading = false;
        this.#ctl = null;
      }
    }
  }

  /** Aborts the call in flight, if any; its answer never lands. */
  cancel(): void {
    this.#ctl?.abort();
    this.#ctl = null;
    this.#loading = false;
  }
}

/**
 * Index to select in a new answer: the item the user had selected (same key) if it is still
 * there, else the first item, else none (-1).
 */
export function keepSelection<T>(items: readonly T[], previousKey: string | null, keyOf: (item: T) => string): number {
  const keep = previousKey === null ? -1 : items.findIndex((item) => keyOf(item) === previousKey);
  return keep >= 0 ? keep : items.length ? 0 : -1;
}
