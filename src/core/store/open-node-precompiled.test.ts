/**
 * The SQLite module bin/sift starts compiling before the bundle loads (its precompileSqlite):
 * nodeRuntime instantiates that module, not the file's bytes, when it is of the same file, and
 * compiles the bytes itself otherwise. Each case runs in a fresh Node (the runtime is made once
 * per process), through the sources, reporting what WebAssembly.instantiate was given.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const WASM = createRequire(import.meta.url).resolve('@journeyapps/wa-sqlite/dist/wa-sqlite.wasm');

/** Run a store query in a fresh process after `setup` (JS run first); returns what it printed. */
function probe(setup: string): { given: string[]; rows: number } {
  const script = `
    import { readFileSync } from 'node:fs';
    const given = [];
    const instantiate = WebAssembly.instantiate;
    // SQLite's (the Emscripten glue's import object is { a: … }), not the other modules Node instantiates.
    WebAssembly.instantiate = (what, imports) => {
      if (imports && 'a' in imports) given.push(what instanceof WebAssembly.Module ? 'module' : 'bytes');
      return instantiate(what, imports);
    };
    ${setup}
    const { openMemoryStore } = await import('./src/core/store/open-node.ts');
    const store = await openMemoryStore();
    const rows = (await store.db.all('SELECT 1 AS one UNION ALL SELECT 2')).length;
    await store.close();
    console.log(JSON.stringify({ given, rows }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx/esm', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, WASM } });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe('nodeRuntime and a precompiled SQLite module', () => {
  it('instantiates the module compiled ahead for the same file', () => {
    const r = probe(`globalThis[Symbol.for('sift.sqlite-wasm')] = { path: process.env.WASM, module: WebAssembly.compile(readFileSync(process.env.WASM)) };`);
    expect(r).toEqual({ given: ['module'], rows: 2 });
  });

  it('compiles the bytes itself without one, for another file, or when the compile failed', () => {
    expect(probe('')).toEqual({ given: ['bytes'], rows: 2 });
    expect(probe(`globalThis[Symbol.for('sift.sqlite-wasm')] = { path: '/elsewhere/wa-sqlite.wasm', module: WebAssembly.compile(readFileSync(process.env.WASM)) };`))
      .toEqual({ given: ['bytes'], rows: 2 });
    // As bin/sift leaves it: the failed compile's rejection handled there, met again here.
    expect(probe(`const module = WebAssembly.compile(new Uint8Array([0, 1, 2])); module.catch(() => undefined); globalThis[Symbol.for('sift.sqlite-wasm')] = { path: process.env.WASM, module };`))
      .toEqual({ given: ['bytes'], rows: 2 });
  });
});
