/**
 * `sift mcp` on real trees, as an agent meets them (issue 34's held-out shape): for each folder, a fresh
 * copy and a fresh server; at once, while the first index runs, `grep` calls whose every line (all pages)
 * must equal ripgrep's over the files the index will hold (the walker's list, binary content left out);
 * a file written and one edited during the first index, each found first by `search` (time to both);
 * after the index is complete the same greps again.
 *
 * Usage: npx tsx bench/mcp-sweep.ts DIR... [--out FILE.jsonl]
 */
import { appendFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { connect, grepAll, indexedFiles, linesDiffer, rgArgs, rgLines } from './mcp.ts';
import { TMP_DIR, run } from './util.ts';

/** Patterns that hit most trees in any language: literals, case-insensitive, regexes with and without literals. */
const PATTERNS: Array<{ pattern: string; regex?: boolean; ignoreCase?: boolean }> = [
  { pattern: 'TODO' }, { pattern: 'error', ignoreCase: true }, { pattern: '->' }, { pattern: 'http://' }, { pattern: 'TODO|FIXME|XXX', regex: true },
  { pattern: 'ç' }, { pattern: '\\bfn\\b|\\bfunc\\b|\\bdef\\b|function', regex: true }, { pattern: '^\\s*(//|#|--)', regex: true },
  { pattern: '[A-Z][a-z]+[A-Z]\\w*\\(', regex: true }, { pattern: '\\t$', regex: true }, { pattern: 'é|ü|→', regex: true, ignoreCase: true },
];

/** A pattern with more lines than this (rg's count) is not paged through: ~150 lines a page. */
const MAX_LINES = 3000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reads of the structured answers
const data = (r: any): any => r.structuredContent;

async function sweep(src: string, out: string | null): Promise<void> {
  const name = basename(src);
  const dir = join(TMP_DIR, 'mcp-sweep', name);
  const repo = join(dir, 'repo');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(src, repo, { recursive: true, verbatimSymlinks: true });
  const before = await indexedFiles(repo);
  const edited = before.filter((f) => !/(^|\/)(test|tests|docs?|examples?)\//.test(f))[before.length >> 1] ?? before[0];
  const t0 = performance.now();
  const client = await connect(repo, join(dir, 'home'));
  const row: Record<string, unknown> = { repo: name, files: before.length };
  try {
    const during: string[] = [];
    const checked: string[] = [];
    const st0 = data(await client.callTool({ name: 'status', arguments: {} })).codebases[0];
    row.stateAtFirst = st0.state;
    // The greps during the first index, each compared with rg over the walker's files as they are now.
    for (const p of PATTERNS) {
      const args = { pattern: p.pattern, regex: !!p.regex, ignore_case: !!p.ignoreCase };
      const count = run('rg', rgArgs(p, before), { cwd: repo }).stdout.split('\n').length - 1;
      if (count > MAX_LINES) continue;
      const tg = performance.now();
      let pages = 0;
      const g = await grepAll(client, args, () => void pages++);
      process.stderr.write(`${name} during ${p.pattern}: ${g.lines.length} lines, ${pages} pages, ${Math.round(performance.now() - tg)} ms\n`);
      const files = await indexedFiles(repo);
      const rg = run('rg', rgArgs(p, files), { cwd: repo });
      const diff = rg.status > 1 ? `rg failed: ${rg.stderr.slice(0, 200)}` : linesDiffer(g.lines, rgLines(rg.stdout));
      if (diff) during.push(`${p.pattern}: ${diff}`);
      if (!('firstGrepShare' in row)) row.firstGrepShare = data(g.first).indexed_share;
      checked.push(p.pattern);
    }
    row.duringDiffs = during;
    row.checked = checked.length;
    const marker = 'quokka_ledger_reconcile_zz';
    const marker2 = 'walrus_narwhal_settle_zz';
    writeFileSync(join(repo, 'zz_added_now.txt'), `${marker} was written while the first index ran\n`);
    appendFileSync(join(repo, edited), `\n${marker2} edited while the first index ran\n`);
    row.stateAtEdit = data(await client.callTool({ name: 'status', arguments: {} })).codebases[0].state;
    const te = performance.now();
    const found = new Map<string, number>();
    while (found.size < 2 && performance.now() - te < 30_000) {
      for (const [m, path] of [[marker, 'zz_added_now.txt'], [marker2, edited]]) {
        if (found.has(m)) continue;
        const r = await client.callTool({ name: 'search', arguments: { query: m } });
        if ((data(r).results as Array<{ path: string }>)[0]?.path === path) found.set(m, performance.now() - te);
      }
      if (found.size < 2) await new Promise((r) => setTimeout(r, 50));
    }
    row.editsFoundMs = found.size === 2 ? Math.round(Math.max(...found.values())) : null;
    for (;;) {
      const st = data(await client.callTool({ name: 'status', arguments: {} })).codebases[0];
      if (st.state !== 'indexing') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    row.readyMs = Math.round(performance.now() - t0);
    const after: string[] = [];
    const files = await indexedFiles(repo);
    for (const p of PATTERNS.filter((q) => checked.includes(q.pattern))) {
      const args = { pattern: p.pattern, regex: !!p.regex, ignore_case: !!p.ignoreCase };
      const g = await grepAll(client, args);
      const rg = run('rg', rgArgs(p, files), { cwd: repo });
      const diff = rg.status > 1 ? `rg failed: ${rg.stderr.slice(0, 200)}` : linesDiffer(g.lines, rgLines(rg.stdout));
      if (diff) after.push(`${p.pattern}: ${diff}`);
    }
    row.afterDiffs = after;
  } catch (e) {
    row.error = String(e).slice(0, 500);
  } finally {
    await client.close();
  }
  console.log(JSON.stringify(row));
  if (out) appendFileSync(out, JSON.stringify(row) + '\n');
}

const args = process.argv.slice(2);
const o = args.indexOf('--out');
const out = o >= 0 ? args.splice(o, 2)[1] : null;
for (const d of args) await sweep(d, out);
