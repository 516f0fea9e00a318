import { describe, expect, it } from 'vitest';
import { hookMarkdown, runHooks } from './run.ts';


describe('runHooks', () => {
  it('runs every hook, renders its rows, and reports a failing one without stopping', async () => {
    const out = await runHooks(true, [
      { key: 'ok', title: 'ok', run: async (quick) => [{ kind: 'x', quick, ms: 1.234 }] },
      { key: 'bad', title: 'bad', run: async () => { throw new Error('boom'); } },
      { key: 'after', title: 'after', run: async () => ({ markdown: '# m' }) },
    ]);
    expect(out.map((h) => h.status)).toEqual(['ok', 'failed', 'ok']);
    expect(out[0].data).toEqual([{ kind: 'x', quick: true, ms: 1.234 }]);
    expect(out[0].markdown).toBe('| kind | quick | ms |\n|---|---|---|\n| x | true | 1.23 |');
    expect(out[1].detail).toBe('boom');
    expect(out[2].markdown).toBe('# m');
  });
});

describe('hookMarkdown', () => {
  it.each([
    [{ markdown: '# own' }, '# own'],
    [{ a: 1 }, '```json\n{\n "a": 1\n}\n```'],
  ])('%j', (data, want) => expect(hookMarkdown(data)).toBe(want));
});
