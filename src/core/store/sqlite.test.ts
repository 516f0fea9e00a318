import { describe, expect, it } from 'vitest';
import { openMemoryStore } from './open-node.ts';

// Parameters go through Db's own binder (sqlite.ts RawBinder), not wa-sqlite's bind: each
// value must come back as the same SQL type and value wa-sqlite's binding gave it.
describe('Db parameter binding', () => {
  const values: Array<[string, unknown, string]> = [
    ['empty string', '', 'text'],
    ['short ASCII', 'mutex_lock', 'text'],
    ['short non-ASCII', 'naïve – 日本', 'text'],
    ['astral plane', 'emoji 😀 pair', 'text'],
    ['long ASCII', 'x'.repeat(100_000), 'text'],
    ['long mixed', `${'ab'.repeat(50)}ü${'€'.repeat(3000)}𝄞`, 'text'],
    ['int32', 42, 'integer'],
    ['negative int32', -7, 'integer'],
    ['beyond int32 (bound REAL, like wa-sqlite)', 2 ** 40, 'real'],
    ['fraction', 1.5, 'real'],
    ['null', null, 'null'],
    ['empty blob', new Uint8Array(0), 'blob'],
    ['blob', Uint8Array.from({ length: 70_000 }, (_, i) => i % 251), 'blob'],
    ['bigint', 2n ** 53n + 1n, 'integer'],
  ];

  it.each(values)('%s round-trips with its type', async (_name, value, type) => {
    const store = await openMemoryStore();
    try {
      const row = await store.db.get<{ v: unknown; t: string }>('SELECT ? AS v, typeof(?) AS t', [value as never, value as never]);
      expect(row?.t).toBe(type);
      if (value instanceof Uint8Array) expect(Array.from(row!.v as Uint8Array)).toEqual(Array.from(value));
      else if (typeof value === 'bigint') expect(BigInt(row!.v as number | bigint)).toBe(value);
      else expect(row?.v).toBe(value);
    } finally {
      await store.db.close();
    }
  });

  it('reuses its scratch across statements: a long value then a short one leaves no residue', async () => {
    const store = await openMemoryStore();
    try {
      await store.db.exec('CREATE TABLE t (a TEXT, b BLOB)');
      await store.db.run('INSERT INTO t VALUES (?, ?)', ['y'.repeat(5000), new Uint8Array(5000).fill(9)]);
      await store.db.run('INSERT INTO t VALUES (?, ?)', ['ab', Uint8Array.of(1, 2)]);
      const rows = await store.db.all<{ a: string; n: number; b: Uint8Array }>('SELECT a, length(a) AS n, b FROM t ORDER BY rowid');
      expect(rows.map((r) => r.n)).toEqual([5000, 2]);
      expect(rows[1]!.a).toBe('ab');
      expect(Array.from(rows[1]!.b)).toEqual([1, 2]);
    } finally {
      await store.db.close();
    }
  });

  it('binds text with its real length: characters after a NUL are kept', async () => {
    const store = await openMemoryStore();
    try {
      expect((await store.db.get<{ n: number }>('SELECT length(CAST(? AS BLOB)) AS n', ['a\u0000b']))?.n).toBe(3);
    } finally {
      await store.db.close();
    }
  });

  it('leaves a parameter missing from the array NULL, and binds named parameters too', async () => {
    const store = await openMemoryStore();
    try {
      expect(await store.db.get('SELECT ? AS a, ? AS b', ['x'])).toEqual({ a: 'x', b: null });
      expect(await store.db.get('SELECT :x AS a', { ':x': 'named' })).toEqual({ a: 'named' });
    } finally {
      await store.db.close();
    }
  });
});
