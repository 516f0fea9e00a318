/**
 * Tab coordination. One tab at a time is the *writer* (holds the `sift-writer` Web Lock
 * for its lifetime); it indexes, embeds, imports and deletes. Other tabs search read-only
 * and say so; when the writer closes, the next waiting tab takes the lock. Tabs tell each
 * other about changes over a BroadcastChannel.
 *
 * Invariant: no tab writes to a codebase database unless `isWriter` is true.
 */

export const WRITER_LOCK = 'sift-writer';
const CHANNEL = 'sift';

export type TabMessage =
  | { type: 'codebases-changed' }
  | { type: 'index-updated'; codebaseId: string }
  | { type: 'progress'; codebaseId: string; text: string | null };

class Tabs {
  #writer = $state(false);
  #started = false;
  #channel: BroadcastChannel | null = null;
  #listeners = new Set<(m: TabMessage) => void>();
  #becameWriter: Array<() => void> = [];

  get isWriter(): boolean {
    return this.#writer;
  }

  /** Resolves once this tab knows whether it is the writer right now. */
  start(): Promise<void> {
    if (this.#started) return Promise.resolve();
    this.#started = true;
    if (typeof BroadcastChannel !== 'undefined') {
      this.#channel = new BroadcastChannel(CHANNEL);
      this.#channel.onmessage = (ev: MessageEvent<TabMessage>) => {
        for (const l of this.#listeners) l(ev.data);
      };
    }
    const locks = (navigator as Navigator & { locks?: LockManager }).locks;
    if (!locks) {
      // No Web Locks (very old browsers): a single tab is assumed.
      this.#writer = true;
      return Promise.resolve();
    }
    return new Promise<void>((decided) => {
      void locks.request(WRITER_LOCK, { ifAvailable: true }, async (lock) => {
        if (lock) {
          this.#take();
          decided();
          return new Promise<void>(() => {}); // held until the tab closes
        }
        decided();
        // Wait in line; take over when the writer tab goes away.
        void locks.request(WRITER_LOCK, async () => {
          this.#take();
          return new Promise<void>(() => {});
        });
        return undefined;
      });
    });
  }

  #take(): void {
    this.#writer = true;
    for (const f of this.#becameWriter) f();
  }

  onBecomeWriter(f: () => void): void {
    this.#becameWriter.push(f);
  }

  post(m: TabMessage): void {
    this.#channel?.postMessage(m);
  }

  subscribe(f: (m: TabMessage) => void): () => void {
    this.#listeners.add(f);
    return () => this.#listeners.delete(f);
  }
}

export const tabs = new Tabs();
