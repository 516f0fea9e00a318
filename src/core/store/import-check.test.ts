import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkImportedStore, isSqliteFile, openProblem } from './import-check.ts';
import { META } from './meta.ts';
import { openMemoryStore, openNodeStore } from './open-node.ts';
import type { Store } from './store.ts';

describe('import check', () => {
  let store: Store | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  it('recognises an SQLite file by its header', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sift-import-'));
    try {
      const s = await openNodeStore(join(dir, 'x.sqlite'));
      await s.close();
      expect(isSqliteFile(new Uint8Array(readFileSync(join(dir, 'x.sqlite'))))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(isSqliteFile(new TextEncoder().encode('not a database at all'))).toBe(false);
    expect(isSqliteFile(new Uint8Array(3))).toBe(false);
  });

  it('accepts a Sift index, with or without a loaded model, and refuses one embedded with another model', async () => {
    store = await openMemoryStore();
    expect(await checkImportedStore(store, null)).toBeNull();
    await store.setMeta(META.modelKey, 'model-a');
    expect(await checkImportedStore(store, 'model-a')).toBeNull();
    expect(await checkImportedStore(store, null)).toBeNull();
    expect(await checkImportedStore(store, 'model-b')).toMatchObject({ reason: 'model', message: expect.stringContaining('model-a') });
  });

  it('refuses another schema version and a database without Sift tables', async () => {
    store = await openMemoryStore();
    const version = await store.getMeta(META.schemaVersion);
    await store.setMeta(META.schemaVersion, '999');
    expect(await checkImportedStore(store, null)).toMatchObject({ reason: 'schema' });
    await store.setMeta(META.schemaVersion, version!);
    await store.db.exec('DROP TABLE files');
    expect(await checkImportedStore(store, null)).toMatchObject({ reason: 'corrupt', message: expect.stringContaining('not a Sift index') });
  });

  it('classifies a failed open: a newer schema vs anything else', () => {
    expect(openProblem(new Error('database schema 9 is newer than this Sift')).reason).toBe('schema');
    expect(openProblem(new Error('file is not a database')).reason).toBe('corrupt');
  });
});
