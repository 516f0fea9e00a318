/**
 * The persisted list of codebases this browser knows (folder handles included: IndexedDB
 * stores FileSystemDirectoryHandles, localStorage cannot). Only records live here; index
 * info, access and jobs are recomputed on every load.
 *
 * Invariant: `load` returns only well-formed records (an entry without an id is dropped).
 */

import type { IndexSummary } from '../../core/index/indexer.ts';

/** `pack`: a published index opened by URL (issue 27), read-only and read over HTTP. */
export type CodebaseKind = 'folder' | 'snapshot' | 'imported' | 'pack';

export interface CodebaseRecord {
  id: string;
  name: string;
  kind: CodebaseKind;
  handle: FileSystemDirectoryHandle | null;
  addedAt: string;
  /** `pack` only: the manifest's absolute URL, and its text when last opened (offline reopening). */
  url?: string;
  manifest?: string;
  /** The last index run's summary (its warnings listed), kept across reloads. */
  lastSummary?: IndexSummary;
}

/** The slice of idb-keyval (or any structured-clone key-value store) the records need. */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

export const RECORDS_KEY = 'sift:codebases';

export class CodebaseRecords {
  readonly #kv: KeyValueStore;
  readonly #key: string;

  constructor(kv: KeyValueStore, key = RECORDS_KEY) {
    this.#kv = kv;
    this.#key = key;
  }

  async load(): Promise<CodebaseRecord[]> {
    const records = (await this.#kv.get<CodebaseRecord[]>(this.#key)) ?? [];
    return Array.isArray(records) ? records.filter((r) => r && typeof r.id === 'string' && r.id !== '') : [];
  }

  async save(records: CodebaseRecord[]): Promise<void> {
    await this.#kv.set(this.#key, records);
  }

  /**
   * The id of the spare index (an empty database made before the next folder is added, so the
   * pick does not wait for its creation); null: none. Kept so that a page closed before a pick
   * leaves one spare file, reused by the next visit, not one per visit.
   */
  async loadSpare(): Promise<string | null> {
    const id = await this.#kv.get<string>(`${this.#key}:spare`);
    return typeof id === 'string' && id !== '' ? id : null;
  }

  async saveSpare(id: string | null): Promise<void> {
    await this.#kv.set(`${this.#key}:spare`, id);
  }
}

export function newCodebaseId(): string {
  const r = new Uint8Array(6);
  crypto.getRandomValues(r);
  return `cb-${Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function newRecord(name: string, kind: CodebaseKind, handle: FileSystemDirectoryHandle | null = null, id = newCodebaseId()): CodebaseRecord {
  return { id, name, kind, handle, addedAt: new Date().toISOString() };
}
