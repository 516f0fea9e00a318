/**
 * Cancellation across a worker boundary. An AbortSignal cannot be cloned, so a long call
 * carries a plain string token instead; the worker keeps one AbortController per token and
 * the bridge calls the worker's `cancel(token)` when the caller's signal aborts.
 *
 * Invariants: a token is live only between `begin` and `end`; cancelling an unknown or
 * finished token is a no-op (the call may have just completed); AbortError keeps its name
 * when it crosses back (Comlink re-throws Error objects with `name` and `message`).
 */

export type CancelToken = string;

let counter = 0;

/** A fresh token, unique within this page (workers never mint tokens). */
export function newToken(prefix = 'call'): CancelToken {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

/** Worker side: one AbortController per in-flight call. */
export class CancelRegistry {
  #live = new Map<CancelToken, AbortController>();

  begin(token: CancelToken): AbortSignal {
    const ctl = new AbortController();
    this.#live.set(token, ctl);
    return ctl.signal;
  }

  cancel(token: CancelToken): void {
    this.#live.get(token)?.abort(new DOMException('Cancelled', 'AbortError'));
  }

  end(token: CancelToken): void {
    this.#live.delete(token);
  }

  /** Runs `fn` with the token's signal; always releases the token. */
  async run<T>(token: CancelToken, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = this.begin(token);
    try {
      return await fn(signal);
    } finally {
      this.end(token);
    }
  }
}

export function abortError(message = 'Cancelled'): DOMException {
  return new DOMException(message, 'AbortError');
}

export function isAbortError(e: unknown): boolean {
  return (
    (e instanceof DOMException && e.name === 'AbortError') ||
    (e instanceof Error && e.name === 'AbortError') ||
    (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError')
  );
}
