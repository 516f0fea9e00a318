/**
 * Declaration queries on a real index: `struct page`, `def urlopen`, `func Hypot`, `type Reader`.
 *
 * Names are sampled (seeded) from the index's own definitions of the given chunk types and
 * languages (heads of definitions, no path containing `test`); each is searched in keyword
 * mode as `<keyword> <name>`. A query counts for R@1 when the first result is a definition
 * of that name (its symbol, or the last segment of `Parent.name`) with one of those chunk
 * types, and for R@3 when one of the first three is. It measures ranking given the chunker's
 * definitions, not the chunker: which definition of a name is "the" one is not judged.
 * `--plain` samples only one-part names (`page`, `Thread`, `Hypot`): a compound name
 * (`task_struct`) is an identifier on its own and was found before declaration queries.
 *
 * Usage: tsx bench/eval/declarations.ts <index.db> <keyword> <chunk types,…> <languages,…>
 *          [--n 100] [--seed 12345] [--plain]
 * SIFT_ROOT=<checkout> runs that checkout's Searcher on the same index (a baseline).
 */
import { resolve } from 'node:path';
import { openNodeStore } from '../../src/core/store/open-node.ts';
import { REPO_DIR, isMain, parseArgs } from '../util.ts';
import { shuffled } from './build-set.ts';

export interface DeclarationScore {
  keyword: string;
  kinds: string[];
  languages: string[];
  names: number;
  r1: number;
  r3: number;
  misses: string[];
}

export async function scoreDeclarations(
  dbFile: string, keyword: string, kinds: string[], languages: string[],
  o: { n?: number; seed?: number; plain?: boolean; root?: string } = {},
): Promise<DeclarationScore> {
  const { Searcher } = await import(resolve(o.root ?? REPO_DIR, 'src/core/search/search.ts')) as typeof import('../../src/core/search/search.ts');
  const store = await openNodeStore(dbFile);
  try {
    const searcher = new Searcher(store);
    const rows = await store.db.all<{ symbol: string }>(
      `SELECT DISTINCT symbol FROM chunks WHERE chunk_type IN (${kinds.map(() => '?').join(', ')})
         AND language IN (${languages.map(() => '?').join(', ')}) AND symbol IS NOT NULL AND context IS NULL
         AND path NOT LIKE '%test%' ORDER BY symbol`, [...kinds, ...languages]);
    const shape = o.plain ? /^[A-Za-z][a-z0-9]*$/ : /^[A-Za-z_]\w*$/;
    const names = rows.map((r) => r.symbol).filter((x) => shape.test(x));
    // The same seeded shuffle as the eval sets and navigation (build-set.ts).
    const pick = shuffled(names, o.seed ?? 12345).slice(0, o.n ?? 100);
    let r1 = 0;
    let r3 = 0;
    const misses: string[] = [];
    const ok = (r: { symbol: string | null; chunkType: string }, name: string) => r.symbol?.split(/::|[.]/).pop() === name && kinds.includes(r.chunkType);
    for (const name of pick) {
      const { results } = await searcher.search(`${keyword} ${name}`, { mode: 'bm25', limit: 3 });
      if (results[0] && ok(results[0], name)) r1++;
      else misses.push(`${name} → ${results[0] ? `${results[0].path}:${results[0].startLine} ${results[0].chunkType} ${results[0].symbol}` : 'nothing'}`);
      if (results.some((r) => ok(r, name))) r3++;
    }
    return { keyword, kinds, languages, names: pick.length, r1: r1 / (pick.length || 1), r3: r3 / (pick.length || 1), misses };
  } finally {
    await store.close();
  }
}

if (isMain(import.meta.url)) {
  const { flags, positional } = parseArgs(process.argv.slice(2), ['plain']);
  const [db, keyword, kinds, languages] = positional;
  if (!db || !keyword || !kinds || !languages) {
    throw new Error('usage: tsx bench/eval/declarations.ts <index.db> <keyword> <chunk types,…> <languages,…> [--n 100] [--seed 12345] [--plain]');
  }
  const s = await scoreDeclarations(db, keyword, kinds.split(','), languages.split(','), {
    n: flags.has('n') ? Number(flags.get('n')) : undefined,
    seed: flags.has('seed') ? Number(flags.get('seed')) : undefined,
    plain: flags.has('plain'),
    root: process.env.SIFT_ROOT,
  });
  console.log(`${s.keyword} (${s.kinds.join(',')}; ${s.languages.join(',')}): ${s.names} names, R@1 ${s.r1.toFixed(3)}, R@3 ${s.r3.toFixed(3)}` +
    (s.misses.length ? `; first misses: ${s.misses.slice(0, 5).join('; ')}` : ''));
}
