/**
 * Cross-tab traffic about codebases: which messages a tab sends when its list or an index
 * changed, and what it does when another tab says so. Rides on the tab channel and writer
 * lock of tabs.svelte.ts.
 *
 * Invariant: only the writer tab sends `index-updated` and `progress` (it is the only one
 * that indexes); any tab may send `codebases-changed` after saving the list.
 */
import type { TabMessage } from './tabs.svelte.ts';

/** The slice of `tabs` this needs. */
export interface TabChannel {
  readonly isWriter: boolean;
  post(m: TabMessage): void;
  subscribe(f: (m: TabMessage) => void): () => void;
  onBecomeWriter(f: () => void): void;
}

export interface SyncHandlers {
  /** Another tab saved the list of codebases. */
  listChanged(): void;
  /** Another tab finished writing to a codebase's index. */
  indexUpdated(codebaseId: string): void;
  /** Another tab's indexing progress (null: it stopped). */
  progress(codebaseId: string, text: string | null): void;
  /** This tab just became the writer. */
  becameWriter(): void;
}

export class CodebaseSync {
  readonly #tabs: TabChannel;

  constructor(tabs: TabChannel) {
    this.#tabs = tabs;
  }

  get isWriter(): boolean {
    return this.#tabs.isWriter;
  }

  listen(h: SyncHandlers): () => void {
    this.#tabs.onBecomeWriter(() => h.becameWriter());
    return this.#tabs.subscribe((m) => {
      if (m.type === 'codebases-changed') h.listChanged();
      else if (m.type === 'index-updated') h.indexUpdated(m.codebaseId);
      else if (m.type === 'progress') h.progress(m.codebaseId, m.text);
    });
  }

  listChanged(): void {
    this.#tabs.post({ type: 'codebases-changed' });
  }

  indexUpdated(codebaseId: string): void {
    this.#tabs.post({ type: 'index-updated', codebaseId });
  }

  progress(codebaseId: string, text: string | null): void {
    this.#tabs.post({ type: 'progress', codebaseId, text });
  }
}
