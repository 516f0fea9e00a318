/**
 * File-and-line probe (session 19): does a stack trace's `path:line` find the piece holding that
 * line? For four sampled lines of source files (under 200 KB) per repository, seeded, two queries
 * each: `path:line` and a JavaScript frame with an absolute path from another machine
 * (`Error: boom\n    at handler (/home/user/work/<repo>/<path>:<line>:7)`). Prints how often the
 * first result is the file, and how often it holds the line. Indexes are tune-repos.ts's (`--dbdir`).
 *
 * Usage: npx tsx bench/eval/trace-probe.ts ROOT DBDIR repo,repo,… [CHECKOUT]
 *   ROOT: the repositories' checkouts (ROOT/<repo>); CHECKOUT: the Sift checkout whose code answers
 *   (default: this one; a baseline worktree for a before/after).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
const [root, dbdir, repos] = [process.argv[2], process.argv[3], process.argv[4].split(',')];
const checkout = process.argv[5] ?? new URL('../..', import.meta.url).pathname;
const { openNodeStore } = await import(`${checkout}/src/core/store/open-node.ts`);
const { Searcher } = await import(`${checkout}/src/core/search/search.ts`);
let seed = 7; const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const SRC = /\.(ts|js|py|go|rs|java|kt|cs|rb|php|ex|c|cc|cpp|h|hs|scala|swift|lua)$/;
let ok = 0, okFile = 0, n = 0;
for (const r of repos) {
  const files: string[] = [];
  const walk = (d: string) => { for (const e of readdirSync(d, { withFileTypes: true })) { if (e.name === '.git' || e.name === 'node_modules') continue; const p = join(d, e.name); if (e.isDirectory()) walk(p); else if (SRC.test(e.name) && statSync(p).size < 200000) files.push(p); } };
  walk(join(root, r));
  const store = await openNodeStore(join(dbdir, `${r}.db`), { existing: true });
  const s = new Searcher(store);
  for (let k = 0; k < 4; k++) {
    const f = files[Math.floor(rnd() * files.length)];
    const lines = readFileSync(f, 'utf8').split('\n').length;
    const line = 1 + Math.floor(rnd() * Math.max(1, lines - 1));
    const rel = relative(join(root, r), f);
    for (const q of [`${rel}:${line}`, `Error: boom\n    at handler (/home/user/work/${r}/${rel}:${line}:7)`]) {
      const res = await s.search(q, { mode: 'bm25', limit: 10 });
      const first = res.results[0];
      n++;
      if (first?.path === rel) { okFile++; if (first.startLine <= line && line <= first.endLine) ok++; }
    }
  }
  await store.close();
}
console.log(`${n} queries: first result is the file ${okFile}, and holds the line ${ok}`);
