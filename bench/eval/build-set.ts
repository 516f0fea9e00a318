/**
 * Builds CodeSearchNet-style eval sets from code nobody on this project wrote:
 *   kernel — kernel-doc comments before C functions (Debian linux-source-6.1 subset),
 *   js     — JSDoc before functions/methods in node_modules package sources (.js, unminified),
 *   go     — Go doc comments before funcs (Debian golang-1.19-src),
 *   python — docstrings of functions and methods in Python 3.11's standard library (tests excluded),
 *   rust   — `///` doc comments before fns in Rust's core, alloc and std (Debian rust-src 1.63).
 * For each set it writes bench/corpora/eval/<name>/:
 *   tree/          an indexed COPY of the sources in which the doc comment of every sampled
 *                  function is replaced by empty lines — line numbers stay identical, so
 *                  targets refer to the same lines in the copy and in the original;
 *   queries.jsonl  one {id, query, path, start_line, end_line, symbol, language} per line;
 *   meta.json      sources, seed, candidate counts.
 * Sampling is seeded (mulberry32) and reproducible. Queries that occur more than once
 * among the candidates are dropped (ambiguous targets); queries under MIN_QUERY_WORDS
 * words are skipped. Function names inside queries are kept, as CodeSearchNet does.
 *
 * Usage: tsx bench/eval/build-set.ts [kernel|js|go|go-alldocs|… ...] [--per-set 300] [--seed 42]
 * A name ending in -alldocs blanks EVERY extracted function's doc comment (specFor).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_FILE_SIZE } from '../../src/core/config.ts';
import { GO_SRC, prepareScale } from '../corpora.ts';
import { CORPORA_DIR, REPO_DIR, isMain, listFiles, parseArgs } from '../util.ts';
import { blankLines, extractDocFunctions, wordCount, type BlankRange, type EvalLanguage } from './extract.ts';
import { mulberry32 } from '../../src/core/vector/synthetic.ts';

/** Where the sets are built and indexed; SIFT_EVAL_DIR overrides it (a helper's own copy: two runs never share an index file). */
export const EVAL_DIR = process.env.SIFT_EVAL_DIR ?? join(CORPORA_DIR, 'eval');
export const DEFAULT_PER_SET = 300;
export const DEFAULT_SEED = 42;
export const MIN_QUERY_WORDS = 4;
/** Longer functions are kept out of the sample (they can only be hit by a part). */
export const MAX_FUNCTION_LINES = 400;
/** A line longer than this marks a file as generated/minified: not a target. */
const MAX_LINE_CHARS = 1000;

export interface EvalQuery {
  id: number;
  query: string;
  path: string;
  start_line: number;
  end_line: number;
  symbol: string;
  language: EvalLanguage;
}

export interface SetSpec {
  name: 'kernel' | 'js' | 'go' | 'python' | 'rust';
  language: EvalLanguage;
  /** Source folders: [absolute source dir, relative destination inside tree/]. */
  roots: () => Array<[string, string]>;
  /** Files copied into the tree (relative to a root). */
  copy: (rel: string) => boolean;
  /** Files whose documented functions may become targets. */
  target: (rel: string) => boolean;
}

const KERNEL_EVAL_DIRS = ['kernel', 'mm', 'lib', 'block', 'security'];
const JS_EVAL_PACKAGES = [
  'svelte/src', 'eslint/lib', '@huggingface/transformers/src', 'protobufjs/src', 'eslint-scope/lib',
  'source-map-js/lib', 'ajv/lib', 'postcss-selector-parser/dist', 'esquery/dist', 'espree/dist',
];
const GO_EVAL_DIRS = [
  'net', 'crypto', 'encoding', 'go', 'text', 'html', 'strings', 'bytes', 'strconv', 'sort', 'bufio', 'io', 'os',
  'fmt', 'time', 'sync', 'context', 'path', 'regexp', 'compress', 'archive', 'image', 'math', 'unicode', 'mime',
];

/** Python's standard library as Debian installs it (python3.11 / libpython3.11-stdlib). */
export const PYTHON_SRC = '/usr/lib/python3.11';
/** Rust's standard library sources (Debian rust-src 1.63: `apt-get install rust-src`); navigate.ts reads them too. */
export const RUST_SRC = '/usr/lib/rustlib/src/rust/library';
const RUST_EVAL_CRATES = ['core', 'alloc', 'std'];
/** Python directories that are not the library's code: tests, installed packages, build config. */
const PYTHON_SKIP_DIRS = new Set(['test', 'tests', 'idle_test', 'site-packages', 'dist-packages', '__pycache__', 'lib-dynload']);

export const SETS: SetSpec[] = [
  {
    name: 'kernel',
    language: 'c',
    roots: () => {
      const k = prepareScale().dir;
      return KERNEL_EVAL_DIRS.map((d) => [join(k, d), d]);
    },
    copy: () => true,
    target: (rel) => rel.endsWith('.c') || rel.endsWith('.h'),
  },
  {
    name: 'js',
    language: 'javascript',
    roots: () => JS_EVAL_PACKAGES.filter((p) => existsSync(join(REPO_DIR, 'node_modules', p)))
      .map((p) => [join(REPO_DIR, 'node_modules', p), p.replace(/\/(src|lib|dist)$/, '')]),
    // Type declarations repeat the JSDoc verbatim; they are not part of the searched code.
    copy: (rel) => !/\.d\.[cm]?ts$|\.map$|\.min\.js$/.test(rel) && !rel.split('/').includes('node_modules'),
    target: (rel) => /\.[cm]?js$/.test(rel),
  },
  {
    name: 'go',
    language: 'go',
    roots: () => GO_EVAL_DIRS.map((d) => [join(GO_SRC, d), d]),
    copy: (rel) => !rel.split('/').includes('testdata'),
    target: (rel) => rel.endsWith('.go') && !rel.endsWith('_test.go'),
  },
  {
    name: 'python',
    language: 'python',
    roots: () => [[PYTHON_SRC, 'python3.11']],
    copy: (rel) => rel.endsWith('.py') && !rel.split('/').some((d) => PYTHON_SKIP_DIRS.has(d) || d.startsWith('config-3')),
    target: () => true,
  },
  {
    name: 'rust',
    language: 'rust',
    roots: () => RUST_EVAL_CRATES.map((c) => [join(RUST_SRC, c, 'src'), c]),
    copy: (rel) => rel.endsWith('.rs'),
    // Unit-test modules (`tests.rs`, `tests/`) are not the library's documented API.
    target: (rel) => !/(^|\/)tests?(\.rs|\/)/.test(rel) && !rel.endsWith('/benches.rs'),
  },
];


export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const rnd = mulberry32(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

interface Candidate extends EvalQuery {
  docStart: number;
  docEnd: number;
}

export interface BuildSummary {
  name: string;
  dir: string;
  treeFiles: number;
  candidates: number;
  sampled: number;
  seconds: number;
}

/** Suffix of a set built with every doc comment blanked (`go-alldocs`), not only the sampled ones. */
export const ALL_DOCS_SUFFIX = '-alldocs';

/** The spec and protocol for a set name: `go` blanks the sampled functions' docs, `go-alldocs` every doc. */
export function specFor(name: string): { spec: SetSpec; allDocs: boolean } | null {
  const allDocs = name.endsWith(ALL_DOCS_SUFFIX);
  const spec = SETS.find((s) => s.name === (allDocs ? name.slice(0, -ALL_DOCS_SUFFIX.length) : name));
  return spec ? { spec, allDocs } : null;
}

/**
 * `allDocs`: the CodeSearchNet protocol proper — every extracted function's doc comment is
 * blanked in the copy (not only the sampled ones), so no query can match its own or a
 * neighbour's comment text; the set is written to `<name>-alldocs/`.
 */
export function buildSet(spec: SetSpec, perSet = DEFAULT_PER_SET, seed = DEFAULT_SEED, allDocs = false): BuildSummary {
  const t0 = performance.now();
  const out = join(EVAL_DIR, spec.name + (allDocs ? ALL_DOCS_SUFFIX : ''));
  const tree = join(out, 'tree');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });

  const candidates: Candidate[] = [];
  /** allDocs: every extracted function's doc range per file, whatever the sampling rules. */
  const allRanges = new Map<string, BlankRange[]>();
  let treeFiles = 0;
  for (const [src, dest] of spec.roots()) {
    for (const rel of listFiles(src, spec.copy)) {
      const destRel = `${dest}/${rel}`;
      mkdirSync(join(tree, destRel, '..'), { recursive: true });
      cpSync(join(src, rel), join(tree, destRel));
      treeFiles++;
      if (!spec.target(rel)) continue;
      const buf = readFileSync(join(src, rel));
      if (buf.length > DEFAULT_MAX_FILE_SIZE) continue;
      const text = buf.toString('utf8');
      if (text.split('\n').some((l) => l.length > MAX_LINE_CHARS)) continue;
      for (const f of extractDocFunctions(text, spec.language)) {
        const range: BlankRange = f.stub ? [f.docStart, f.docEnd, f.stub] : [f.docStart, f.docEnd];
        if (allDocs) allRanges.set(destRel, [...(allRanges.get(destRel) ?? []), range]);
        // A Python function that is only its docstring has no code left to find.
        if (wordCount(f.query) < MIN_QUERY_WORDS || f.end - f.start + 1 > MAX_FUNCTION_LINES || f.stub) continue;
        candidates.push({
          id: 0, query: f.query, path: destRel, start_line: f.start, end_line: f.end, symbol: f.name,
          language: spec.language, docStart: f.docStart, docEnd: f.docEnd,
        });
      }
    }
  }

  const seen = new Map<string, number>();
  const norm = (q: string) => q.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
  for (const c of candidates) seen.set(norm(c.query), (seen.get(norm(c.query)) ?? 0) + 1);
  const unique = candidates.filter((c) => seen.get(norm(c.query)) === 1);
  const sample = shuffled(unique, seed).slice(0, perSet);

  // Blank the sampled (allDocs: all extracted) functions' doc comments in the copy, file by file.
  const byFile = new Map<string, BlankRange[]>(allRanges);
  if (!allDocs) for (const c of sample) byFile.set(c.path, [...(byFile.get(c.path) ?? []), [c.docStart, c.docEnd]]);
  for (const [path, ranges] of byFile) {
    const p = join(tree, path);
    writeFileSync(p, blankLines(readFileSync(p, 'utf8'), ranges));
  }

  const queries: EvalQuery[] = sample.map((c, i) => ({
    id: i + 1, query: c.query, path: c.path, start_line: c.start_line, end_line: c.end_line, symbol: c.symbol,
    language: c.language,
  }));
  writeFileSync(join(out, 'queries.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
  const summary: BuildSummary = {
    name: spec.name, dir: out, treeFiles, candidates: candidates.length, sampled: queries.length,
    seconds: (performance.now() - t0) / 1000,
  };
  writeFileSync(join(out, 'meta.json'), JSON.stringify({
    ...summary, name: spec.name + (allDocs ? ALL_DOCS_SUFFIX : ''), seed, perSet, uniqueCandidates: unique.length, roots: spec.roots().map(([s, d]) => ({ source: s, dest: d })),
    rules: { minQueryWords: MIN_QUERY_WORDS, maxFunctionLines: MAX_FUNCTION_LINES, docCommentsBlanked: allDocs ? 'every extracted function' : 'sampled functions only' },
  }, null, 2) + '\n');
  return summary;
}

export function readQueries(name: string): EvalQuery[] {
  return readFileSync(join(EVAL_DIR, name, 'queries.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l) as EvalQuery);
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2));
  const perSet = Number(flags.get('per-set') ?? DEFAULT_PER_SET);
  const seed = Number(flags.get('seed') ?? DEFAULT_SEED);
  const names = positional.length ? positional : SETS.map((s) => s.name);
  for (const name of names) {
    const found = specFor(name);
    if (!found) throw new Error(`unknown set ${name}`);
    const s = buildSet(found.spec, perSet, seed, found.allDocs);
    console.log(`${s.name.padEnd(7)} tree ${s.treeFiles} files, ${s.candidates} candidates, ${s.sampled} queries (${s.seconds.toFixed(1)} s) → ${s.dir}`);
  }
}
