import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hookMarkdown, runHooks } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'sift-hooks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('runHooks', () => {
  it('reports missing modules and functions as not available, runs present ones, catches failures', async () => {
    writeFileSync(join(dir, 'ok.mjs'), 'export async function bench(o) { return [{ kind: "x", quick: o.quick, ms: 1.234 }]; }\n');
    writeFileSync(join(dir, 'bad.mjs'), 'export function bench() { throw new Error("boom"); }\n');
    const spec = (key: string, file: string, fn = 'bench') => ({ key, title: key, module: `file://${join(dir, file)}`, fn, args: (quick: boolean) => ({ quick }) });
    const out = await runHooks(true, [spec('missing', 'nope.mjs'), spec('nofn', 'ok.mjs', 'other'), spec('ok', 'ok.mjs'), spec('bad', 'bad.mjs')]);
    expect(out.map((h) => h.status)).toEqual(['not available', 'not available', 'ok', 'failed']);
    expect(out[2].data).toEqual([{ kind: 'x', quick: true, ms: 1.234 }]);
    expect(out[2].markdown).toBe('| kind | quick | ms |\n|---|---|---|\n| x | true | 1.23 |');
    expect(out[3].detail).toBe('boom');
  });
});

describe('hookMarkdown', () => {
  it.each([
    [{ markdown: '# own' }, '# own'],
    [{ a: 1 }, '```json\n{\n "a": 1\n}\n```'],
  ])('%j', (data, want) => expect(hookMarkdown(data)).toBe(want));
});
