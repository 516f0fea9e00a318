import { describe, expect, it } from 'vitest';
import { nodeRuntime, openMemoryStore } from './open-node.ts';
import { MEMORY_VFS_NAME } from './open.ts';
import { migrate, SCHEMA_VERSION, SNAPSHOT_VERSION } from './schema.ts';
import { Db } from './sqlite.ts';
import { registerFileKind } from '../text/file-kind.ts';
import { registerFtsTotals } from './fts-totals.ts';

/** A fresh database's schema as comparable text: every object but FTS5's own shadow tables, SQL with whitespace normalised. */
async function schemaOf(db: Db): Promise<string[]> {
  const rows = await db.all<{ type: string; name: string; sql: string | null }>('SELECT type, name, sql FROM sqlite_schema');
  const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql ?? '')).map((r) => r.name);
  const out: string[] = [];
  for (const r of rows) {
    if (virtual.some((v) => r.name.startsWith(`${v}_`))) continue;
    const sql = (r.sql ?? '').replace(/\s+/g, ' ').replace(/ ?([(),]) ?/g, '$1').trim();
    out.push(`${r.type} ${r.name}: ${sql}`);
    if (r.type === 'table' && !virtual.includes(r.name)) {
      const cols = await db.all(`SELECT * FROM pragma_table_xinfo('${r.name}')`);
      out.push(`${r.name} columns: ${JSON.stringify(cols)}`);
    }
  }
  return out.sort();
}

/** Every table's rows (FTS5's shadow tables too, `meta` without its creation time), by table: what a new database holds. */
async function rowsOf(db: Db): Promise<Record<string, unknown[]>> {
  const tables = await db.all<{ name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name");
  const out: Record<string, unknown[]> = {};
  for (const { name } of tables) out[name] = await db.all(`SELECT * FROM "${name}"${name === 'meta' ? " WHERE key <> 'created_at'" : ''} ORDER BY 1`);
  return out;
}

async function freshDb(): Promise<Db> {
  const rt = await nodeRuntime();
  await (await openMemoryStore()).close(); // registers the memory VFS
  const db = await Db.open(rt.sqlite3, rt.module, `/schema-test-${Math.random()}.db`, MEMORY_VFS_NAME);
  registerFileKind(db);
  registerFtsTotals(db);
  return db;
}

describe('schema', () => {
  it('a new database gets from SNAPSHOT exactly what replaying every migration builds', async () => {
    const replayed = await freshDb();
    const snapshot = await freshDb();
    expect(await migrate(replayed, { snapshot: false })).toBe(0);
    expect(await migrate(snapshot)).toBe(0);
    expect(SNAPSHOT_VERSION).toBeLessThanOrEqual(SCHEMA_VERSION);
    const a = await schemaOf(replayed);
    expect(a.length).toBeGreaterThan(10);
    expect(await schemaOf(snapshot)).toEqual(a);
    // The migrations the snapshot stands for after its schema's own (data-only ones) change no row of a new database.
    expect(await rowsOf(snapshot)).toEqual(await rowsOf(replayed));
    for (const db of [replayed, snapshot]) {
      expect(await db.get('PRAGMA user_version')).toEqual({ user_version: SCHEMA_VERSION });
      expect(await db.all("SELECT key, value FROM meta WHERE key = 'schema_version'")).toEqual([{ key: 'schema_version', value: String(SCHEMA_VERSION) }]);
      expect(await db.all('SELECT * FROM chunks_fts_config')).toEqual([{ k: 'version', v: 4 }]);
    }
    await replayed.close();
    await snapshot.close();
  });

  it('replays the migrations, not the snapshot, on a database that already has tables', async () => {
    const db = await freshDb();
    await db.exec('CREATE TABLE unrelated (x)');
    // Migration 1 creates `files`; the snapshot would too — so a taken table fails the same way either way,
    // and a database with tables but version 0 is never silently given the snapshot.
    await db.exec('CREATE TABLE files (x)');
    await expect(migrate(db)).rejects.toThrow(/files already exists/);
    expect(await db.get('PRAGMA user_version')).toEqual({ user_version: 0 });
    await db.close();
  });
});
