/**
 * The tree draws the data path: folder → files → chunks → rows/vectors → hits → results → UI.
 * These checks fail when an import runs back up that line:
 * - inside src/core, a layer imports only itself and the layers before it (LAYERS order);
 * - src/core imports nothing from the page, the CLI, the workers or the benchmarks;
 * - workers import the core and their own folder only (never page code);
 * - `node:*` modules appear in the core only in `*-node.ts` files (and tests), so every other
 *   core module runs in a browser worker.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));
/** src/core's folders in data-path order; `text` is shared by the write and the query side. */
const LAYERS = ['text', 'source', 'walk', 'hash', 'chunk', 'store', 'index', 'embed', 'vector', 'search', 'tools'];
const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const rel = join(dir, name);
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...sources(rel));
    else if (/\.(ts|svelte)$/.test(name) && !/\.d\.ts$/.test(name)) out.push(rel);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(IMPORT_RE)].map((m) => m[1] ?? m[2]);
}

/** Repo-relative target of a relative import, or the bare specifier. */
function resolve(file: string, spec: string): string {
  return spec.startsWith('.') ? relative(ROOT, join(ROOT, dirname(file), spec)) : spec;
}

const isTest = (f: string) => /\.test\.ts$/.test(f);

describe('layering', () => {
  const core = sources('src/core').filter((f) => !isTest(f));

  it('every src/core folder is a known layer', () => {
    const folders = new Set(core.map((f) => f.split('/')[2]).filter((p) => !p.endsWith('.ts')));
    expect([...folders].filter((f) => !LAYERS.includes(f))).toEqual([]);
  });

  it('a core layer imports only itself and earlier layers', () => {
    const bad: string[] = [];
    for (const f of core) {
      const from = LAYERS.indexOf(f.split('/')[2]);
      for (const spec of importsOf(f)) {
        const t = resolve(f, spec);
        if (!t.startsWith('src/core/')) continue;
        const to = LAYERS.indexOf(t.split('/')[2]);
        if (from >= 0 && to > from) bad.push(`${f} -> ${t}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the core never imports the page, the CLI, the workers or the benchmarks', () => {
    const bad: string[] = [];
    for (const f of core) {
      for (const spec of importsOf(f)) {
        const t = resolve(f, spec);
        if (spec.startsWith('.') && !t.startsWith('src/core/')) bad.push(`${f} -> ${t}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('workers import the core and their own folder, never page code', () => {
    const bad: string[] = [];
    // Their tests may use the test helpers (generated models), as the core's do.
    for (const f of sources('workers').filter((f) => !isTest(f))) {
      for (const spec of importsOf(f)) {
        const t = resolve(f, spec);
        if (spec.startsWith('.') && !t.startsWith('src/core/') && !t.startsWith('workers/')) bad.push(`${f} -> ${t}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('node:* modules only in *-node.ts core files', () => {
    const bad = core.filter((f) => !/-node\.ts$/.test(f) && importsOf(f).some((s) => s.startsWith('node:')));
    expect(bad).toEqual([]);
  });

  it('the check sees imports (guards against a regex that matches nothing)', () => {
    expect(importsOf('src/core/search/search.ts').map((s) => resolve('src/core/search/search.ts', s))).toContain('src/core/search/bm25.ts');
  });
});
