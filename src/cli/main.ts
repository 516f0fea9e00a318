/**
 * `sift` — the command line over the same core the browser app runs.
 *
 * Output contract: results go to stdout (human text, or JSON with --json); progress and
 * errors go to stderr. Every failure is one clear line on stderr and a non-zero exit:
 * 2 usage / no such folder, 3 index missing, 4 corrupt index, 5 busy (another sift holds the
 * index), 6 storage full, 130 cancelled, 1 anything else (core/store/errors.ts classifies).
 *
 * Concurrency: any number of sift processes may use one index. `index`/`rebuild` hold the
 * index's writer lock for the whole run, `publish` until its snapshot of the index is taken (a
 * second writer waits up to SIFT_LOCK_TIMEOUT seconds); `rebuild` builds beside the index and
 * swaps it in, so readers see the old index until then.
 */
import { inspect, parseArgs } from 'node:util';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { CliError, describeFailure, indexPaths, openIndex, openExistingIndex, safeText, type IndexContext, type IndexPaths } from './context.ts';
// Indexing (tree-sitter, the chunk pool) and grep are imported by their commands only: a
// start of `sift search` or `sift stats` loads neither.
import type { IndexCliOptions } from './cmd-index.ts';
import type { PublishOptions } from './cmd-publish.ts';
import type { PreparedSearch } from './cmd-search.ts';
import type { GrepCliOptions } from './cmd-grep.ts';
import { runStats, runTypes } from './cmd-stats.ts';
import { checkStore, corruptFromReport, quickCheckStore, runCheck } from './cmd-check.ts';
import { nodeRuntime, takeHotJournalRecovery } from '../core/store/open-node.ts';
import type { Store } from '../core/store/store.ts';
import { fsyncDir, fsyncFile } from './durable.ts';
import { acquireSessionLock, swapUnderLock, type SessionLock } from '../core/store/lock-node.ts';
import { EXIT_CODE } from '../core/store/errors.ts';
import type { ChunkType, SearchMode, SearchOptions } from '../core/types.ts';
import { FILE_KINDS, parseFileKind, parseIntent, SEARCH_INTENTS } from '../core/text/file-kind.ts';
import { trace } from './trace.ts';
import { processIo, RunInClient, type CliIo, type Invocation } from './io.ts';
import { WARM_TEXT_CACHE_CHARS } from './warm-indexes.ts';

export { trace };

const USAGE = `sift — private, instant code search

Usage:
  sift index <dir> [--db FILE] [--no-embed] [--model DIR|HUB_ID] [--verify] [--max-file-size BYTES]
                   [--include GLOB]... [--exclude GLOB]... [--workers N] [--json]
                   every text file is indexed; --include: only paths matching one GLOB; --exclude
                   (or --ignore): skip matching paths (gitignore syntax, relative to <dir>)
  sift rebuild <dir> [same options as index]
  sift search <dir> "<query>" [--limit 10] [--mode hybrid|bm25|vector] [--lang L] [--path GLOB] [--type T]
                              [--kind code|test|docs|config|generated|example] [--intent code|test|docs|config|example|any]
                              [--bm25-weight W] [--vector-weight W] [--explain] [--json] [--db FILE] [--model DIR]
                              --kind keeps only files of those kinds; --intent says which kinds lead (default:
                              from the query's words, "tests for …" → test, else code: tests and docs rank lower)
  sift search <dir> --stdin --json [options]      one query per line in, one JSON line per query out
  sift search <dir> "<pattern>" --mode exact|regex [-i|--ignore-case] [--limit 200] [--path GLOB] [--lang L] [--json]
  sift search <dir> --mode exact|regex -- "<pattern>"   a pattern that starts with '-'
                              every matching line, like ripgrep (RE2 syntax; see README)
  sift stats <dir> [--json] [--db FILE]
  sift types <dir> [--json] [--db FILE]
  sift check <dir> [--json] [--db FILE]           integrity check of the index (exit 4 when corrupt)
  sift mcp [<dir> ...] [--db FILE] [--include GLOB]... [--exclude GLOB]... [--no-watch] [--model DIR|HUB_ID]
                                                  MCP server over stdio for coding agents: search, grep, read,
                                                  symbols, status over <dir>s (default: .), kept fresh (README "Agents")
  sift serve [--status | --stop] [--json]          the warm server one-shot searches and small indexes use when it
                                                  runs (started by the first, one per SIFT_HOME, exits after 10 min idle;
                                                  SIFT_SERVER=0 turns it off: docs/cli.md "Warm server")
  sift publish <dir> --out FOLDER [--embed] [--name NAME] [--page-size BYTES] [--prune] [--json]
                     [index options: --db, --model, --max-file-size, --include, --exclude, --workers]
                                                  update the index, then write a read-only pack and its manifest
                                                  (sift-index.json) into FOLDER for the app to open over HTTP

Indexes live in ~/.sift/indexes/<sha256(dir)[:16]>/ (override with --db FILE or SIFT_HOME).
Exit codes: 2 usage, 3 no index, 4 corrupt index, 5 index busy, 6 disk full, 1 other.
Models: --model DIR|HUB_ID: a transformer (Transformers.js folder: config.json, tokenizer.json, onnx/) or a static
model2vec model (config.json, tokenizer.json, model.safetensors; e.g. minishlab/potion-code-16M, embeds ~300x faster);
else the model the index records, else Xenova/all-MiniLM-L6-v2. A Hub id is read from ~/.sift/models/<id>/, else
downloaded there from the Hugging Face Hub (not with SIFT_OFFLINE=1).
`;

const OPTIONS = {
  db: { type: 'string' },
  'no-embed': { type: 'boolean' },
  model: { type: 'string' },
  verify: { type: 'boolean' },
  'max-file-size': { type: 'string' },
  workers: { type: 'string' },
  ignore: { type: 'string', multiple: true },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  limit: { type: 'string' },
  mode: { type: 'string' },
  'ignore-case': { type: 'boolean', short: 'i' },
  lang: { type: 'string', multiple: true },
  path: { type: 'string' },
  type: { type: 'string', multiple: true },
  kind: { type: 'string', multiple: true },
  intent: { type: 'string' },
  'bm25-weight': { type: 'string' },
  'vector-weight': { type: 'string' },
  explain: { type: 'boolean' },
  stdin: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  'no-watch': { type: 'boolean' },
  out: { type: 'string' },
  embed: { type: 'boolean' },
  name: { type: 'string' },
  'page-size': { type: 'string' },
  prune: { type: 'boolean' },
  status: { type: 'boolean' },
  stop: { type: 'boolean' },
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
  if (mode && !['hybrid', 'bm25', 'vector'].includes(mode)) throw new CliError(`--mode must be hybrid, bm25, vector, exact or regex, got "${mode}"`, 2);
  return {
    limit: num(v.limit, 'limit'),
    mode,
    languages: v.lang?.flatMap((l) => l.split(',')).map((l) => l.trim().toLowerCase()).filter(Boolean),
    pathGlob: v.path,
    chunkTypes: v.type?.flatMap((t) => t.split(',')).map((t) => t.trim() as ChunkType).filter(Boolean),
    kinds: v.kind?.flatMap((k) => k.split(',')).filter((k) => k.trim()).map((k) => {
      const kind = parseFileKind(k);
      if (!kind) throw new CliError(`--kind must be one of ${FILE_KINDS.join(', ')}, got "${k}"`, 2);
      return kind;
    }),
    intent: v.intent === undefined ? undefined : (parseIntent(v.intent) ?? (() => {
      throw new CliError(`--intent must be one of ${SEARCH_INTENTS.join(', ')}, got "${v.intent}"`, 2);
    })()),
    bm25Weight: num(v['bm25-weight'], 'bm25-weight'),
    vectorWeight: num(v['vector-weight'], 'vector-weight'),
  };
}

/** One run of a command: where its output goes, and the index it works on (for failure messages). */
interface RunState extends Invocation {
  index: IndexPaths | null;
}

/** How long `sift index` waits for another writer of the same index (SIFT_LOCK_TIMEOUT, seconds). */
const DEFAULT_LOCK_TIMEOUT_S = 900;

function lockTimeoutMs(): number {
  const n = Number(process.env.SIFT_LOCK_TIMEOUT);
  return (process.env.SIFT_LOCK_TIMEOUT && Number.isFinite(n) && n >= 0 ? n : DEFAULT_LOCK_TIMEOUT_S) * 1000;
}

function indexReplaced(db: string, ino: number): boolean {
  try {
    return statSync(db).ino !== ino;
  } catch {
    return true;
  }
}

/** Checks before writing: after a crash (hot journal rolled back) a quick check, with --verify the full one. */
async function checkBeforeWrite(ctx: IndexContext, verify: boolean): Promise<void> {
  const recovered = await takeHotJournalRecovery(ctx.paths.db);
  if (!recovered && !verify) return;
  const report = verify ? await checkStore(ctx.store) : await quickCheckStore(ctx.store);
  if (!report.ok) {
    await ctx.store.close().catch(() => undefined);
    throw corruptFromReport({ dir: ctx.dir, db: ctx.paths.db }, report);
  }
}

/**
 * The index's writer session lock (`sift index`, `rebuild`, `publish`): waits for another writer,
 * then exit 5. In the warm server (`served`) it never waits: the client runs the command itself.
 */
async function writerLock(paths: IndexPaths, quiet: boolean, io: CliIo, served = false): Promise<SessionLock> {
  mkdirSync(dirname(paths.db), { recursive: true });
  return acquireSessionLock(paths.db, {
    timeoutMs: lockTimeoutMs(),
    onWait: (pid) => {
      if (served) throw new RunInClient(`pid ${pid} is writing this index`);
      if (!quiet) io.err(`sift: another sift index is writing this index (pid ${pid}); waiting up to ${lockTimeoutMs() / 1000}s…\n`);
    },
    busy: (pid, ms) =>
      new CliError(`another sift index is writing this index (pid ${pid}); gave up after ${Math.round(ms / 1000)}s — run it again when that one finishes (SIFT_LOCK_TIMEOUT sets the wait)`, EXIT_CODE.busy),
  });
}

function indexOptions(v: Values): IndexCliOptions {
  return {
    embed: !v['no-embed'],
    modelDir: v.model,
    verify: !!v.verify,
    maxFileSize: num(v['max-file-size'], 'max-file-size'),
    workers: num(v.workers, 'workers'),
    ignore: [...(v.ignore ?? []), ...(v.exclude ?? [])],
    include: v.include,
    json: !!v.json,
    quiet: !!v.quiet,
  };
}

async function indexInPlace(dir: string, paths: IndexPaths, o: IndexCliOptions, smallFolder: boolean): Promise<number> {
  // A new index of a small folder is built whole beside its final name and renamed into place,
  // as a rebuild is: no commit along the way needs to reach the disk (below). A big one is built
  // in place: its commits are a small part of its time, and a killed run resumes where it was.
  if (smallFolder && (!existsSync(paths.db) || statSync(paths.db).size === 0)) return rebuild(dir, paths, o, true);
  const [ctx, { runIndex }] = await Promise.all([openIndex(paths), import('./cmd-index.ts')]);
  trace('index opened');
  await checkBeforeWrite(ctx, o.verify);
  return runIndex(dir, ctx.store, paths, o);
}

/**
 * Build a fresh index beside the old one (or where none is yet: `isNew`) and swap it in (atomic
 * rename, under an exclusive lock so no reader is mid-query). A failed rebuild (full disk,
 * Ctrl-C, a crash) leaves the old index, or none; its file beside is removed by the next run. So
 * the file being built needs no commit to be durable: it is a scratch file (Store.open: no fsync,
 * journal in memory, one lock; each commit cost two fsyncs and 8 lock-file calls, 17 fsyncs for
 * 100 files: 0.1-0.3 s of a small index's wall here) fsynced once before the rename. A new index goes into place when its keyword pass is
 * done (then keyword search works while it embeds, and an interrupted embedding resumes); a
 * rebuild replaces the old index, vectors included, only when it is complete.
 */
async function rebuild(dir: string, paths: IndexPaths, o: IndexCliOptions, isNew = false): Promise<number> {
  const tmp: IndexPaths = { dir, db: `${paths.db}.rebuild`, vectors: `${paths.vectors}.rebuild` };
  const clean = (): void => {
    for (const f of [tmp.db, `${tmp.db}-journal`, tmp.vectors]) rmSync(f, { force: true });
  };
  const swap = (): void => {
    fsyncFile(tmp.db);
    if (existsSync(tmp.vectors)) fsyncFile(tmp.vectors);
    swapUnderLock(paths.db, () => {
      // A journal left by a writer of the OLD file must never be played back into the new one.
      rmSync(`${paths.db}-journal`, { force: true });
      renameSync(tmp.db, paths.db);
      if (existsSync(tmp.vectors)) renameSync(tmp.vectors, paths.vectors);
      else rmSync(paths.vectors, { force: true });
    });
    fsyncDir(dirname(paths.db));
  };
  clean();
  let code: number;
  try {
    const [ctx, { runIndex }] = await Promise.all([openIndex(tmp, { scratch: true }), import('./cmd-index.ts')]);
    trace('index opened');
    if (isNew) {
      // Into place after the keyword pass; embedding, if any, continues in the final file.
      const afterLexical = async (store: Store): Promise<Store | null> => {
        await store.close();
        swap();
        return o.embed ? (await openIndex(paths)).store : null;
      };
      return await runIndex(dir, ctx.store, paths, { ...o, afterLexical });
    }
    // Output names the final index; vectors go beside the new database until the swap.
    code = await runIndex(dir, ctx.store, { ...paths, vectors: tmp.vectors }, o);
  } catch (e) {
    clean();
    throw e;
  }
  swap();
  return code;
}

/** The files a kept-open index was opened from (warm-indexes.ts): any change opens it afresh. */
function indexFiles(paths: IndexPaths): string[] {
  return [paths.db, `${paths.db}-journal`, paths.vectors];
}

/** `search --mode exact|regex` (issue 11): every matching line, ripgrep style, not ranked chunks. */
async function grepCommand(dir: string, paths: IndexPaths, v: Values, rest: string[], r: RunState): Promise<number> {
  if (!v.stdin && rest.length === 0) throw new CliError('missing "<pattern>"; see `sift --help`', 2);
  const o: GrepCliOptions = {
    mode: v.mode === 'regex' ? 'regex' : 'exact',
    ignoreCase: !!v['ignore-case'],
    limit: num(v.limit, 'limit'),
    path: v.path,
    languages: v.lang?.flatMap((l) => l.split(',')).map((l) => l.trim().toLowerCase()).filter(Boolean),
  };
  const { runGrep, runGrepLines, openGrep } = await import('./cmd-grep.ts');
  const open = async () => openGrep(await openExistingIndex(dir, paths), r.warm ? WARM_TEXT_CACHE_CHARS : undefined);
  if (r.warm && !v.stdin) {
    const key = `grep\0${paths.db}`;
    const g = await r.warm.use(key, indexFiles(paths), open);
    try {
      return await runGrep(g, rest.join(' '), o, !!v.json, !!v.quiet, r.io);
    } catch (e) {
      r.warm.discard(key);
      throw e;
    }
  }
  const g = await open();
  try {
    if (!v.stdin) return await runGrep(g, rest.join(' '), o, !!v.json, !!v.quiet, r.io);
    const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
    try {
      return await runGrepLines(g, rl, o, r.io);
    } finally {
      rl.close();
      process.stdin.destroy();
    }
  } finally {
    await g.close().catch(() => undefined);
  }
}

async function main(argv: string[], r: RunState): Promise<number> {
  const { io } = r;
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    throw new CliError(`${(e as Error).message}; see \`sift --help\``, 2);
  }
  const { values: v, positionals } = parsed;
  const [cmd, dirArg, ...rest] = positionals;
  if (v.help || !cmd || cmd === 'help') {
    io.out(USAGE);
    return cmd || v.help ? 0 : 2;
  }
  switch (cmd) {
    case 'index':
    case 'rebuild': {
      const dir = folder(dirArg);
      const paths = indexPaths(dir, v.db);
      r.index = paths;
      const o = { ...indexOptions(v), io };
      const lock = await writerLock(paths, o.quiet, io, r.warm !== null);
      trace('writer lock taken');
      try {
        return cmd === 'rebuild' ? await rebuild(dir, paths, o) : await indexInPlace(dir, paths, o, !!r.smallFolder);
      } finally {
        lock.release();
      }
    }
    case 'search': {
      const dir = folder(dirArg);
      const paths: IndexPaths = indexPaths(dir, v.db);
      if (v.mode === 'exact' || v.mode === 'regex') return grepCommand(dir, paths, v, rest, r); // issue 11
      r.index = paths;
      const opts = searchOptions(v);
      const query = rest.join(' ');
      if (!v.stdin && !query.trim()) throw new CliError('missing "<query>"; see `sift --help`', 2);
      // Loaded by this command only (its ranking, embedder and vector modules), beside the
      // index's open, as `index` loads cmd-index: other commands do not parse them.
      const loading = import('./cmd-search.ts');
      const open = async (): Promise<{ prepared: PreparedSearch; ino: number; close(): Promise<void> }> => {
        const [ctx, { runSearch }] = await Promise.all([openExistingIndex(dir, paths), loading]);
        trace('index opened');
        const ino = statSync(paths.db).ino;
        const prepared = await runSearch.prepare(ctx, { modelDir: v.model, mode: opts.mode });
        trace('search prepared');
        return { prepared, ino, close: () => prepared.close() };
      };
      // A kept-open search (warm server) is per index, model and whether the vector leg is loaded.
      const key = `search\0${paths.db}\0${v.model ? resolve(v.model) : ''}\0${opts.mode === 'bm25' ? 'bm25' : 'vectors'}`;
      const warm = v.stdin ? null : r.warm;
      let cur = warm ? await warm.use(key, indexFiles(paths), open) : await open();
      const { formatSearchJson, formatSearchHuman } = await loading;
      // Said on every run, the kept-open ones too: the note, and a vector leg that fails now.
      const announce = (prepared: PreparedSearch): void => {
        prepared.onFault = v.quiet ? null : (line) => {
          warm?.discard(key); // a fresh open would try the vector leg again (and say so again)
          io.err(`sift: ${safeText(line)}\n`);
        };
        if (prepared.note && !v.json && !v.stdin && !v.quiet) io.err(`sift: ${safeText(prepared.note)}\n`);
      };
      announce(cur.prepared);
      try {
        if (v.stdin) {
          const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
          try {
            for await (const line of rl) {
              if (!line.trim()) continue;
              // `sift rebuild` swaps in a new file: a long-lived reader follows it.
              if (indexReplaced(paths.db, cur.ino)) {
                await cur.prepared.close();
                cur = await open();
                announce(cur.prepared);
              }
              const res = await cur.prepared.search(line, opts);
              io.out(JSON.stringify(formatSearchJson(res, !!v.explain)) + '\n');
            }
          } finally {
            // After a fatal error, stop reading: waiting for stdin to close would hang the caller.
            rl.close();
            process.stdin.destroy();
          }
          return 0;
        }
        const res = await cur.prepared.search(query, opts);
        trace('searched');
        io.out(v.json ? JSON.stringify(formatSearchJson(res, !!v.explain), null, 2) + '\n' : formatSearchHuman(res, !!v.explain));
        return 0;
      } catch (e) {
        warm?.discard(key);
        throw e;
      } finally {
        if (!warm) await cur.prepared.close().catch(() => undefined);
      }
    }
    case 'stats': {
      const dir = folder(dirArg);
      const ctx = await openExistingIndex(dir, (r.index = indexPaths(dir, v.db)));
      return runStats(ctx, !!v.json, io);
    }
    case 'types': {
      const dir = folder(dirArg);
      const ctx = await openExistingIndex(dir, (r.index = indexPaths(dir, v.db)));
      return runTypes(ctx, !!v.json, io);
    }
    case 'check': {
      const dir = folder(dirArg);
      const ctx = await openExistingIndex(dir, (r.index = indexPaths(dir, v.db)));
      return runCheck(ctx, !!v.json, io);
    }
    case 'publish': {
      // issue 27: loaded by this command only.
      const dir = folder(dirArg);
      if (rest.length) throw new CliError(`unexpected argument "${rest[0]}"; see \`sift --help\``, 2);
      if (v.embed && v['no-embed']) throw new CliError('--embed and --no-embed contradict each other; see `sift --help`', 2);
      const { preparePublish, runPublish } = await import('./cmd-publish.ts');
      const p: PublishOptions = preparePublish(dir, { out: v.out, name: v.name, pageSize: v['page-size'], prune: !!v.prune });
      const paths = indexPaths(dir, v.db);
      r.index = paths;
      const o = { ...indexOptions(v), io, embed: !!v.embed, embedOff: 'not asked for (sift publish --embed embeds)' };
      const lock = await writerLock(paths, o.quiet, io);
      try {
        const ctx = await openIndex(paths);
        await checkBeforeWrite(ctx, o.verify);
        // The lock is released as soon as the pack's copy of the index is taken.
        return await runPublish(dir, ctx.store, paths, o, p, () => lock.release());
      } finally {
        lock.release();
      }
    }
    case 'mcp': {
      // issue 26: loaded by this command only (the MCP SDK is not part of other starts).
      const dirs = [dirArg, ...rest].filter((d): d is string => d !== undefined);
      const folders = (dirs.length ? dirs : ['.']).map(folder);
      const o = {
        db: v.db, maxFileSize: num(v['max-file-size'], 'max-file-size'), ignore: [...(v.ignore ?? []), ...(v.exclude ?? [])],
        include: v.include, watch: !v['no-watch'], quiet: !!v.quiet, model: v.model,
      };
      // While the MCP chunk loads, on other threads: SQLite's WebAssembly compiles, and a folder
      // without an index is walked and read for the first search (mcp-first-scan.ts).
      nodeRuntime().catch(() => undefined);
      const { FirstScan, firstScanPays, WANTED_SCAN_BYTES } = await import('./mcp-first-scan.ts');
      const walk = { maxFileSize: o.maxFileSize, extraIgnore: o.ignore, include: o.include };
      const scan = firstScanPays();
      const firstScans = folders.map((d) => (!scan || existsSync(indexPaths(d, o.db).db) ? null : new FirstScan({ root: d, walk, maxBytes: WANTED_SCAN_BYTES })));
      const { runMcp } = await import('./mcp.ts');
      return runMcp(folders, { ...o, firstScans });
    }
    case 'serve': {
      // The warm server (serve.ts); --status and --stop ask the one running for this home.
      if (dirArg) throw new CliError(`unexpected argument "${dirArg}"; see \`sift --help\``, 2);
      if (v.status || v.stop) {
        const { askServer } = await import('./serve-client.ts');
        const s = await askServer(v.stop ? 'stop' : 'status');
        if (v.json) io.out(JSON.stringify(s ? { running: true, stopping: !!v.stop, ...s } : { running: false }, null, 2) + '\n');
        else if (!s) io.out('no sift server is running for this home\n');
        else if (v.stop) io.out(`stopping the sift server (pid ${s.pid}) after its last command\n`);
        else io.out(`sift server pid ${s.pid} on ${s.socket}: since ${s.startedAt}, ${s.commands} commands, ${s.indexes.open} indexes open (${s.indexes.opened} opens, ${s.indexes.reused} reuses); exits after ${s.idleExitS} s idle\n`);
        return 0;
      }
      const { runServe } = await import('./serve.ts');
      return runServe(run, io);
    }
    default:
      throw new CliError(`unknown command "${cmd}"; see \`sift --help\``, 2);
  }
}

/** Runs one command line; returns its exit code. Every failure is one line on `inv.io`'s stderr. */
export async function run(argv: string[], inv: Partial<Invocation> = {}): Promise<number> {
  const r: RunState = { io: inv.io ?? processIo, warm: inv.warm ?? null, smallFolder: inv.smallFolder, index: null };
  try {
    const code = await main(argv, r);
    trace('command done');
    return code;
  } catch (e) {
    if (e instanceof RunInClient) throw e;
    const err = describeFailure(e, r.index);
    r.io.err(`sift: ${safeText(err.message)}\n`);
    if (process.env.SIFT_DEBUG) r.io.err(`${inspect(e)}\n`);
    return err.exitCode;
  }
}
