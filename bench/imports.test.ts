// No circle of imports in the tree (bench/ had one at runtime: browser.ts → grep.ts → run.ts →
// browser.ts, which left run.ts's top-level await unsettled, exit 13). `import type` counts
// too: erased at runtime, it is still a circle in the design (what both sides need belongs
// below both; issue 35 removed the last two, query.ts ↔ symbols.ts and languages.ts ↔
// language-hooks.ts). A regex over import/export-from statements and literal dynamic imports;
// a specifier that does not resolve to a file here is skipped.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_DIR } from './util.ts';

const ROOTS = ['bench', 'bin', 'scripts', 'src', 'test', 'vite-plugins', 'workers'];
const SKIP = new Set(['node_modules', 'corpora', 'tmp', 'results', 'generated']);
const STATEMENT = /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[^;'"]*?\sfrom\s+)?['"]([^'"\n]+)['"]|\bimport\(\s*['"]([^'"\n]+)['"]\s*\)/g;

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|js|mjs|svelte)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function target(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const p of [base, `${base}.ts`, join(base, 'index.ts')]) if (existsSync(p) && statSync(p).isFile()) return p;
  return null;
}

/** Import edges of each file (types included). */
function importGraph(files: string[]): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files) {
    const edges = new Set<string>();
    for (const m of readFileSync(f, 'utf8').matchAll(STATEMENT)) {
      const t = target(f, m[1] ?? m[2]!);
      if (t) edges.add(t);
    }
    g.set(f, [...edges]);
  }
  return g;
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
function cycles(g: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (g.get(v) ?? []).includes(v)) out.push(scc.sort());
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe('imports', () => {
  it('finds a circle, dynamic imports included', () => {
    const g = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
    expect(cycles(g)).toEqual([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['b']], ['b', []]]))).toEqual([]);
  });

  it('no circle of imports in the tree, type-only imports included', () => {
    const files = ROOTS.filter((r) => existsSync(join(REPO_DIR, r))).flatMap((r) => sources(join(REPO_DIR, r)));
    const g = importGraph(files);
    expect(g.get(join(REPO_DIR, 'bench', 'run.ts'))).toContain(join(REPO_DIR, 'bench', 'browser.ts')); // dynamic imports are edges
    expect(cycles(g).map((c) => c.map((f) => relative(REPO_DIR, f)))).toEqual([]);
  });
});
