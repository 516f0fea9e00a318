/**
 * Indexes the warm server (serve.ts) keeps open between commands: an opened store with its
 * Searcher (keyword-leg caches), embedder and vector index, or a grep's store and file texts,
 * each under a key naming what it was opened for (index file, options, environment).
 *
 * Invariant: an entry is used only while the files it was opened from are exactly as they were
 * just before it was opened — the index, its rollback journal (absent unless a writer is at work
 * or died mid-write) and the vector cache, each by inode, size and mtime, or absent. Anything else
 * (another process indexed, `sift rebuild` swapped the file in, the index was removed) closes the
 * entry and opens afresh through the same code a one-shot command runs, so the answer, its
 * errors (no index: exit 3, corrupt: 4, busy: 5) and its notes are that command's. Within an
 * unchanged file, Store.read still checks SQLite's data_version on every search.
 */
import { statSync } from 'node:fs';
import { forwardedEnv } from './serve-protocol.ts';

/** Most entries kept open; the least recently used one past this is closed. */
export const MAX_WARM_ENTRIES = 4;

export interface Closable {
  close(): Promise<void>;
}

interface Entry {
  value: Closable;
  files: string[];
  signature: string;
  /** Set when a command saw this entry fail: the next use opens afresh. */
  discarded: boolean;
}

/** Inode, size and mtime of each file (or "-" when absent), as one string. */
export function filesSignature(files: readonly string[]): string {
  return files.map((f) => {
    try {
      const s = statSync(f, { bigint: true });
      return `${s.ino}:${s.size}:${s.mtimeNs}`;
    } catch {
      return '-';
    }
  }).join('|');
}

/** `name` under the current environment's forwarded variables. */
function scoped(name: string): string {
  return `${JSON.stringify(Object.entries(forwardedEnv()).sort(([a], [b]) => (a < b ? -1 : 1)))}\0${name}`;
}

export class WarmIndexes {
  readonly #entries = new Map<string, Entry>();
  #opened = 0;
  #reused = 0;

  /**
   * The value kept under `key` while `files` are unchanged, else a new one from `open` (kept
   * unless it throws). The caller must not close it: the entry is closed when replaced, evicted
   * or at closeAll. Keys are per environment (the forwarded variables: home, offline, busy wait…).
   */
  async use<T extends Closable>(name: string, files: readonly string[], open: () => Promise<T>): Promise<T> {
    const key = scoped(name);
    const signature = filesSignature(files);
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      if (!old.discarded && old.signature === signature) {
        this.#entries.set(key, old); // most recently used last
        this.#reused++;
        return old.value as T;
      }
      await old.value.close().catch(() => undefined);
    }
    const value = await open();
    this.#opened++;
    this.#entries.set(key, { value, files: [...files], signature, discarded: false });
    for (const [k, e] of this.#entries) {
      if (this.#entries.size <= MAX_WARM_ENTRIES) break;
      this.#entries.delete(k);
      await e.value.close().catch(() => undefined);
    }
    return value;
  }

  /** After a failure or a fallback seen with the entry of `name`: the next use opens afresh. */
  discard(name: string): void {
    const e = this.#entries.get(scoped(name));
    if (e) e.discarded = true;
  }

  /** Entries open now, and how many opens and reuses so far (`sift serve --status`). */
  get stats(): { open: number; opened: number; reused: number } {
    return { open: this.#entries.size, opened: this.#opened, reused: this.#reused };
  }

  async closeAll(): Promise<void> {
    const all = [...this.#entries.values()];
    this.#entries.clear();
    for (const e of all) await e.value.close().catch(() => undefined);
  }
}

/**
 * File text a kept-open grep keeps (characters, per index): the medium corpus (20 MB) fits;
 * a one-shot process keeps DEFAULT_TEXT_CACHE_CHARS (core/search/grep.ts) for its one run.
 */
export const WARM_TEXT_CACHE_CHARS = 32 * 1024 * 1024;
