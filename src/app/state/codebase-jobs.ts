/**
 * The running job (index or embed) of each codebase, and which ones the user paused.
 *
 * Invariants: at most one job per codebase (`start` refuses a second one); pausing and
 * cancelling both abort the job, and only a pause is remembered (the UI offers "Resume"),
 * until the next index run starts.
 */
export class CodebaseJobs {
  readonly #running = new Map<string, AbortController>();
  readonly #paused = new Set<string>();

  isRunning(id: string): boolean {
    return this.#running.has(id);
  }

  isPaused(id: string): boolean {
    return this.#paused.has(id);
  }

  /** The new job's signal, or null when one already runs on `id`. */
  start(id: string, opts: { clearPause?: boolean } = {}): AbortSignal | null {
    if (this.#running.has(id)) return null;
    if (opts.clearPause) this.#paused.delete(id);
    const ctl = new AbortController();
    this.#running.set(id, ctl);
    return ctl.signal;
  }

  end(id: string): void {
    this.#running.delete(id);
  }

  pause(id: string): void {
    this.#paused.add(id);
    this.#running.get(id)?.abort();
  }

  cancel(id: string): void {
    this.#paused.delete(id);
    this.#running.get(id)?.abort();
  }

  /** Forgets `id` (removed): aborts its job, drops its pause. */
  forget(id: string): void {
    this.#paused.delete(id);
    this.#running.get(id)?.abort();
  }
}
