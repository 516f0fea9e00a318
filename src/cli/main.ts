/**
 * `sift` — the command line over the same core the browser app runs.
 *
 * Output contract: results go to stdout (human text, or JSON with --json); progress and
 * errors go to stderr. Every failure is one clear line on stderr and a non-zero exit:
 * 2 usage / no such folder, 3 index missing, 4 corrupt index, 1 anything else.
 */
import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CliError, indexPaths, openIndex, openExistingIndex, type IndexPaths } from './context.ts';
import { runIndex } from './cmd-index.ts';
import { runSearch, formatSearchJson, formatSearchHuman } from './cmd-search.ts';
import { runStats, runTypes } from './cmd-stats.ts';
import type { ChunkType, SearchMode, SearchOptions } from '../core/types.ts';

const USAGE = `sift — private, instant code search

Usage:
  sift index <dir> [--db FILE] [--no-embed] [--model DIR] [--verify] [--max-file-size BYTES] [--ignore PATTERN]...
                   [--workers N] [--json]
  sift rebuild <dir> [same options as index]
  sift search <dir> "<query>" [--limit 10] [--mode hybrid|bm25|vector] [--lang L] [--path GLOB] [--type T]
                              [--bm25-weight W] [--vector-weight W] [--explain] [--json] [--db FILE] [--model DIR]
  sift search <dir> --stdin --json [options]      one query per line in, one JSON line per query out
  sift stats <dir> [--json] [--db FILE]
  sift types <dir> [--json] [--db FILE]

Indexes live in ~/.sift/indexes/<sha256(dir)[:16]>/ (override with --db FILE or SIFT_HOME).
Models: --model DIR (a Transformers.js folder), else ~/.sift/models/Xenova/all-MiniLM-L6-v2, else the Hugging Face Hub.
`;

const OPTIONS = {
  db: { type: 'string' },
  'no-embed': { type: 'boolean' },
  model: { type: 'string' },
  verify: { type: 'boolean' },
  'max-file-size': { type: 'string' },
  workers: { type: 'string' },
  ignore: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  limit: { type: 'string' },
  mode: { type: 'string' },
  lang: { type: 'string', multiple: true },
  path: { type: 'string' },
  type: { type: 'string', multiple: true },
  'bm25-weight': { type: 'string' },
  'vector-weight': { type: 'string' },
  explain: { type: 'boolean' },
  stdin: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

function num(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new CliError(`--${name} must be a non-negative number, got "${v}"`, 2);
  return n;
}

function folder(arg: string | undefined): string {
  if (!arg) throw new CliError('missing <dir>; see `sift --help`', 2);
  const abs = resolve(arg);
  if (!existsSync(abs)) throw new CliError(`no such folder: ${arg}`, 2);
  if (!statSync(abs).isDirectory()) throw new CliError(`not a folder: ${arg}`, 2);
  return abs;
}

function searchOptions(v: Values): SearchOptions {
  const mode = v.mode as SearchMode | undefined;
  if (mode && !['hybrid', 'bm25', 'vector'].includes(mode)) throw new CliError(`--mode must be hybrid, bm25 or vector, got "${mode}"`, 2);
  return {
    limit: num(v.limit, 'limit'),
    mode,
    languages: v.lang?.flatMap((l) => l.split(',')).map((l) => l.trim().toLowerCase()).filter(Boolean),
    pathGlob: v.path,
    chunkTypes: v.type?.flatMap((t) => t.split(',')).map((t) => t.trim() as ChunkType).filter(Boolean),
    bm25Weight: num(v['bm25-weight'], 'bm25-weight'),
    vectorWeight: num(v['vector-weight'], 'vector-weight'),
  };
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError(`${(e as Error).message}; see \`sift --help\``, 2);
  }
  const { values: v, positionals } = parsed;
  const [cmd, dirArg, ...rest] = positionals;
  if (v.help || !cmd || cmd === 'help') {
    process.stdout.write(USAGE);
    return cmd || v.help ? 0 : 2;
  }
  switch (cmd) {
    case 'index':
    case 'rebuild': {
      const dir = folder(dirArg);
      const paths = indexPaths(dir, v.db);
      const { store } = await openIndex(paths, { fresh: cmd === 'rebuild' });
      return runIndex(dir, store, paths, {
        embed: !v['no-embed'],
        modelDir: v.model,
        verify: !!v.verify,
        maxFileSize: num(v['max-file-size'], 'max-file-size'),
        workers: num(v.workers, 'workers'),
        ignore: v.ignore,
        json: !!v.json,
        quiet: !!v.quiet,
      });
    }
    case 'search': {
      const dir = folder(dirArg);
      const paths: IndexPaths = indexPaths(dir, v.db);
      const ctx = await openExistingIndex(dir, paths);
      const opts = searchOptions(v);
      const searcher = await runSearch.prepare(ctx, { modelDir: v.model, mode: opts.mode });
      if (searcher.note && !v.json && !v.stdin && !v.quiet) process.stderr.write(`sift: ${searcher.note}\n`);
      try {
        if (v.stdin) {
          const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
          for await (const line of rl) {
            if (!line.trim()) continue;
            const res = await searcher.search(line, opts);
            process.stdout.write(JSON.stringify(formatSearchJson(res, !!v.explain)) + '\n');
          }
          return 0;
        }
        const query = rest.join(' ');
        if (!query.trim()) throw new CliError('missing "<query>"; see `sift --help`', 2);
        const res = await searcher.search(query, opts);
        process.stdout.write(v.json ? JSON.stringify(formatSearchJson(res, !!v.explain), null, 2) + '\n' : formatSearchHuman(res, !!v.explain));
        return 0;
      } finally {
        await searcher.close();
      }
    }
    case 'stats': {
      const dir = folder(dirArg);
      const ctx = await openExistingIndex(dir, indexPaths(dir, v.db));
      return runStats(ctx, !!v.json);
    }
    case 'types': {
      const dir = folder(dirArg);
      const ctx = await openExistingIndex(dir, indexPaths(dir, v.db));
      return runTypes(ctx, !!v.json);
    }
    default:
      throw new CliError(`unknown command "${cmd}"; see \`sift --help\``, 2);
  }
}

export async function run(argv: string[]): Promise<void> {
  try {
    process.exitCode = await main(argv);
  } catch (e) {
    if (e instanceof CliError) {
      process.stderr.write(`sift: ${e.message}\n`);
      process.exitCode = e.exitCode;
    } else if (e instanceof Error && e.name === 'AbortError') {
      process.stderr.write('sift: cancelled\n');
      process.exitCode = 130;
    } else {
      process.stderr.write(`sift: ${e instanceof Error ? e.message : String(e)}\n`);
      if (process.env.SIFT_DEBUG) console.error(e);
      process.exitCode = 1;
    }
  }
}
