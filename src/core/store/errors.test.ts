import { describe, expect, it } from 'vitest';
import { classify, EXIT_CODE, SiftError } from './errors.ts';
import { StorageFullError, StoreError } from './sqlite.ts';
import { openMemoryStore } from './open-node.ts';

/** What an error looks like after Comlink carried it out of a worker: name, message and our extra fields. */
function acrossWorker(e: Error & { code?: unknown; kind?: unknown }): Error {
  return Object.assign(new Error(e.message), { name: e.name, code: e.code, kind: e.kind });
}

describe('classify', () => {
  it('names a damaged database corrupt, and nothing else', () => {
    expect(classify(new StoreError('database disk image is malformed', 11)).kind).toBe('corrupt');
    expect(classify(new StoreError('file is not a database', 26)).kind).toBe('corrupt');
    expect(classify(new StoreError('SQL logic error', 267)).kind).toBe('corrupt'); // SQLITE_CORRUPT_VTAB
    expect(classify(new Error('invalid fts5 file format (found 0, expected 4 or 5) - run \'rebuild\'')).kind).toBe('corrupt');
    // Look-alikes that must never suggest a rebuild.
    expect(classify(new StorageFullError('database or disk is full', 13)).kind).toBe('storage-full');
    expect(classify(new StoreError('disk I/O error', 10, { cause: Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }) })).kind).toBe('storage-full');
    expect(classify(new StoreError('database is locked', 5)).kind).toBe('busy');
    expect(classify(new StoreError('disk I/O error', 10)).kind).toBe('io');
    expect(classify(new StoreError('unable to open database file', 14)).kind).toBe('io');
    expect(classify(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })).kind).toBe('permission-lost');
  });

  it('keeps browser conditions apart: quota, revoked permission, another tab, a vanished folder, cancel', () => {
    const named = (name: string, message = name) => Object.assign(new Error(message), { name });
    expect(classify(named('QuotaExceededError')).kind).toBe('storage-full');
    expect(classify(named('NotAllowedError')).kind).toBe('permission-lost');
    expect(classify(named('NoModificationAllowedError')).kind).toBe('busy');
    expect(classify(named('NotFoundError')).kind).toBe('not-found');
    expect(classify(named('AbortError')).kind).toBe('cancelled');
  });

  it('classifies the same after a worker boundary (name, code and kind survive, instanceof does not)', () => {
    for (const e of [new StoreError('database disk image is malformed', 11), new StorageFullError('x', 13), new SiftError('newer-schema', 'schema 9 > 5'), new SiftError('busy', 'pid 1')]) {
      expect(classify(acrossWorker(e)).kind).toBe(classify(e).kind);
    }
    expect(classify(new Error('index schema version 9 is newer than this Sift (5); rebuild the index or update Sift')).kind).toBe('newer-schema');
  });

  it('a real SQLite error from a full database file maps to storage-full with exit 6', async () => {
    const store = await openMemoryStore();
    // The cap goes below the file's size, which SQLite rounds up to the size: no page is left for the row.
    await store.db.exec('CREATE TABLE big (x BLOB); PRAGMA max_page_count = 8');
    const err = await store.db.run('INSERT INTO big VALUES (zeroblob(1000000))').catch((e: unknown) => e);
    expect(classify(err).kind).toBe('storage-full');
    expect(EXIT_CODE[classify(err).kind]).toBe(6);
    await store.close();
  });
});
