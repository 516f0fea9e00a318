/**
 * Name lookups of names the parse could miss (issue 35, classes 2 and 3), on real trees nobody
 * here wrote: the definition hides behind a macro, an attribute or a sigil, or the query writes
 * the name with its namespace.
 *
 * Every name is read off the tree by a lexical scan (regular expressions over lines, never
 * Sift's chunker), then sampled (seeded); nothing is picked by hand. Forms:
 *   c-type-macro    C/C++ `struct|union|class` with a macro or attribute between the keyword and
 *                   the name (`class FMT_API format_error`, `struct __attribute__((packed)) x`,
 *                   `class JSON_HEDLEY_… basic_json`): kernel, fmt, nlohmann-json;
 *   c-type-trailing a C `struct|union name {` whose closing line carries an attribute
 *                   (`} __packed;`, `} __randomize_layout;`): kernel;
 *   c-exported      a kernel function exported by `EXPORT_SYMBOL…(name)` after it;
 *   cpp-fn-macro    a C++ function definition whose line opens with upper-case macros
 *                   (`FMT_CONSTEXPR auto …`, `JSON_HEDLEY_WARN_UNUSED_RESULT static …`): fmt, nlohmann-json;
 *   ts-sigil        a TypeScript name that starts with `$` (`export const $ZodType`): zod;
 *   rb-reopened     a Ruby module or class opened in 2+ files, or nested in one that is, written
 *                   qualified (`Rack::Protection::Base`): its answer is the file the name's
 *                   conventional path names (`rack/protection/base.rb`): sinatra, slim;
 *   ns-cpp          a type or function of fmt / nlohmann-json written `fmt::name` / `nlohmann::name`;
 *   ns-rust         a `#[macro_export]` macro of clap written `clap::name!`;
 *   ns-ts           a function of zod's classic API written `z.name`.
 * A query counts at 1 when the first result holds a definition line of the name (any of the
 * scanned definitions, same file; for rb-reopened, the conventional file).
 *
 * Usage: tsx bench/eval/hidden-names.ts [--per-form 40] [--seed 35] [--root DIR] [--tag T] [--reuse]
 * Indexes each tree with the checkout's bin/sift (--root DIR: another checkout, e.g. a base
 * worktree) under bench/tmp/hidden-names/<tag>/, searches in keyword mode, limit 10, and writes
 * bench/results/<date>-hidden-names[-tag].{json,md} (misses listed).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SiftResponse } from '../sift.ts';
import { CORPORA_DIR, REPO_DIR, RESULTS_DIR, TMP_DIR, isMain, listFiles, parseArgs, run } from '../util.ts';
import { shuffled } from './build-set.ts';

export type Form =
  | 'c-type-macro' | 'c-type-trailing' | 'c-exported' | 'cpp-fn-macro' | 'ts-sigil' | 'rb-reopened'
  | 'ns-cpp' | 'ns-rust' | 'ns-ts';

/** A definition line found by the scan. */
export interface Site {
  path: string;
  /** 1-based line of the definition's head. */
  line: number;
  /** First line of the doc comments and attributes right above it (`line` when none): a piece holding any line head..line is on the item (navigate.ts's "item" rule). */
  head: number;
  /** At column 0: for C/C++, a namespace-level definition (fmt and nlohmann-json do not indent a namespace's body). */
  top?: boolean;
}

export interface Probe {
  form: Form;
  tree: string;
  query: string;
  name: string;
  /** Right answers: a first result on any of these lines (same file) counts. */
  sites: Site[];
  /** rb-reopened: the first result's file must be this one (any line). */
  file?: string;
}

const TREES: Record<string, string> = {
  kernel: join(CORPORA_DIR, 'kernel'),
  fmt: join(CORPORA_DIR, 'repos', 'fmt'),
  'nlohmann-json': join(CORPORA_DIR, 'repos', 'nlohmann-json'),
  zod: join(CORPORA_DIR, 'repos', 'zod'),
  sinatra: join(CORPORA_DIR, 'repos', 'sinatra'),
  slim: join(CORPORA_DIR, 'repos', 'slim'),
  clap: join(CORPORA_DIR, 'repos', 'clap'),
};

const TEST_PATH = /(^|\/)(tests?|spec|gtest|testing|benchmarks?|examples?|docs?|fuzz)(\/|$)|_test\.|\.test\.|_spec\.rb$/;
const C_EXT = /\.(c|h|cc|cpp|hpp|hh)$/;

/** An upper-case macro (`FMT_API`, `JSON_HEDLEY_…`) or a reserved attribute (`__packed`, `__attribute__((…))`), with its arguments. */
const MACRO = String.raw`(?:[A-Z_][A-Z0-9_]*[A-Z0-9_]|__\w+)(?:[ \t]*\((?:[^()\n]|\((?:[^()\n]|\([^()\n]*\))*\))*\))?`;
const C_TYPE_HEAD = new RegExp(
  String.raw`^[ \t]*(?:typedef[ \t]+)?(?:template[ \t]*<.*>[ \t]*)?(?:struct|union|class)[ \t]+((?:${MACRO}[ \t]+)*)([A-Za-z_]\w*)[ \t]*(?:final\b[ \t]*)?(?:\{|:(?!:)|$)`,
);
const C_KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'return', 'sizeof', 'do', 'else', 'case', 'defined', 'decltype', 'static_assert', 'alignas', 'noexcept', 'operator']);
/** A C/C++ function head: optional macros, specifiers and a return type, then `name(`. */
const CPP_FN_HEAD = new RegExp(
  String.raw`^[ \t]*((?:[A-Z][A-Z0-9_]*[A-Z0-9](?:\([^()\n]*\))?[ \t]+)*)(?:(?:static|inline|constexpr|virtual|explicit|friend|extern)[ \t]+)*(?:[\w:<>,*&~ ]*?[\w>*&][ \t*&]+)?([A-Za-z_]\w*)[ \t]*\(`,
);

/** A line of one upper-case macro (`JSON_HEDLEY_WARN_UNUSED_RESULT`, `NLOHMANN_BASIC_JSON_TPL_DECLARATION`, `FMT_EXPORT`) right above line i. */
function macroLineBefore(lines: readonly string[], i: number): boolean {
  return i > 0 && /^[ \t]*[A-Z][A-Z0-9_]*[A-Z0-9](?:\([^()\n]*\))?[ \t]*$/.test(lines[i - 1]!) && !/^[ \t]*(?:TRUE|FALSE|NULL)[ \t]*$/.test(lines[i - 1]!);
}

/** At most `cap` names of one file, in the sampled order (a sample spread over files). */
function spread(names: readonly string[], where: (n: string) => string | undefined, cap = 2): string[] {
  const per = new Map<string, number>();
  return names.filter((n) => {
    const f = where(n) ?? '';
    const c = per.get(f) ?? 0;
    per.set(f, c + 1);
    return c < cap;
  });
}

function read(tree: string, path: string): string {
  return readFileSync(join(TREES[tree]!, path), 'utf8');
}

function files(tree: string, keep: RegExp): string[] {
  return listFiles(TREES[tree]!, (r) => keep.test(r) && !TEST_PATH.test(r) && !r.split('/').some((p) => p.startsWith('.')));
}

/** Whether the text after `(` at `open` closes its parentheses and reaches `{` before `;`. */
function opensBody(text: string, open: number): boolean {
  let depth = 0;
  for (let i = open; i < text.length && i < open + 2000; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && (c === ';' || c === '=')) return false;
    else if (depth === 0 && c === '{') return true;
  }
  return false;
}

/** The 1-based first line of the comment / attribute block right above 0-based line i (i + 1 when none). */
function headOf(lines: readonly string[], i: number): number {
  let j = i;
  while (j > 0 && /^[ \t]*(?:\/\/|\/\*|\*|#\[|@|#[ \t]|[A-Z][A-Z0-9_]*[A-Z0-9][ \t]*$)/.test(lines[j - 1]!)) j--;
  return j + 1;
}

const lineStarts = (text: string): number[] => {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
};

interface CScan {
  /** Every type head, macro or not, by name. */
  types: Map<string, Site[]>;
  /** Names whose head carries a macro / attribute. */
  macroTypes: Set<string>;
  /** Names whose closing brace line carries an attribute. */
  trailingTypes: Set<string>;
  /** Every function definition head, by name. */
  fns: Map<string, Site[]>;
  /** Names of function definitions whose line opens with macros. */
  macroFns: Set<string>;
  /** Names exported by EXPORT_SYMBOL… */
  exported: Set<string>;
}

const push = (m: Map<string, Site[]>, k: string, s: Site): void => {
  const l = m.get(k);
  if (l) l.push(s);
  else m.set(k, [s]);
};

export function scanC(tree: string, paths: readonly string[], readFile: (p: string) => string = (p) => read(tree, p)): CScan {
  const s: CScan = { types: new Map(), macroTypes: new Set(), trailingTypes: new Set(), fns: new Map(), macroFns: new Set(), exported: new Set() };
  for (const path of paths) {
    const text = readFile(path);
    const starts = lineStarts(text);
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.startsWith('#')) {
        continue;
      }
      const ex = /^EXPORT_SYMBOL\w*\((\w+)\)/.exec(line);
      if (ex) {
        s.exported.add(ex[1]!);
        continue;
      }
      const t = C_TYPE_HEAD.exec(line);
      if (t && !/;[ \t]*$/.test(line)) {
        const name = t[2]!;
        const macros = t[1]!.trim();
        // A type used as a declaration (`struct foo bar`) ends with `;` or `=`; a head opens a body.
        const rest = text.slice(starts[i]! + t[0].length - 1, starts[i]! + t[0].length + 400);
        if (/^[^;={]*\{/.test(rest) || t[0].trimEnd().endsWith('{')) {
          push(s.types, name, { path, line: i + 1, head: headOf(lines, i), top: !/^[ \t]/.test(line) });
          if ((macros || macroLineBefore(lines, i)) && !C_KEYWORDS.has(name)) s.macroTypes.add(name);
          if (/^[ \t]*(?:typedef[ \t]+)?(?:struct|union)[ \t]+\w+[ \t]*\{[ \t]*$/.test(line) && !line.startsWith(' ') && !line.startsWith('\t')) {
            // Column-0 head: its closing line is the next column-0 `}`.
            for (let j = i + 1; j < lines.length && j < i + 400; j++) {
              if (lines[j]!.startsWith('}')) {
                // `} __packed;`, `} __randomize_layout;`, `} __aligned(8) PROJ_ALIGN;`: annotations only, no variable.
                const annotations = /(?:__\w+|[A-Z_][A-Z0-9_]{3,})(?:[ \t]*\((?:[^()]|\([^()]*\))*\))?/g;
                if (annotations.test(lines[j]!) && /^\}[ \t]*;?[ \t]*(?:\/[/*].*)?$/.test(lines[j]!.replace(annotations, '').replace(/[ \t]+/g, ' '))) {
                  s.trailingTypes.add(name);
                }
                break;
              }
            }
          }
        }
        continue;
      }
      const f = CPP_FN_HEAD.exec(line);
      if (f && !C_KEYWORDS.has(f[2]!) && !/^[ \t]*(?:return|else|case|delete|new|throw|using|typedef)\b/.test(line)) {
        const open = starts[i]! + f[0].length - 1;
        if (opensBody(text, open)) {
          push(s.fns, f[2]!, { path, line: i + 1, head: headOf(lines, i), top: !/^[ \t]/.test(line) });
          const macros = f[1]!.trim();
          if (macroLineBefore(lines, i) || macros && macros.split(/\s+/).every((m) => !/^(?:[A-Z]\w*_t|BOOL|VOID|LPCSTR)$/.test(m))) s.macroFns.add(f[2]!);
        }
      }
    }
  }
  return s;
}

/** Ruby: every module/class opened, qualified by nesting (indentation), by file. */
export function scanRuby(text: string): string[] {
  const out: string[] = [];
  const stack: { indent: number; name: string }[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || /^[ \t]*#/.test(line)) continue;
    const indent = /^[ \t]*/.exec(line)![0].length;
    while (stack.length && indent < stack[stack.length - 1]!.indent) stack.pop();
    if (/^[ \t]*end\b/.test(line)) {
      if (stack.length && stack[stack.length - 1]!.indent === indent) stack.pop();
      continue;
    }
    const m = /^[ \t]*(?:module|class)[ \t]+((?:::)?[A-Z]\w*(?:::[A-Z]\w*)*)(?=[ \t]*(?:<|$|;|#))/.exec(line);
    if (!m) continue;
    const own = m[1]!.replace(/^::/, '');
    const q = m[1]!.startsWith('::') ? own : [...stack.map((s) => s.name), own].join('::');
    out.push(q);
    if (!/;[ \t]*end\b/.test(line)) stack.push({ indent, name: own });
  }
  return out;
}

const snake = (s: string): string => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toLowerCase();

/** Build every probe of every form (deterministic for a seed). */
export function buildProbes(per: number, seed: number): Probe[] {
  const probes: Probe[] = [];
  const sites = (m: Map<string, Site[]>, n: string) => m.get(n) ?? [];
  const sample = <T>(items: readonly T[], salt: number, where?: Map<string, Site[]>, cap = 2): T[] =>
    (where ? (spread(shuffled(items as unknown as string[], seed + salt), (n) => where.get(n)?.[0]?.path, cap) as unknown as T[]) : shuffled(items, seed + salt)).slice(0, per);

  // C: the kernel.
  const kernelFiles = files('kernel', C_EXT);
  const k = scanC('kernel', kernelFiles);
  const kTypes = [...k.macroTypes].filter((n) => n.length > 3 && !/^[A-Z0-9_]+$/.test(n)).sort();
  for (const n of sample(kTypes, 1, k.types)) probes.push({ form: 'c-type-macro', tree: 'kernel', query: n, name: n, sites: sites(k.types, n) });
  const kTrail = [...k.trailingTypes].filter((n) => !k.macroTypes.has(n) && n.length > 3).sort();
  for (const n of sample(kTrail, 2, k.types)) probes.push({ form: 'c-type-trailing', tree: 'kernel', query: n, name: n, sites: sites(k.types, n) });
  const kExp = [...k.exported].filter((n) => k.fns.has(n) && n.length > 3).sort();
  for (const n of sample(kExp, 3, k.fns)) probes.push({ form: 'c-exported', tree: 'kernel', query: n, name: n, sites: sites(k.fns, n) });

  // C++: fmt and nlohmann-json.
  for (const [i, tree] of (['fmt', 'nlohmann-json'] as const).entries()) {
    const c = scanC(tree, files(tree, C_EXT));
    const types = [...c.macroTypes].filter((n) => n.length > 2 && !/^[A-Z0-9_]+$/.test(n)).sort();
    for (const n of sample(types, 10 + i, c.types).slice(0, per / 2)) probes.push({ form: 'c-type-macro', tree, query: n, name: n, sites: [...sites(c.types, n), ...sites(c.fns, n)] });
    const fns = [...c.macroFns].filter((n) => n.length > 2 && !/^[A-Z0-9_]+$/.test(n)).sort();
    for (const n of sample(fns, 20 + i, c.fns).slice(0, per / 2)) probes.push({ form: 'cpp-fn-macro', tree, query: n, name: n, sites: [...sites(c.fns, n), ...sites(c.types, n)] });
    const ns = tree === 'fmt' ? 'fmt' : 'nlohmann';
    // What a user writes with the namespace: a type or function at namespace level, not a member.
    const pub = [...new Set([...c.types.keys(), ...c.fns.keys()])]
      .filter((n) => n.length > 3 && !n.startsWith('_') && !/^[A-Z0-9_]+$/.test(n) && [...sites(c.types, n), ...sites(c.fns, n)].some((x) => x.top)).sort();
    for (const n of sample(pub, 30 + i).slice(0, per / 2)) {
      probes.push({ form: 'ns-cpp', tree, query: `${ns}::${n}`, name: n, sites: [...sites(c.types, n), ...sites(c.fns, n)] });
    }
  }

  // TypeScript: zod.
  const zodFiles = files('zod', /\.ts$/).filter((p) => !p.endsWith('.d.ts'));
  const tsDefs = new Map<string, Site[]>();
  for (const path of zodFiles) {
    const lines = read('zod', path).split('\n');
    lines.forEach((line, i) => {
      const m = /^(?:export[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(?:const|let|class|interface|type|function\*?|enum)[ \t]+(\$?[A-Za-z_]\w*)/.exec(line);
      if (m) push(tsDefs, m[1]!, { path, line: i + 1, head: headOf(lines, i) });
    });
  }
  const sigils = [...tsDefs.keys()].filter((n) => n.startsWith('$') && n.length > 4).sort();
  for (const n of sample(sigils, 40, tsDefs, 6)) probes.push({ form: 'ts-sigil', tree: 'zod', query: n, name: n, sites: tsDefs.get(n)! });
  const classic = zodFiles.filter((p) => p.startsWith('packages/zod/src/v4/classic/'));
  const zFns = new Set<string>();
  for (const path of classic) for (const m of read('zod', path).matchAll(/^export function ([a-z]\w*)/gm)) zFns.add(m[1]!);
  for (const n of sample([...zFns].filter((n) => n.length > 2).sort(), 41)) probes.push({ form: 'ns-ts', tree: 'zod', query: `z.${n}`, name: n, sites: tsDefs.get(n) ?? [] });

  // Ruby: sinatra and slim.
  const rb: Probe[] = [];
  for (const tree of ['sinatra', 'slim']) {
    const paths = files(tree, /\.rb$/);
    const opened = new Map<string, Set<string>>();
    for (const path of paths) for (const q of scanRuby(read(tree, path))) (opened.get(q) ?? opened.set(q, new Set()).get(q)!).add(path);
    const reopened = [...opened.keys()].filter((q) => opened.get(q)!.size > 1);
    for (const q of [...opened.keys()].sort()) {
      const parents = q.split('::').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('::'));
      if (!reopened.includes(q) && !parents.some((p) => reopened.includes(p))) continue;
      if (!q.includes('::') && opened.get(q)!.size < 2) continue;
      const want = `${q.split('::').map(snake).join('/')}.rb`;
      const file = paths.find((p) => p === want || p.endsWith(`/${want}`));
      if (file && opened.get(q)!.has(file)) rb.push({ form: 'rb-reopened', tree, query: q, name: q, sites: [], file });
    }
  }
  probes.push(...sample(rb, 50));

  // Rust: clap's exported macros.
  const clapFiles = files('clap', /\.rs$/);
  const macros = new Map<string, Site[]>();
  for (const path of clapFiles) {
    const lines = read('clap', path).split('\n');
    lines.forEach((line, i) => {
      const m = /^macro_rules![ \t]+([a-z_]\w*)/.exec(line);
      if (m && lines.slice(Math.max(0, i - 3), i).some((l) => /#\[macro_export\]/.test(l))) push(macros, m[1]!, { path, line: i + 1, head: headOf(lines, i) });
    });
  }
  for (const n of sample([...macros.keys()].sort(), 60)) probes.push({ form: 'ns-rust', tree: 'clap', query: `clap::${n}!`, name: n, sites: macros.get(n)! });

  return probes.filter((p) => p.sites.length > 0 || p.file);
}

interface Top {
  path: string;
  start_line: number;
  end_line: number;
  symbol: string | null;
}

function hit(p: Probe, top: Top | undefined): boolean {
  if (!top) return false;
  if (p.file) return top.path === p.file;
  return p.sites.some((s) => s.path === top.path && top.start_line <= s.line && s.head <= top.end_line);
}

export interface HiddenReport {
  root: string;
  forms: Record<string, { n: number; first: number; top3: number }>;
  misses: string[];
  firsts: Record<string, string>;
}

export function runHidden(root: string, probes: readonly Probe[], dir: string, reuse: boolean): HiddenReport {
  const report: HiddenReport = { root, forms: {}, misses: [], firsts: {} };
  for (const tree of [...new Set(probes.map((p) => p.tree))]) {
    const db = join(dir, `${tree}.db`);
    if (!reuse || !existsSync(db)) {
      const r = run(process.execPath, [join(root, 'bin', 'sift'), 'index', TREES[tree]!, '--db', db, '--json', '--no-embed']);
      if (r.status !== 0) throw new Error(`${root}: sift index ${tree} exited ${r.status}: ${r.stderr.slice(-2000)}`);
    }
    const mine = probes.filter((p) => p.tree === tree);
    const input = mine.map((p) => p.query).join('\n') + '\n';
    const r = run(process.execPath, [join(root, 'bin', 'sift'), 'search', TREES[tree]!, '--stdin', '--json', '--db', db, '--mode', 'bm25', '--limit', '10'], { input });
    if (r.status !== 0) throw new Error(`${root}: sift search exited ${r.status}: ${r.stderr.slice(-2000)}`);
    const answers = r.stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as SiftResponse);
    mine.forEach((p, i) => {
      const results = (answers[i]?.results ?? []) as unknown as Top[];
      const f = (report.forms[p.form] ??= { n: 0, first: 0, top3: 0 });
      f.n++;
      const top = results[0];
      report.firsts[`${p.tree} ${p.query}`] = top ? `${top.path}:${top.start_line} ${top.symbol ?? ''}` : 'nothing';
      if (hit(p, top)) f.first++;
      else report.misses.push(`${p.form} ${p.tree} ${p.query} → ${report.firsts[`${p.tree} ${p.query}`]} (want ${p.file ?? p.sites.slice(0, 2).map((s) => `${s.path}:${s.line}`).join(', ')})`);
      if (results.slice(0, 3).some((t) => hit(p, t))) f.top3++;
    });
  }
  return report;
}

if (isMain(import.meta.url)) {
  const { flags } = parseArgs(process.argv.slice(2), ['reuse', 'list']);
  const per = Number(flags.get('per-form') ?? 40);
  const seed = Number(flags.get('seed') ?? 35);
  const root = resolve(String(flags.get('root') ?? REPO_DIR));
  const tag = String(flags.get('tag') ?? 'now');
  const probes = buildProbes(per, seed);
  if (flags.has('list')) {
    for (const p of probes) console.log(`${p.form}\t${p.tree}\t${p.query}\t${p.file ?? p.sites.map((s) => `${s.path}:${s.line}`).join(' ')}`);
  } else {
    const dir = join(TMP_DIR, 'hidden-names', tag);
    mkdirSync(dir, { recursive: true });
    const rep = runHidden(root, probes, dir, flags.has('reuse'));
    const date = new Date().toISOString().slice(0, 10);
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(join(RESULTS_DIR, `${date}-hidden-names-${tag}.json`), JSON.stringify({ per, seed, ...rep }, null, 1));
    const md = [`# Hidden names (${tag}: ${root})`, '', `\`npx tsx bench/eval/hidden-names.ts --per-form ${per} --seed ${seed} --root ${root} --tag ${tag}\``, '',
      '| form | names | first is a definition | in the top 3 |', '|---|---|---|---|',
      ...Object.entries(rep.forms).map(([f, s]) => `| ${f} | ${s.n} | ${(s.first / s.n).toFixed(3)} | ${(s.top3 / s.n).toFixed(3)} |`),
      '', '## Misses', '', ...rep.misses.map((m) => `- ${m}`), ''].join('\n');
    writeFileSync(join(RESULTS_DIR, `${date}-hidden-names-${tag}.md`), md);
    console.log(md);
  }
}
