/**
 * Identifier navigation and the result contract, on real trees nobody here wrote:
 *   python — the Python 3.11 standard library (.py files; test/, idlelib, lib2to3,
 *            turtledemo, site-packages left out),
 *   go     — Go 1.19's standard library (the GO_EVAL_DIRS packages, non-test files),
 *   rust   — Rust 1.63's standard library (Debian rust-src: library/core, alloc and std's
 *            src/, tests.rs, benches.rs and tests/ benches/ folders left out): `fn`s with a
 *            body (free functions, methods in `impl` and `trait` blocks, functions written
 *            inside `macro_rules!` bodies) are the sampled names; `struct`, `enum`, `union`,
 *            `trait`, `type` and body-less `fn` declarations (required trait methods, extern
 *            blocks) are definitions too (for "any" and "defined once"), read lexically with
 *            comments and strings blanked (rustDefs), independent of Sift's chunker,
 *   c      — Linux 6.1's include/linux, lib, mm and kernel/ (.c/.h; the kernel corpus,
 *            prepared by corpora.ts prepareScale): functions and function-like macros;
 *            and, counted apart, constants (object-like `#define NAME value`, include
 *            guards left out): a query counts at 1 when the first result's lines hold a
 *            `#define` of that name (any of its definitions: constants are often defined
 *            once per configuration); and enumerators (read from `enum … { … }` bodies with
 *            a brace scan). For both, an enumerator or `#define` of the name counts.
 *
 * Navigation: the query is a function name exactly as defined (`Compile`, `maxsize`), one
 * query per name, sampled (seeded) from every `def`/`func` the tree has; a query counts at 1
 * when the first result is ON the sampled definition (same file, its range holds the `def`
 * line) — "strict", what the issue measures — and "any" when the first result holds ANY
 * definition of that exact name (names defined in several files: `NewReader`). "Once" is
 * strict over the names the tree defines exactly once (any kind): there the one definition is
 * the only right first result.
 *
 * Contract (every query, navigation and prose, top 10):
 * - content: a result's `content` must equal the file's lines start_line..end_line;
 * - one per definition: no two results of one top 10 may be pieces of the same definition
 *   (a result's definition = the innermost def/func/class whose line range, from indentation
 *   (Python) or the closing brace at column 0 (Go), holds the result's first line;
 *   results that start on the definition's own header line count for that definition).
 *
 * Usage: tsx bench/eval/navigate.ts [python|go|rust|c ...] [--per-set 250] [--seed 7] [--build] [--root DIR]
 * Writes bench/results/nav-<date>.{json,md}. SIFT_NAV_DIR overrides the tree folder
 * (default bench/corpora/nav), so a baseline worktree can score the same trees.
 * --root DIR (or SIFT_ROOT=DIR) indexes and searches with that checkout's bin/sift (a baseline
 * worktree: `git worktree add --detach /tmp/b <commit>`, node_modules symlinked) on this
 * checkout's trees and samples, so two runs with NAV_TAG set compare name by name.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GO_SRC, prepareScale } from '../corpora.ts';
import type { SiftIndexSummary, SiftResponse } from '../sift.ts';
import { CORPORA_DIR, REPO_DIR, RESULTS_DIR, isMain, listFiles, machineInfo, parseArgs, run } from '../util.ts';
import { RUST_SRC, shuffled } from './build-set.ts';
import { mulberry32 } from '../../src/core/vector/synthetic.ts';

export const NAV_DIR = process.env.SIFT_NAV_DIR ?? join(CORPORA_DIR, 'nav');
const PY_SRC = '/root/.pyenv/versions/3.11.7/lib/python3.11';
const RUST_CRATES = ['core', 'alloc', 'std'];
const PY_SKIP = new Set(['test', 'tests', 'idlelib', 'lib2to3', 'turtledemo', 'site-packages', '__pycache__', 'idle_test', 'ensurepip']);
/** Folders of the kernel corpus in the `c` set. */
const C_DIRS = ['include/linux', 'lib', 'mm', 'kernel'];
const GO_DIRS = [
  'net', 'crypto', 'encoding', 'go', 'text', 'html', 'strings', 'bytes', 'strconv', 'sort', 'bufio', 'io', 'os',
  'fmt', 'time', 'sync', 'context', 'path', 'regexp', 'compress', 'archive', 'image', 'math', 'unicode', 'mime',
];

/** Prose queries for the contract checks (what a new user types). */
export const PROSE: Record<NavSetName, string[]> = {
  python: [
    'parse command line arguments', 'read a zip file', 'send an http request', 'format a date as a string',
    'compare two sequences and show the differences', 'copy a directory tree', 'escape html characters',
    'connect to an smtp server', 'parse an email message', 'run a subprocess and capture output',
    'thread pool executor', 'decode base64', 'json encoder', 'temporary file', 'url quote',
    'event loop run until complete', 'logging handler rotate file', 'regular expression compile',
  ],
  go: [
    'read an http response', 'parse a url', 'gzip reader', 'json marshal struct', 'split a string by separator',
    'buffered writer flush', 'tls handshake', 'format a float', 'walk a directory tree', 'template execute',
    'sort a slice', 'parse time duration', 'base64 encoding', 'compile a regular expression',
    'read a tar archive', 'context with timeout', 'escape html', 'cookie header',
  ],
  rust: [
    'read a file into a string', 'spawn a thread', 'hash map insert', 'sort a vector', 'parse an integer from a string',
    'format a float', 'invalid utf8 error', 'mutex lock', 'channel send and receive', 'reference counted pointer',
    'iterate over chars', 'split a string by whitespace', 'create a directory recursively', 'tcp listener accept',
    'environment variables', 'duration since unix epoch', 'binary heap push', 'vec with capacity',
  ],
  c: [
    'iterate over a linked list', 'allocate zeroed memory', 'copy data from user space', 'take a spinlock with interrupts off',
    'red black tree insert', 'schedule delayed work', 'reference count drops to zero', 'find first set bit',
    'print a warning once', 'wait for a completion', 'hash a string', 'parse an integer from a string',
    'free pages back to the buddy allocator', 'read the current time', 'bitmap allocation', 'kernel thread create',
    'sort an array', 'rcu read side critical section',
  ],
};

export type NavSetName = 'python' | 'go' | 'rust' | 'c';
export const NAV_SETS: NavSetName[] = ['python', 'go', 'rust', 'c'];

export interface Def {
  name: string;
  path: string;
  /** 1-based line of the `def`/`func`/`class` keyword. */
  line: number;
  /** 1-based last line (indentation / closing brace). */
  end: number;
  /** A C function-like macro (`#define NAME(…)`) counts as a function a user navigates to. */
  kind: 'function' | 'class' | 'macro' | 'constant';
  /** A body-less declaration (Rust: a required trait method, an extern block's fn): a definition, not sampled. */
  decl?: boolean;
  /** Written inside a `macro_rules!` body (Rust: the integer methods of int_macros.rs). */
  inMacro?: boolean;
  /**
   * First line of the item with the doc comments and attributes right above it (Rust: `///`
   * is `#[doc]`, part of the item); `line` when there are none. The "item" rule counts a
   * result holding any line head..line (its docs or its header) as on the definition.
   */
  head?: number;
}

const PY_DEF = /^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)/;
const GO_FUNC = /^func[ \t]+(?:\([^)]*\)[ \t]*)?([A-Za-z_]\w*)/;
const GO_TYPE = /^type[ \t]+([A-Za-z_]\w*)[ \t]+(?:struct|interface)\b/;

/**
 * Definitions in a Python file, with indentation-based ends: a def ends at its last line of
 * code (or comment indented deeper than the def) before a line of code at its indentation or
 * left of it.
 */
export function pythonDefs(path: string, text: string): Def[] {
  const lines = text.split('\n');
  const out: Def[] = [];
  const indentOf = (l: string) => /^[ \t]*/.exec(l)![0].replace(/\t/g, '        ').length;
  for (let i = 0; i < lines.length; i++) {
    const m = PY_DEF.exec(lines[i]);
    if (!m) continue;
    const ind = indentOf(lines[i]);
    let end = i;
    let open = 0; // bracket depth of a multi-line signature
    for (let j = i; j < lines.length; j++) {
      const l = lines[j];
      if (j > i && open <= 0 && l.trim() !== '' && !l.trim().startsWith('#') && indentOf(l) <= ind) break;
      for (const ch of l.replace(/#.*$/, '')) open += ch === '(' || ch === '[' ? 1 : ch === ')' || ch === ']' ? -1 : 0;
      // A comment at the def's own indentation or left of it after the body (a class's
      // `# -- Public interface ---` banner before its next method) is not the def's: the
      // parse puts it in the enclosing block. A deeper one is the body's.
      if (l.trim() !== '' && !(j > i && l.trim().startsWith('#') && indentOf(l) <= ind)) end = j;
    }
    out.push({ name: m[3], path, line: i + 1, end: end + 1, kind: m[2] === 'class' ? 'class' : 'function' });
  }
  return out;
}

/** Top-level funcs and struct/interface types of a Go file; a definition ends at the `}` in column 0. */
export function goDefs(path: string, text: string): Def[] {
  const lines = text.split('\n');
  const out: Def[] = [];
  for (let i = 0; i < lines.length; i++) {
    const f = GO_FUNC.exec(lines[i]);
    const t = f ? null : GO_TYPE.exec(lines[i]);
    if (!f && !t) continue;
    let end = i;
    if (!/\}\s*$/.test(lines[i]) || /\{\s*$/.test(lines[i])) {
      for (let j = i + 1; j < lines.length; j++) {
        if (lines[j].startsWith('}')) {
          end = j;
          break;
        }
      }
    }
    out.push({ name: (f ?? t)![1], path, line: i + 1, end: end + 1, kind: f ? 'function' : 'class' });
  }
  return out;
}

/**
 * Rust source with comments (nested block comments too), string/char literal contents
 * and raw strings blanked to spaces, newlines kept: offsets and lines hold, and no `fn` of a
 * doc example or a string is read as a definition. Lifetimes (`'a`) are left alone.
 */
export function rustBlank(text: string): string {
  const out = text.split('');
  const blank = (a: number, b: number) => { for (let k = a; k < b; k++) if (out[k] !== '\n') out[k] = ' '; };
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '/' && text[i + 1] === '/') {
      const e = text.indexOf('\n', i);
      const end = e < 0 ? n : e;
      blank(i, end);
      i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (text[j] === '/' && text[j + 1] === '*') { depth++; j += 2; }
        else if (text[j] === '*' && text[j + 1] === '/') { depth--; j += 2; }
        else j++;
      }
      blank(i, j);
      i = j;
    } else if ((c === 'r' || (c === 'b' && text[i + 1] === 'r')) && !/\w/.test(text[i - 1] ?? ' ') && /^b?r(#*)"/.test(text.slice(i, i + 260))) {
      const m = /^b?r(#*)"/.exec(text.slice(i, i + 260))!;
      const close = `"${m[1]}`;
      const start = i + m[0].length;
      const e = text.indexOf(close, start);
      const end = e < 0 ? n : e;
      blank(start, end);
      i = end + close.length;
    } else if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
    } else if (c === "'") {
      // A char literal ('x', '\n', '\u{..}', b'x'), else a lifetime or label ('a, 'static).
      if (text[i + 1] === '\\') {
        let j = i + 2;
        while (j < n && text[j] !== "'" && text[j] !== '\n') j++;
        blank(i + 1, j);
        i = j + 1;
      } else {
        const cp = text.codePointAt(i + 1) ?? 0;
        const w = cp > 0xffff ? 2 : 1;
        if (text[i + 1 + w] === "'" && text[i + 1] !== '\n') {
          blank(i + 1, i + 1 + w);
          i += 2 + w;
        } else i++;
      }
    } else i++;
  }
  return out.join('');
}

const RUST_ITEM = /^[ \t]*(?:#!?\[[^\]]*\][ \t]*)*(?:pub(?:[ \t]*\([^)]*\))?[ \t]+)?(?:(?:default|const|async|unsafe|auto|extern(?:[ \t]+"[^"]*")?)[ \t]+)*(fn|struct|enum|union|trait|type)[ \t]+([A-Za-z_]\w*)/;

/**
 * Definitions of a Rust file, read lexically (comments and strings blanked by rustBlank):
 * `fn` (free, in `impl`/`trait` blocks, inside `macro_rules!` bodies; without a body it is a
 * declaration, `decl`), `struct`, `enum`, `union`, `trait` and `type` (aliases, associated
 * types). An item ends at the `}` closing the first `{` after its header, or at the `;`
 * ending a body-less one (outside parentheses and brackets: `[u8; 4]`). Items inside an
 * inline `mod tests { … }` / `mod benches { … }` are left out.
 */
export function rustDefs(path: string, text: string): Def[] {
  const code = rustBlank(text);
  const starts = [0];
  for (let k = 0; k < code.length; k++) if (code[k] === '\n') starts.push(k + 1);
  const lineOf = (off: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= off) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  /** The offset of the `}` closing the `{` at `open` (or the text's end). */
  const closeOf = (open: number) => {
    let depth = 0;
    for (let k = open; k < code.length; k++) {
      if (code[k] === '{') depth++;
      else if (code[k] === '}' && --depth === 0) return k;
    }
    return code.length - 1;
  };
  // Ranges left out (inline test modules) and macro_rules! bodies.
  const skip: Array<[number, number]> = [];
  const macros: Array<[number, number]> = [];
  for (const m of code.matchAll(/\bmod[ \t]+(?:tests?|benches)[ \t]*\{/g)) {
    const open = m.index! + m[0].length - 1;
    skip.push([open, closeOf(open)]);
  }
  for (const m of code.matchAll(/\bmacro_rules![ \t]*[A-Za-z_]\w*[ \t\n]*[{([]/g)) {
    const open = m.index! + m[0].length - 1;
    if (code[open] === '{') macros.push([open, closeOf(open)]);
    else {
      // `macro_rules! m ( … );` / `[ … ]`: to the matching bracket.
      let depth = 0;
      let k = open;
      for (; k < code.length; k++) {
        if ('([{'.includes(code[k])) depth++;
        else if (')]}'.includes(code[k]) && --depth === 0) break;
      }
      macros.push([open, k]);
    }
  }
  const within = (rs: Array<[number, number]>, off: number) => rs.some(([a, b]) => a <= off && off <= b);
  const lines = text.split('\n');
  /** The item's first line: up over doc comments (line and block) and attributes, multi-line ones too. */
  const headOf = (li: number): number => {
    let h = li;
    for (let k = li - 1; k >= 0; k--) {
      const t = lines[k].trim();
      if (t.startsWith('///') || t.startsWith('#[')) { h = k; continue; }
      if (t.endsWith('*/')) {
        let j = k;
        while (j > 0 && !lines[j].trim().startsWith('/**')) j--;
        if (!lines[j].trim().startsWith('/**')) break;
        h = k = j;
        continue;
      }
      if (/^[)\]]*\]$/.test(t)) {
        // Inside a multi-line attribute: up to its `#[` (a few lines at most).
        let j = k;
        while (j > Math.max(0, k - 12) && !lines[j].trim().startsWith('#[')) j--;
        if (!lines[j].trim().startsWith('#[')) break;
        h = k = j;
        continue;
      }
      break;
    }
    return h + 1;
  };
  const out: Def[] = [];
  for (let li = 0; li < starts.length; li++) {
    const lineEnd = li + 1 < starts.length ? starts[li + 1] - 1 : code.length;
    const m = RUST_ITEM.exec(code.slice(starts[li], lineEnd));
    if (!m) continue;
    const at = starts[li] + m.index + m[0].length;
    if (within(skip, at)) continue;
    // The header runs to the first `{` or `;` outside () and [].
    let depth = 0;
    let k = at;
    for (; k < code.length; k++) {
      const ch = code[k];
      if (ch === '(' || ch === '[') depth++;
      else if (ch === ')' || ch === ']') depth--;
      else if (depth <= 0 && (ch === '{' || ch === ';' || ch === '}')) break;
    }
    const body = code[k] === '{';
    const end = body ? closeOf(k) : k;
    out.push({
      name: m[2], path, line: li + 1, end: lineOf(Math.min(end, code.length - 1)),
      kind: m[1] === 'fn' ? 'function' : 'class', head: headOf(li),
      ...(m[1] === 'fn' && !body ? { decl: true } : {}),
      ...(within(macros, at) ? { inMacro: true } : {}),
    });
  }
  return out;
}

const C_MACRO = /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(/;
/** An object-like macro with a value: `#define NAME value` (the name not followed by `(`). */
const C_CONSTANT = /^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?:[ \t]+(\S.*))?$/;

/**
 * Object-like macros of a C file that have a value on their line (`#define PAGE_SHIFT 12`,
 * `#define GFP_KERNEL (… \`): what a user looks up as a constant. Valueless ones (include
 * guards, feature flags) are left out.
 */
/**
 * Enumerators of a C file's `enum [name] { … }` bodies, read lexically (comments and
 * preprocessor lines dropped, entries split at top-level commas), independent of the
 * chunker: `NAME` or `NAME = value` entries.
 */
export function cEnumerators(path: string, text: string): Def[] {
  const out: Def[] = [];
  const lineAt = (i: number) => text.slice(0, i).split('\n').length;
  const re = /\benum\b(?:\s+[A-Za-z_]\w*)?\s*\{/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let depth = 1;
    let i = m.index + m[0].length;
    let entry = i;
    const entries: Array<[number, number]> = [];
    while (i < text.length && depth > 0) {
      if (text.startsWith('/*', i)) { const e = text.indexOf('*/', i + 2); i = e < 0 ? text.length : e + 2; continue; }
      if (text.startsWith('//', i)) { const e = text.indexOf('\n', i); i = e < 0 ? text.length : e; continue; }
      const ch = text[i];
      if (ch === '{' || ch === '(' || ch === '[') depth++;
      else if (ch === '}' || ch === ')' || ch === ']') { depth--; if (depth === 0) { entries.push([entry, i]); break; } }
      else if (ch === ',' && depth === 1) { entries.push([entry, i]); entry = i + 1; }
      i++;
    }
    for (const [a, b] of entries) {
      // Comments and preprocessor lines blanked to spaces (same length: offsets hold).
      const blank = (x: string) => x.replace(/[^\n]/g, ' ');
      const raw = text.slice(a, b).replace(/\/\*[\s\S]*?\*\//g, blank).replace(/\/\/[^\n]*/g, blank).replace(/^[ \t]*#.*$/gm, blank);
      const e = /^\s*([A-Za-z_]\w*)\s*(?:=[\s\S]*)?$/.exec(raw);
      if (e) out.push({ name: e[1]!, path, line: lineAt(a + raw.indexOf(e[1]!)), end: lineAt(a + raw.indexOf(e[1]!)), kind: 'constant' });
    }
    re.lastIndex = Math.max(re.lastIndex, i);
  }
  return out;
}

export function cConstants(path: string, text: string): Def[] {
  const out: Def[] = [];
  text.split('\n').forEach((l, i) => {
    const m = C_CONSTANT.exec(l);
    if (m && m[2] && m[2] !== '\\') out.push({ name: m[1], path, line: i + 1, end: i + 1, kind: 'constant' });
  });
  return out;
}
/** A function header's name: the identifier before the first `(` of a column-0 line. */
const C_HEADER = /^[A-Za-z_][^(;=]*?\b([A-Za-z_]\w*)[ \t]*\(/;
const C_NOT_NAMES = new Set(['if', 'for', 'while', 'switch', 'return', 'sizeof', 'typeof', '__attribute__', 'defined']);

/**
 * Function definitions and function-like macros of a C file (kernel style): a function is a
 * column-0 header line (`int foo(…)`, its return type possibly on the line above) whose body
 * opens with `{` — at the end of the header's last line or alone in column 0 — and ends at
 * the `}` in column 0 (or on the same line); a macro ends at its last `\`-continued line.
 * Names in ALL CAPS at a function header are macro-made definitions (`SYSCALL_DEFINE3(…)`)
 * and are skipped.
 */
export function cDefs(path: string, text: string): Def[] {
  const lines = text.split('\n');
  const out: Def[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const m = C_MACRO.exec(l);
    if (m) {
      let end = i;
      while (end + 1 < lines.length && /\\[ \t]*$/.test(lines[end])) end++;
      out.push({ name: m[1], path, line: i + 1, end: end + 1, kind: 'macro' });
      i = end;
      continue;
    }
    const h = C_HEADER.exec(l);
    if (!h || C_NOT_NAMES.has(h[1]) || !/[a-z]/.test(h[1]) || /^(typedef|struct|union|enum|extern)\b/.test(l)) continue;
    // The header runs to the line whose end (or the next line, alone) opens the body.
    let open = -1;
    for (let j = i; j < Math.min(lines.length, i + 12); j++) {
      if (j > i && /^[ \t]*$/.test(lines[j])) break;
      if (/;[ \t]*$/.test(lines[j].replace(/\/\*.*?\*\/|\/\/.*$/g, ''))) break;
      if (/\)[^;]*\{/.test(lines[j]) || /\{[ \t]*$/.test(lines[j]) && j > i) { open = j; break; }
      // A one-line body on its own indented line (`\t\t\t{ return 0; }`).
      if (j > i && /^[ \t]+\{.*\}[ \t;]*$/.test(lines[j])) { open = j; break; }
      if (lines[j + 1]?.startsWith('{')) { open = j + 1; break; }
    }
    if (open < 0) continue;
    let end = open;
    // A body that closes on its opening line (`{ return 0; }`, `{};`, a comment after it) ends there.
    if (!/\}[ \t;]*$/.test(lines[open].replace(/\/\*.*?\*\/|\/\/.*$/g, '')) || lines[open].trim() === '{') {
      end = -1;
      for (let j = open + 1; j < lines.length; j++) {
        if (lines[j].startsWith('}')) { end = j; break; }
      }
      if (end < 0) continue;
    }
    out.push({ name: h[1], path, line: i + 1, end: end + 1, kind: 'function' });
    i = end;
  }
  return out;
}

/** Per set: the source folders (source → folder in the tree), the files kept, the definition finder. */
const SET_SOURCES: Record<NavSetName, { roots: () => Array<[string, string]>; keep: (rel: string) => boolean; defs: (path: string, text: string) => Def[] }> = {
  python: {
    roots: () => [[PY_SRC, '']],
    keep: (rel) => rel.endsWith('.py') && !rel.split('/').some((p) => PY_SKIP.has(p) || p.startsWith('config-')),
    defs: pythonDefs,
  },
  go: {
    roots: () => GO_DIRS.map((d) => [join(GO_SRC, d), d]),
    keep: (rel) => rel.endsWith('.go') && !rel.endsWith('_test.go') && !rel.split('/').includes('testdata'),
    defs: goDefs,
  },
  rust: {
    roots: () => RUST_CRATES.map((c) => [join(RUST_SRC, c, 'src'), c]),
    keep: (rel) => rel.endsWith('.rs') && !/(^|\/)(tests|benches)(\.rs$|\/)|_tests\.rs$/.test(rel),
    defs: rustDefs,
  },
  c: {
    roots: () => C_DIRS.map((d) => [join(prepareScale().dir, d), d]),
    keep: (rel) => /\.[ch]$/.test(rel),
    defs: cDefs,
  },
};

export function buildNavTree(name: NavSetName): void {
  const tree = join(NAV_DIR, name, 'tree');
  rmSync(join(NAV_DIR, name), { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  const { roots, keep } = SET_SOURCES[name];
  for (const [src, dest] of roots()) {
    for (const rel of listFiles(src, keep)) {
      const out = join(tree, dest, rel);
      mkdirSync(join(out, '..'), { recursive: true });
      cpSync(join(src, rel), out);
    }
  }
}

function allDefs(name: NavSetName, find: (path: string, text: string) => Def[] = SET_SOURCES[name].defs): Def[] {
  const tree = join(NAV_DIR, name, 'tree');
  const defs: Def[] = [];
  for (const rel of listFiles(tree, () => true)) {
    const text = readFileSync(join(tree, rel), 'utf8');
    defs.push(...find(rel, text));
  }
  return defs;
}

/** Constants sampled per set that has them (c). */
const CONSTANTS_PER_SET = 150;
/** Enumerators sampled per set that has them (c). */
const ENUMERATORS_PER_SET = 150;

/** One query per function name (public, 3+ chars, not dunder), seeded sample. */
export function sampleNames(defs: readonly Def[], per: number, seed: number): Def[] {
  const byName = new Map<string, Def[]>();
  for (const d of defs) {
    if (d.kind === 'class' || d.name.length < 3 || d.name.startsWith('_')) continue;
    byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
  }
  const names = shuffled([...byName.keys()].sort(), seed).slice(0, per);
  const rnd = mulberry32(seed + 1);
  return names.map((n) => {
    const list = byName.get(n)!;
    return list[Math.floor(rnd() * list.length)];
  });
}

/** `<root>/bin/sift index <tree> --no-embed --json`, through node (a checkout's CLI, this one's by default). */
function navIndex(root: string, tree: string, db: string): SiftIndexSummary {
  const r = run(process.execPath, [join(root, 'bin', 'sift'), 'index', tree, '--db', db, '--json', '--no-embed']);
  if (r.status !== 0) throw new Error(`${root}: sift index ${tree} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout) as SiftIndexSummary;
}

/** Every query through one `<root>/bin/sift search --stdin --json --mode bm25 --limit 10`. */
function navSearch(root: string, tree: string, db: string, queries: readonly string[]): SiftResponse[] {
  const input = queries.map((q) => q.replace(/[\r\n]+/g, ' ')).join('\n') + '\n';
  const r = run(process.execPath, [join(root, 'bin', 'sift'), 'search', tree, '--stdin', '--json', '--db', db, '--mode', 'bm25', '--limit', '10'], { input });
  if (r.status !== 0) throw new Error(`${root}: sift search exited ${r.status}: ${r.stderr.slice(-2000)}`);
  const lines = r.stdout.split('\n').filter((l) => l.trim());
  if (lines.length !== queries.length) throw new Error(`${root}: sift search returned ${lines.length} lines for ${queries.length} queries`);
  return lines.map((l) => JSON.parse(l) as SiftResponse);
}

/** The checkout whose bin/sift a run scores: --root DIR, else SIFT_ROOT, else this one. */
export function navRoot(dir: string | undefined): string {
  const root = resolve(dir ?? REPO_DIR);
  if (!existsSync(join(root, 'bin', 'sift'))) throw new Error(`${root}: no bin/sift there`);
  if (!existsSync(join(root, 'node_modules'))) throw new Error(`${root}: no node_modules (ln -s ${join(REPO_DIR, 'node_modules')} ${join(root, 'node_modules')})`);
  return root;
}

function gitHead(root: string): string {
  const r = run('git', ['-C', root, 'rev-parse', '--short', 'HEAD']);
  const dirty = run('git', ['-C', root, 'status', '--porcelain', '--', 'src', 'bin']).stdout.trim();
  return r.status === 0 ? `${r.stdout.trim()}${dirty ? ' (src/bin edited)' : ''}` : 'unknown';
}

interface NavResult {
  path: string;
  start_line: number;
  end_line: number;
  content: string;
  symbol: string | null;
}

/** Whether result `top` is on definition `d`: same file, its lines hold the definition's line. */
function holds(top: NavResult | undefined, d: Def): boolean {
  return !!top && top.path === d.path && top.start_line <= d.line && d.line <= top.end_line;
}

/** The "item" rule: `top` holds a line of `d`'s docs, attributes or header line (d.head..d.line). */
function holdsItem(top: NavResult | undefined, d: Def): boolean {
  return !!top && top.path === d.path && top.start_line <= d.line && (d.head ?? d.line) <= top.end_line;
}

export interface NavReport {
  set: string;
  /** The checkout scored, and its commit. */
  root: string;
  commit: string;
  files: number;
  chunks: number;
  /** Files the indexer chunked as text (parse timeout on a loaded machine, …): their names are not definitions. */
  parseFallbacks: number | null;
  queries: number;
  strictAt1: number;
  anyAt1: number;
  /** Sampled names the tree defines exactly once (any kind), and R@1 strict over them. */
  onceQueries: number;
  onceAt1: number | null;
  /** Strict, any and once by the "item" rule (holdsItem: the docs/attributes above a definition count); = the others where no set gives `head`. */
  strictItemAt1: number;
  anyItemAt1: number;
  onceItemAt1: number | null;
  /** Sampled names defined inside a `macro_rules!` body (the `rust` set), and R@1 strict / any over them. */
  inMacroQueries: number;
  inMacroStrictAt1: number | null;
  inMacroAnyAt1: number | null;
  /** Sampled names that are function-like macros (the `c` set), and R@1 strict over them. */
  macroQueries: number;
  macroStrictAt1: number | null;
  /** Sampled constants (the `c` set: object-like #defines), and R@1 over them (first result holds one of the name's #defines). */
  constantQueries: number;
  constantAt1: number | null;
  /** Sampled enumerators (the `c` set), and R@1 over them (first result holds one of the name's enumerators). */
  enumeratorQueries: number;
  enumeratorAt1: number | null;
  /** Results checked for the content contract, and how many failed it. */
  contractChecked: number;
  contractFailed: number;
  /** Top-10 slots holding a second (third…) piece of a definition already listed. */
  duplicateSlots: number;
  slots: number;
  /** Names whose first result holds no definition of the name ("any" misses), with that result. */
  misses: string[];
  /** Names whose first result is not on the sampled definition, with that result. */
  strictMisses: string[];
  contractExamples: string[];
  duplicateExamples: string[];
}

/** The innermost definition holding line `line` of `path`. */
function defAt(defsByPath: Map<string, Def[]>, path: string, line: number): Def | null {
  let best: Def | null = null;
  for (const d of defsByPath.get(path) ?? []) {
    if (d.line <= line && line <= d.end && (!best || d.line >= best.line)) best = d;
  }
  return best;
}

export function runNav(name: NavSetName, per: number, seed: number, root: string = REPO_DIR): NavReport {
  const dir = join(NAV_DIR, name);
  const tree = join(dir, 'tree');
  if (!existsSync(tree)) buildNavTree(name);
  const defs = allDefs(name);
  const defsByPath = new Map<string, Def[]>();
  for (const d of defs) defsByPath.set(d.path, [...(defsByPath.get(d.path) ?? []), d]);
  // Body-less declarations (Rust) are definitions of their name but not sampled targets.
  const sample = sampleNames(defs.filter((d) => !d.decl), per, seed);
  const defCount = new Map<string, number>();
  for (const d of defs) defCount.set(d.name, (defCount.get(d.name) ?? 0) + 1);
  const constants = name === 'c' ? allDefs(name, cConstants) : [];
  const constantSample = sampleNames(constants, CONSTANTS_PER_SET, seed + 2);
  const enumerators = name === 'c' ? allDefs(name, cEnumerators) : [];
  const enumeratorSample = sampleNames(enumerators, ENUMERATORS_PER_SET, seed + 3);
  // A constant's definitions: its #defines and enumerators (GPIO_PULL_DOWN is both, in two headers).
  const namedConstants = [...constants, ...enumerators];
  const db = join(dir, `sift-${process.pid}.db`);
  rmSync(db, { force: true });
  const idx = { value: navIndex(root, tree, db) };
  const queries = [...sample.map((d) => d.name), ...PROSE[name], ...constantSample.map((d) => d.name), ...enumeratorSample.map((d) => d.name)];
  const firstConstant = sample.length + PROSE[name].length;
  const firstEnumerator = firstConstant + constantSample.length;
  const res = navSearch(root, tree, db, queries);
  rmSync(db, { force: true });
  rmSync(`${db}-journal`, { force: true });

  const fileLines = new Map<string, string[]>();
  const linesOf = (p: string) => {
    let l = fileLines.get(p);
    if (!l) fileLines.set(p, (l = readFileSync(join(tree, p), 'utf8').split('\n')));
    return l;
  };
  let strict = 0;
  let any = 0;
  let macros = 0;
  let macroStrict = 0;
  let once = 0;
  let onceStrict = 0;
  let strictItem = 0;
  let anyItem = 0;
  let onceItem = 0;
  let inMacro = 0;
  let inMacroStrict = 0;
  let inMacroAny = 0;
  let constantHits = 0;
  let enumeratorHits = 0;
  const misses: string[] = [];
  /** Every name whose first result is not ON the sampled definition (strict misses). */
  const strictMisses: string[] = [];
  let checked = 0;
  let failed = 0;
  const examples: string[] = [];
  const dupExamples: string[] = [];
  let dup = 0;
  let slots = 0;
  const missed = (target: Def, top: NavResult | undefined, label = '') =>
    misses.push(`${label}${target.name} (${target.path}:${target.line}) → ${top ? `${top.path}:${top.start_line} ${top.symbol ?? ''}` : 'no result'}`);
  // A constant or enumerator query hits when the first result holds any #define or enumerator of the name.
  const constantHit = (target: Def, top: NavResult | undefined, label: string): boolean => {
    if (namedConstants.some((d) => d.name === target.name && holds(top, d))) return true;
    missed(target, top, `${label} `);
    return false;
  };
  res.forEach((r, qi) => {
    const results = r.results as unknown as NavResult[];
    if (qi < sample.length) {
      const target = sample[qi];
      const top = results[0];
      const hit = holds(top, target);
      if (hit) strict++;
      else strictMisses.push(`${target.name} (${target.path}:${target.line}) → ${top ? `${top.path}:${top.start_line}-${top.end_line} ${top.symbol ?? ''}` : 'no result'}`);
      if (target.kind === 'macro') {
        macros++;
        if (hit) macroStrict++;
      }
      const itemHit = holdsItem(top, target);
      if (itemHit) strictItem++;
      if (defCount.get(target.name) === 1) {
        once++;
        if (hit) onceStrict++;
        if (itemHit) onceItem++;
      }
      if (defs.some((d) => d.name === target.name && d.kind !== 'class' && holdsItem(top, d))) anyItem++;
      const anyHit = defs.some((d) => d.name === target.name && d.kind !== 'class' && holds(top, d));
      if (anyHit) any++;
      else missed(target, top);
      if (target.inMacro) {
        inMacro++;
        if (hit) inMacroStrict++;
        if (anyHit) inMacroAny++;
      }
    } else if (qi >= firstEnumerator) {
      if (constantHit(enumeratorSample[qi - firstEnumerator], results[0], 'enumerator')) enumeratorHits++;
    } else if (qi >= firstConstant) {
      if (constantHit(constantSample[qi - firstConstant], results[0], 'constant')) constantHits++;
    }
    const seen = new Set<string>();
    for (const x of results) {
      slots++;
      checked++;
      const lines = linesOf(x.path);
      const want = lines.slice(x.start_line - 1, x.end_line).join('\n');
      const ok = x.content === want || (x.start_line === x.end_line && want.includes(x.content) && x.content.length > 0);
      if (!ok) {
        failed++;
        if (examples.length < 8) examples.push(`"${queries[qi]}": ${x.path}:${x.start_line}-${x.end_line} content starts ${JSON.stringify(x.content.slice(0, 60))}`);
      }
      // The definition of a result: innermost def holding its first non-blank, non-comment body line.
      let line = x.start_line;
      while (line < x.end_line && /^\s*(#.*|\/\/.*|@.*)?$/.test(lines[line - 1] ?? '')) line++;
      const d = defAt(defsByPath, x.path, line);
      const key = d ? `${d.path}:${d.line}` : `${x.path}:L${x.start_line}`;
      if (seen.has(key)) {
        dup++;
        if (dupExamples.length < 8) dupExamples.push(`"${queries[qi]}": ${x.path}:${x.start_line}-${x.end_line} ${x.symbol ?? ''} again in ${key}`);
      }
      seen.add(key);
    }
  });
  return {
    set: name, root, commit: gitHead(root), files: idx.value.files.total, chunks: idx.value.chunks.total,
    parseFallbacks: (idx.value as { parse_fallbacks?: number }).parse_fallbacks ?? null, queries: sample.length,
    strictAt1: strict / sample.length, anyAt1: any / sample.length,
    onceQueries: once, onceAt1: once ? onceStrict / once : null,
    strictItemAt1: strictItem / sample.length, anyItemAt1: anyItem / sample.length, onceItemAt1: once ? onceItem / once : null,
    inMacroQueries: inMacro, inMacroStrictAt1: inMacro ? inMacroStrict / inMacro : null, inMacroAnyAt1: inMacro ? inMacroAny / inMacro : null,
    macroQueries: macros, macroStrictAt1: macros ? macroStrict / macros : null,
    constantQueries: constantSample.length, constantAt1: constantSample.length ? constantHits / constantSample.length : null,
    enumeratorQueries: enumeratorSample.length, enumeratorAt1: enumeratorSample.length ? enumeratorHits / enumeratorSample.length : null, contractChecked: checked, contractFailed: failed,
    duplicateSlots: dup, slots, misses, strictMisses, contractExamples: examples, duplicateExamples: dupExamples,
  };
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2), ['build']);
  const per = Number(flags.get('per-set') ?? 250);
  const seed = Number(flags.get('seed') ?? 7);
  const names = (positional.length ? positional : NAV_SETS) as NavSetName[];
  const root = navRoot(typeof flags.get('root') === 'string' ? String(flags.get('root')) : process.env.SIFT_ROOT);
  const reports: NavReport[] = [];
  for (const n of names) {
    if (flags.has('build') || !existsSync(join(NAV_DIR, n, 'tree'))) buildNavTree(n);
    const r = runNav(n, per, seed, root);
    reports.push(r);
    console.log(`${n.padEnd(7)} ${r.files} files ${r.chunks} chunks (${r.parseFallbacks ?? '?'} chunked as text) · R@1 strict ${r.strictAt1.toFixed(3)} any ${r.anyAt1.toFixed(3)} (${r.queries} names)` +
      ` · once ${r.onceAt1?.toFixed(3) ?? '—'} (${r.onceQueries})` +
      ` · item rule strict ${r.strictItemAt1.toFixed(3)} any ${r.anyItemAt1.toFixed(3)} once ${r.onceItemAt1?.toFixed(3) ?? '—'}` +
      (r.inMacroQueries ? ` · in macro_rules! bodies strict ${r.inMacroStrictAt1!.toFixed(3)} any ${r.inMacroAnyAt1!.toFixed(3)} (${r.inMacroQueries})` : '') +
      (r.macroQueries ? ` · macros ${r.macroStrictAt1!.toFixed(3)} (${r.macroQueries})` : '') +
      (r.constantQueries ? ` · constants ${r.constantAt1!.toFixed(3)} (${r.constantQueries})` : '') +
      (r.enumeratorQueries ? ` · enumerators ${r.enumeratorAt1!.toFixed(3)} (${r.enumeratorQueries})` : '') +
      ` · content≠lines ${r.contractFailed}/${r.contractChecked} · repeated definitions ${r.duplicateSlots}/${r.slots}`);
    for (const m of r.misses.slice(0, 30)) console.log(`   miss ${m}`);
    for (const e of r.contractExamples) console.log(`   contract ${e}`);
    for (const e of r.duplicateExamples) console.log(`   repeated ${e}`);
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = `${machineInfo().date.slice(0, 10)}-${names.join('-')}${process.env.NAV_TAG ? `-${process.env.NAV_TAG}` : ''}`;
  writeFileSync(join(RESULTS_DIR, `nav-${stamp}.json`), JSON.stringify(reports, null, 1) + '\n');
  const md = ['# Identifier navigation and result contract', '', `Checkout scored: ${root} at ${reports[0]?.commit ?? '?'}.`, '',
    '| set | files | chunks | names | R@1 strict | R@1 any def | defined once: names, R@1 strict | item rule (docs/attributes above count): strict / any / once | in macro_rules!: names, R@1 strict / any | macros: names, R@1 strict | constants: names, R@1 | enumerators: names, R@1 | content ≠ lines | repeated definitions in top 10 |', '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...reports.map((r) => `| ${r.set} | ${r.files} | ${r.chunks} | ${r.queries} | ${r.strictAt1.toFixed(3)} | ${r.anyAt1.toFixed(3)} | ${r.onceQueries}, ${r.onceAt1?.toFixed(3) ?? '—'} | ${r.strictItemAt1.toFixed(3)} / ${r.anyItemAt1.toFixed(3)} / ${r.onceItemAt1?.toFixed(3) ?? '—'} | ${r.inMacroQueries ? `${r.inMacroQueries}, ${r.inMacroStrictAt1!.toFixed(3)} / ${r.inMacroAnyAt1!.toFixed(3)}` : '—'} | ${r.macroQueries ? `${r.macroQueries}, ${r.macroStrictAt1!.toFixed(3)}` : '—'} | ${r.constantQueries ? `${r.constantQueries}, ${r.constantAt1!.toFixed(3)}` : '—'} | ${r.enumeratorQueries ? `${r.enumeratorQueries}, ${r.enumeratorAt1!.toFixed(3)}` : '—'} | ${r.contractFailed}/${r.contractChecked} | ${r.duplicateSlots}/${r.slots} |`), ''];
  writeFileSync(join(RESULTS_DIR, `nav-${stamp}.md`), md.join('\n'));
}
