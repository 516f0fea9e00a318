/**
 * Keeping indexed folders fresh: a FileSystemObserver per folder where the browser has one
 * (changes coalesced, then one quiet rescan), else a rescan when the tab regains focus, at
 * most once per FOCUS_RESCAN_MIN_MS per folder.
 *
 * Invariants: at most one observer per codebase; a folder with a live observer is never
 * rescanned on focus (the observer already covers it); `forget` stops both.
 */

/** A focus-triggered rescan runs at most this often per codebase. */
export const FOCUS_RESCAN_MIN_MS = 15_000;
/** FileSystemObserver changes are coalesced for this long before a rescan. */
export const OBSERVER_DEBOUNCE_MS = 800;

interface Observer {
  observe(h: FileSystemHandle, o: { recursive: boolean }): Promise<void>;
  disconnect(): void;
}
export type ObserverCtor = new (cb: (records: unknown[]) => void) => Observer;

export interface FolderWatchDeps {
  /** Starts a quiet incremental rescan of codebase `id`. */
  rescan(id: string): void;
  /** The browser's FileSystemObserver, when it has one. */
  Observer?: ObserverCtor;
  now?: () => number;
}

export class FolderWatch {
  readonly #deps: FolderWatchDeps;
  readonly #observers = new Map<string, Observer>();
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #lastCheck = new Map<string, number>();

  constructor(deps: FolderWatchDeps) {
    this.#deps = deps;
  }

  isObserved(id: string): boolean {
    return this.#observers.has(id);
  }

  /** Observes `handle` for codebase `id` (no-op without FileSystemObserver or when already observed). */
  observe(id: string, handle: FileSystemDirectoryHandle): void {
    const Ctor = this.#deps.Observer;
    if (!Ctor || this.#observers.has(id)) return;
    try {
      const obs = new Ctor(() => {
        clearTimeout(this.#timers.get(id));
        this.#timers.set(
          id,
          setTimeout(() => {
            this.#timers.delete(id);
            this.#deps.rescan(id);
          }, OBSERVER_DEBOUNCE_MS),
        );
      });
      obs.observe(handle, { recursive: true }).catch(() => this.#observers.delete(id));
      this.#observers.set(id, obs);
    } catch {
      // Observer unsupported for this handle: focus rescans cover it.
    }
  }

  forget(id: string): void {
    this.#observers.get(id)?.disconnect();
    this.#observers.delete(id);
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
    this.#lastCheck.delete(id);
  }

  /** Records that codebase `id` was just scanned (by any trigger). */
  checked(id: string): void {
    this.#lastCheck.set(id, this.#now());
  }

  /** The tab regained focus: rescans those of `ids` that no observer covers and that were not checked lately. */
  focus(ids: string[]): void {
    for (const id of ids) {
      if (this.#observers.has(id)) continue;
      if (this.#now() - (this.#lastCheck.get(id) ?? 0) < FOCUS_RESCAN_MIN_MS) continue;
      this.#deps.rescan(id);
    }
  }

  #now(): number {
    return (this.#deps.now ?? Date.now)();
  }
}
