/**
 * Whether an index file someone imports can be used: an SQLite file (by its header), then,
 * once opened as a Store, Sift's schema version and tables, an intact database and FTS
 * index, and vectors from the model this app uses.
 *
 * Invariant: every refusal is a value with a reason the page can show, never a throw; the
 * checks only read (the caller deletes a refused file).
 */
import { META } from './meta.ts';
import { SCHEMA_VERSION } from './schema.ts';
import type { Store } from './store.ts';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

export type ImportProblem = { reason: 'not-sqlite' | 'schema' | 'model' | 'corrupt'; message: string };

/** An SQLite database file starts with these 16 bytes. */
export function isSqliteFile(bytes: Uint8Array): boolean {
  return new TextDecoder().decode(bytes.subarray(0, 16)) === SQLITE_MAGIC;
}

export const NOT_SQLITE: ImportProblem = { reason: 'not-sqlite', message: 'this file is not a Sift index (not an SQLite database)' };

/** Why opening the imported file as a Store failed (a newer schema, or anything else). */
export function openProblem(e: unknown): ImportProblem {
  const message = e instanceof Error ? e.message : String(e);
  return { reason: /schema|newer/i.test(message) ? 'schema' : 'corrupt', message };
}

/** Null when the opened store can be used with `expectModel` (null: no model loaded). */
export async function checkImportedStore(store: Store, expectModel: string | null): Promise<ImportProblem | null> {
  const version = Number(await store.getMeta(META.schemaVersion));
  if (version !== SCHEMA_VERSION) return { reason: 'schema', message: `index schema version ${version} does not match this Sift (${SCHEMA_VERSION})` };
  if (!(await store.hasSiftTables())) return { reason: 'corrupt', message: 'the file is an SQLite database but not a Sift index' };
  const integrity = await store.integrityCheck();
  if (integrity !== 'ok') return { reason: 'corrupt', message: `the index is damaged: ${integrity.slice(0, 200)}` };
  const indexModel = await store.getMeta(META.modelKey);
  if (indexModel && expectModel && indexModel !== expectModel) {
    return { reason: 'model', message: `the index was embedded with ${indexModel}, but this app uses ${expectModel}. Load that model first (Settings), or re-embed.` };
  }
  return null;
}
