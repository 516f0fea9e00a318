// Two indexes open in one process (`sift mcp a b`, the app's store worker with two codebases):
// SQL functions keep working on both connections (wa-sqlite keeps one callback per name), and
// two NEW indexes opened at the same moment get a connection each (wa-sqlite's open_v2).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openNodeStore } from './open-node.ts';

describe('two connections in one process', () => {
  it('both answer queries that call the SQL functions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sift-two-'));
    try {
      const a = await openNodeStore(join(dir, 'a.db'));
      const b = await openNodeStore(join(dir, 'b.db'));
      for (const s of [a, b, a]) {
        expect(await s.db.get<{ k: number }>("SELECT sift_path_match('*.py', 'src/x.py') AS k")).toEqual({ k: 1 });
      }
      await a.close();
      await b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('two new indexes opened at once get their own connections and write at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sift-two-'));
    try {
      // (Both opened together: each runs its migrations in transactions at the same time.)
      const [a, b] = await Promise.all([openNodeStore(join(dir, 'a.db')), openNodeStore(join(dir, 'b.db'))]);
      expect(a.db.handle).not.toBe(b.db.handle);
      await Promise.all([a, b].map((s, i) => s.db.transaction(async (tx) => {
        await tx.run("INSERT INTO meta(key, value) VALUES ('two-test', ?)", [`store ${i}`]);
      })));
      expect(await a.db.get("SELECT value FROM meta WHERE key = 'two-test'")).toEqual({ value: 'store 0' });
      expect(await b.db.get("SELECT value FROM meta WHERE key = 'two-test'")).toEqual({ value: 'store 1' });
      await Promise.all([a.close(), b.close()]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
