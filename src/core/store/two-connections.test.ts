// Two indexes open in one process (`sift mcp a b`, the app's store worker with two codebases):
// SQL functions keep working on both connections (wa-sqlite keeps one callback per name).
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
});
