/**
 * `sift publish <dir> --out FOLDER` (issue 27): bring the index of <dir> up to date exactly as
 * `sift index` does, then write a read-only copy laid out for reading over HTTP byte ranges —
 * a "pack" — and its manifest `sift-index.json` (store/pack.ts is the contract).
 *
 * The pack is the index made smaller and denser: copied with VACUUM INTO (a consistent
 * snapshot, taken under the writer lock), then on the copy the keyword and trigram indexes are
 * merged into one segment (fewer reads per term), the per-chunk embedding cache and the
 * machine-local meta keys are dropped, and a last VACUUM INTO writes it with `--page-size`
 * pages, no auto-vacuum pointer maps and no free pages. It is checked (PRAGMA integrity_check,
 * the FTS5 integrity-check and Store.integrityCheck's own invariants); then a copy of the pages
 * every search reads (the layout's list: b-tree interiors, the keyword index's small tables) is
 * appended after the database, so a reader opens it with one range (SQLite ignores bytes past
 * the pages its header counts); then it is hashed and renamed to its content-addressed name.
 *
 * Invariants:
 * - The manifest is written last, atomically (temp file, fsync, rename): a reader never sees a
 *   manifest that names a pack which is not complete. A pack, once named, never changes.
 * - Older packs in --out stay (an open session may still read them) unless `--prune`, which
 *   keeps the new pack and the one the previous manifest named.
 * - Temp files are `.sift-publish-<pid>-…` in --out; a failed publish removes its own, and a
 *   later one removes those of processes that are gone.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, freeBytes, safeText, type IndexPaths } from './context.ts';
import { fsyncDir, fsyncFile } from './durable.ts';
import { updateIndex, type IndexCliOptions, type IndexReport } from './cmd-index.ts';
import { openNodePack, openNodeStore } from '../core/store/open-node.ts';
import { classify, EXIT_CODE, formatBytes } from '../core/store/errors.ts';
import { PACK_VECTOR_LISTS } from '../core/vector/pack-vectors.ts';
import { META } from '../core/store/meta.ts';
import { SCHEMA_VERSION } from '../core/store/schema.ts';
import { PACK_EXTENSION, PACK_FORMAT, PACK_MANIFEST_NAME, PAGE_HASH_BYTES, packFileName, parsePackManifest, type PackEmbeddings, type PackLayout, type PackManifest } from '../core/store/pack.ts';
import type { Store } from '../core/store/store.ts';
import { leafOfRowid, pageRuns, treeShape } from '../core/store/btree.ts';

/**
 * Default page size of a pack, chosen by what a keyword query reads over HTTP (docs/cli.md
 * "sift publish", kernel subset, 50 ms per request): a query's ~100 candidate rows land on
 * ~35–60 scattered leaves whatever the size, and the reader fetches them (and the doclists,
 * and the files' text) ahead, several at once, so smaller pages cost few extra round trips and
 * read far fewer bytes — p50 0.65 MB a query at 4 KB, 0.9 MB at 8 KB, 1.8 MB at 64 KB; only a
 * host that answers one range per request over HTTP/1.1 pays for it in time (+5–10% against
 * 8 KB). The pack's size barely changes; the page hashes (8 bytes a page) are in the pack.
 */
export const DEFAULT_PACK_PAGE_SIZE = 4096;


/** Meta keys that describe the publishing machine, not the index: not part of a pack. */
const LOCAL_META = [META.skippedFiles, META.modelSpec, META.vectorsStamp] as const;

/** Temp files of a publish in --out: `.sift-publish-<pid>-<random>.<stage>`. */
const TEMP_PREFIX = '.sift-publish-';

export interface PublishOptions {
  /** Absolute --out folder (created when missing). */
  out: string;
  /** Codebase name in the manifest and the pack's file name. */
  name: string;
  pageSize: number;
  prune: boolean;
  /** Gitignore patterns that keep --out itself out of the index when it lies inside <dir>. */
  excludeOut: string[];
}

/** Escape gitignore's special characters in a literal path. */
function gitignoreLiteral(p: string): string {
  return p.replace(/[\\*?[\]!#]/g, '\\$&').replace(/ $/, '\\ ');
}

/** Check the arguments before anything is indexed: every problem is a usage error (exit 2). */
export function preparePublish(dir: string, a: { out?: string; name?: string; pageSize?: string; prune: boolean }): PublishOptions {
  if (!a.out) throw new CliError('missing --out FOLDER (where the pack and sift-index.json are written); see `sift --help`', 2);
  const out = resolve(a.out);
  if (existsSync(out) && !statSync(out).isDirectory()) throw new CliError(`--out is not a folder: ${a.out}`, 2);
  if (out === dir) throw new CliError(`--out must not be the published folder itself (${a.out}); use a folder beside it or inside it`, 2);
  let pageSize = DEFAULT_PACK_PAGE_SIZE;
  if (a.pageSize !== undefined) {
    pageSize = Number(a.pageSize);
    if (!Number.isInteger(pageSize) || pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
      throw new CliError(`--page-size must be a power of two from 512 to 65536, got "${a.pageSize}"`, 2);
    }
  }
  const name = (a.name ?? basename(dir)).trim();
  // eslint-disable-next-line no-control-regex
  if (!name || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name)) throw new CliError(`--name must be 1 to 200 printable characters, got ${JSON.stringify(a.name ?? name)}`, 2);
  const rel = relative(dir, out);
  const inside = rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel);
  return { out, name, pageSize, prune: a.prune, excludeOut: inside ? [`/${gitignoreLiteral(rel.split(sep).join('/'))}/`] : [] };
}

/** This Sift's version (package.json beside src/ or dist-cli/). */
function siftVersion(): string {
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, d = dirname(d)) {
    try {
      const pkg = JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'sift' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: one folder up
    }
  }
  return '';
}

/** `git -C dir rev-parse HEAD` (no shell), or null when <dir> is not in a git work tree or git is missing. */
function gitCommit(dir: string): Promise<string | null> {
  return new Promise((done) => {
    execFile('git', ['-C', dir, 'rev-parse', '--verify', '-q', 'HEAD'], { timeout: 10_000, windowsHide: true }, (err, stdout) => {
      const sha = String(stdout ?? '').trim();
      done(!err && /^[0-9a-f]{40,64}$/.test(sha) ? sha : null);
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remove temp files that publishes which are no longer running left in `out`. */
function removeStaleTemps(out: string): void {
  for (const f of readdirSync(out)) {
    const m = f.startsWith(TEMP_PREFIX) ? /^\.sift-publish-(\d+)-/.exec(f) : /^\.sift-index\.json\.(\d+)\.tmp$/.exec(f);
    if (m && Number(m[1]) !== process.pid && !alive(Number(m[1]))) rmSync(join(out, f), { force: true });
  }
}

/** The previous manifest's pack name, when there is a readable manifest. */
function previousPack(out: string): string | null {
  try {
    return parsePackManifest(readFileSync(join(out, PACK_MANIFEST_NAME), 'utf8'), SCHEMA_VERSION).pack;
  } catch {
    // None, or one this version cannot read (an older schema): its pack name, if it names one.
    try {
      const pack = (JSON.parse(readFileSync(join(out, PACK_MANIFEST_NAME), 'utf8')) as { pack?: unknown }).pack;
      return typeof pack === 'string' && pack.endsWith(PACK_EXTENSION) && !pack.includes('/') ? pack : null;
    } catch {
      return null;
    }
  }
}

/**
 * One pass over the database in `file`: the first PAGE_HASH_BYTES of each page's SHA-256, in
 * page order, and the SHA-256 of the whole file so far (appendCopy goes on feeding it).
 */
function hashDatabase(file: string, pageSize: number): { pageHashes: Buffer; whole: Hash } {
  const whole = createHash('sha256');
  const pages: Buffer[] = [];
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(Math.max(pageSize, 1 << 20) - (Math.max(pageSize, 1 << 20) % pageSize));
  try {
    for (;;) {
      let n = 0;
      while (n < buf.length) {
        const r = readSync(fd, buf, n, buf.length - n, null);
        if (r === 0) break;
        n += r;
      }
      if (n === 0) break;
      const part = buf.subarray(0, n);
      whole.update(part);
      for (let p = 0; p < n; p += pageSize) pages.push(createHash('sha256').update(part.subarray(p, p + pageSize)).digest().subarray(0, PAGE_HASH_BYTES));
      if (n < buf.length) break;
    }
  } finally {
    closeSync(fd);
  }
  return { pageHashes: Buffer.concat(pages), whole };
}

/** Tables read whole by keyword searches (bm25 reads every match's column sizes; FTS5's structure). */
const PREFETCH_WHOLE = ['chunks_fts_docsize', 'chunks_fts_config', 'chunks_fts_idx', 'sqlite_autoindex_file_text_1'];
/** Tables whose rows a search fetches by rowid (the reader maps candidate ids to leaf pages; a semantic query's cells too). */
const ROWID_TABLES = ['chunks', 'file_text', 'chunks_fts_data', PACK_VECTOR_LISTS];
/**
 * Leaves every first search reads, by rowid: FTS5's averages and structure records (rowids 1
 * and 10 of its %_data) and the last row of `chunks` (bm25's `max(id)`).
 */
const FIRST_READS: Record<string, number[]> = { chunks_fts_data: [1, 10], chunks: [Number.MAX_SAFE_INTEGER] };

/**
 * The pack's layout for readers (store/pack.ts PackLayout): interior pages of every b-tree and
 * the leaves of the small tables every keyword search reads, and the roots of rowid tables.
 */
function packLayout(packPath: string, pageSize: number, roots: Array<{ name: string; rootpage: number }>): PackLayout {
  const fd = openSync(packPath, 'r');
  try {
    const pageCount = fstatSync(fd).size / pageSize;
    const page = (n: number): Uint8Array => {
      const b = Buffer.alloc(pageSize);
      readSync(fd, b, 0, pageSize, (n - 1) * pageSize);
      return b;
    };
    const pages: number[] = [1];
    for (const r of roots) {
      const whole = PREFETCH_WHOLE.includes(r.name);
      const shape = treeShape(r.rootpage, page, pageCount, whole);
      pages.push(...shape.interior, ...shape.leaves, r.rootpage);
      for (const id of FIRST_READS[r.name] ?? []) {
        const leaf = leafOfRowid(r.rootpage, id, page, pageCount);
        if (leaf !== null) pages.push(leaf);
      }
    }
    const tables: Record<string, number> = {};
    for (const r of roots) if (ROWID_TABLES.includes(r.name)) tables[r.name] = r.rootpage;
    return { prefetch: pageRuns(pages), tables };
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends `hashes` (zero-padded to whole pages) and then a copy of the pages in `runs` (1-based
 * `[first, count]`), in that order, after the database in `file`, feeding every byte written to
 * `whole`; returns where they start (the database's size) and the file's size after. SQLite
 * reads only the pages its header counts, so the file is still the same database to it.
 */
function appendCopy(file: string, pageSize: number, hashes: Buffer, runs: ReadonlyArray<readonly [number, number]>, whole: Hash): { head: number; bytes: number } {
  const fd = openSync(file, 'r+');
  try {
    const head = fstatSync(fd).size;
    let to = head;
    const append = (b: Buffer) => {
      writeSync(fd, b, 0, b.length, to);
      whole.update(b);
      to += b.length;
    };
    const padded = Buffer.alloc(Math.ceil(hashes.length / pageSize) * pageSize);
    hashes.copy(padded);
    append(padded);
    for (const [first, n] of runs) {
      const b = Buffer.alloc(n * pageSize);
      if (readSync(fd, b, 0, b.length, (first - 1) * pageSize) !== b.length) throw new CliError(`the pack ended before page ${first + n - 1}; nothing was published`, 1);
      append(b);
    }
    return { head, bytes: to };
  } finally {
    closeSync(fd);
  }
}

interface Timings {
  index: number;
  copy: number;
  prepare: number;
  vectors: number;
  vacuum: number;
  check: number;
  hash: number;
  total: number;
}

/** The pack's embeddings: partitioned vectors written into the copy (issue 27). */
async function writeEmbeddings(copy: Store, report: IndexReport): Promise<PackEmbeddings> {
  if ('skipped' in report.embedding) {
    throw new CliError(`--embed: no embeddings were computed (${report.embedding.skipped}); the index is up to date, nothing was published`, 1);
  }
  const model = await copy.getMeta(META.modelKey);
  if (!model) throw new CliError('--embed: the index records no embedding model; nothing was published', 1);
  const { ids, vectors, dim } = await copy.loadVectors(model);
  if (!ids.length) throw new CliError(`--embed: the index has no embeddings for ${model}; nothing was published`, 1);
  // Stored vectors are int8 codes with a scale: unit length again before k-means.
  for (let r = 0; r < ids.length; r++) {
    const row = vectors.subarray(r * dim, (r + 1) * dim);
    let norm = 0;
    for (let i = 0; i < dim; i++) norm += row[i] * row[i];
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < dim; i++) row[i] *= inv;
    }
  }
  const [{ buildPartitions }, { writePackVectors }] = await Promise.all([import('../core/vector/partitioned.ts'), import('../core/vector/pack-vectors.ts')]);
  const parts = buildPartitions(ids, vectors, dim);
  await copy.db.transaction((tx) => writePackVectors(tx, parts));
  return { model, dim, vectors: ids.length, partitions: parts.cells.length };
}

/**
 * Update the index (under the writer lock, which `releaseLock` gives back once the pack's
 * snapshot is taken), write the pack and the manifest, print the summary. Closes `store`.
 */
export async function runPublish(dir: string, store: Store, paths: IndexPaths, o: IndexCliOptions, p: PublishOptions, releaseLock: () => void): Promise<number> {
  const t0 = performance.now();
  const tty = process.stderr.isTTY && !o.quiet;
  const show = (line: string): void => {
    if (tty) process.stderr.write(`\r\x1b[K${line}`);
  };
  const timings: Timings = { index: 0, copy: 0, prepare: 0, vectors: 0, vacuum: 0, check: 0, hash: 0, total: 0 };
  let mark = performance.now();
  const lap = (k: keyof Timings): void => {
    const now = performance.now();
    timings[k] += Math.round(now - mark);
    mark = now;
  };

  let report: IndexReport;
  try {
    report = await updateIndex(dir, store, paths, { ...o, ignore: [...(o.ignore ?? []), ...p.excludeOut] });
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
  lap('index');

  try {
    mkdirSync(p.out, { recursive: true });
  } catch (e) {
    await store.close().catch(() => undefined);
    throw new CliError(`cannot create --out ${p.out} (${(e as Error).message}); the index is up to date, nothing was published`, 1);
  }
  removeStaleTemps(p.out);
  const stem = join(p.out, `${TEMP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  const copyFile = `${stem}.copy`;
  const packTemp = `${stem}.pack`;
  const manifestTemp = join(p.out, `${PACK_MANIFEST_NAME}.${process.pid}.tmp`);
  const temps = [copyFile, `${copyFile}-journal`, packTemp, `${packTemp}-journal`, manifestTemp];
  const cleanUp = (): void => {
    for (const f of temps) rmSync(f, { force: true });
  };
  const previous = previousPack(p.out);

  let manifest: PackManifest;
  let packPath: string;
  let reused = false;
  let roots: Array<{ name: string; rootpage: number }> = [];
  try {
    // 1. A consistent snapshot of the index, taken while this process still holds the writer lock.
    show('publish: copying the index');
    try {
      await store.db.run('VACUUM INTO ?', [copyFile]);
    } finally {
      await store.close().catch(() => undefined);
      releaseLock();
    }
    lap('copy');

    // 2. On the copy: what a reader needs, merged, and nothing else.
    show('publish: preparing the pack');
    const copy = await openNodeStore(copyFile, { existing: true, busyTimeoutMs: 0 });
    let stats;
    let textFiles: number;
    let embeddings: PackEmbeddings | null = null;
    try {
      stats = await copy.stats();
      textFiles = await copy.fileTextCount();
      lap('prepare');
      if (o.embed) {
        show('publish: partitioning the vectors');
        embeddings = await writeEmbeddings(copy, report);
        lap('vectors');
      }
      await copy.db.transaction(async (tx) => {
        await tx.run('DELETE FROM embeddings');
        await tx.run(`DELETE FROM meta WHERE key IN (${LOCAL_META.map(() => '?').join(', ')})`, [...LOCAL_META]);
        // Without vectors a model key would only promise a semantic leg the pack cannot give.
        if (!embeddings) await tx.run('DELETE FROM meta WHERE key = ?', [META.modelKey]);
        await tx.run('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [META.codebaseName, p.name]);
        await tx.run('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [META.runState, 'complete']);
      });
      // One FTS segment (and merged trigram postings): a term costs one b-tree descent, not one per segment.
      await copy.optimizeFts();
      lap('prepare');
      // 3. Rewrite with the pack's page size, no pointer-map pages, no free pages. VACUUM INTO
      // streams into a new file (an in-place VACUUM would build the copy in memory: temp_store = MEMORY).
      show(`publish: writing ${p.pageSize}-byte pages`);
      await copy.db.exec(`PRAGMA page_size = ${p.pageSize}; PRAGMA auto_vacuum = NONE;`);
      await copy.db.run('VACUUM INTO ?', [packTemp]);
      lap('vacuum');
    } finally {
      await copy.close().catch(() => undefined);
    }
    rmSync(copyFile, { force: true });

    // 4. Check what was written.
    show('publish: checking the pack');
    const pack = await openNodeStore(packTemp, { existing: true, busyTimeoutMs: 0 });
    try {
      const pragma = async <T>(sql: string, col: string): Promise<T | undefined> => (await pack.db.get<Record<string, T>>(sql))?.[col];
      const pageSize = await pragma<number>('PRAGMA page_size', 'page_size');
      if (pageSize !== p.pageSize) throw new CliError(`the pack was written with ${pageSize}-byte pages, not ${p.pageSize} (SQLite kept the old page size); nothing was published`, 1);
      const autoVacuum = await pragma<number>('PRAGMA auto_vacuum', 'auto_vacuum');
      if (autoVacuum !== 0) throw new CliError(`the pack kept auto_vacuum = ${autoVacuum}; nothing was published`, 1);
      const journal = await pragma<string>('PRAGMA journal_mode = DELETE', 'journal_mode');
      if (journal !== 'delete') throw new CliError(`the pack's journal mode is ${journal}, not delete; nothing was published`, 1);
      const problems = await pack.integrityCheck();
      if (problems !== 'ok') throw new CliError(`the pack failed its integrity check (${problems.split('\n').slice(0, 3).join('; ')}); nothing was published — run \`sift check ${dir}\``, 1);
      const chunks = await pack.chunkCount();
      if (chunks !== stats.chunks) throw new CliError(`the pack holds ${chunks} chunks, the index ${stats.chunks}; nothing was published`, 1);
      roots = await pack.db.all<{ name: string; rootpage: number }>('SELECT name, rootpage FROM sqlite_schema WHERE rootpage > 0');
    } finally {
      await pack.close().catch(() => undefined);
    }
    lap('check');

    // 5. The layout; after the database, its page hashes and a copy of the pages the layout
    // lists (a reader fetches both as one range when it opens the pack).
    show('publish: hashing');
    const layout = packLayout(packTemp, p.pageSize, roots);
    const { pageHashes, whole } = hashDatabase(packTemp, p.pageSize);
    layout.hashes = createHash('sha256').update(pageHashes).digest('hex');
    const appended = appendCopy(packTemp, p.pageSize, pageHashes, layout.prefetch, whole);
    layout.head = appended.head;
    const hashed = { sha256: whole.digest('hex'), bytes: appended.bytes };
    lap('hash');

    // 6. Name it by its hash and move it into place (a pack with that name already there has these bytes).
    const packName = packFileName(p.name, hashed.sha256);
    packPath = join(p.out, packName);
    if (existsSync(packPath) && statSync(packPath).size === hashed.bytes) {
      reused = true;
      rmSync(packTemp, { force: true });
    } else {
      fsyncFile(packTemp);
      chmodSync(packTemp, 0o444);
      renameSync(packTemp, packPath);
      fsyncDir(p.out);
    }
    // The pack as a reader opens it: read-only, at this schema version, the copy after it ignored.
    const check = await openNodePack(packPath, { chunks: stats.chunks });
    try {
      const files = (await check.db.get<{ n: number }>('SELECT count(*) AS n FROM files'))?.n ?? -1;
      if (files !== stats.files) throw new CliError(`the pack at ${packPath} reads back ${files} files, not ${stats.files}`, 1);
    } finally {
      await check.close().catch(() => undefined);
    }

    // 7. The manifest, last and atomically.
    manifest = {
      format: PACK_FORMAT,
      name: p.name,
      commit: await gitCommit(dir),
      created: new Date().toISOString(),
      pack: packName,
      bytes: hashed.bytes,
      sha256: hashed.sha256,
      pageSize: p.pageSize,
      schemaVersion: SCHEMA_VERSION,
      files: stats.files,
      chunks: stats.chunks,
      sourceBytes: stats.bytes,
      contains: { keyword: true, text: textFiles > 0, definitions: stats.symbols > 0, embeddings },
      stats: { languages: stats.languages, kinds: stats.kinds, chunkTypes: stats.chunkTypes, symbols: stats.symbols, skipped: stats.skipped },
      layout,
      sift: siftVersion(),
    };
    const text = JSON.stringify(manifest, null, 2) + '\n';
    parsePackManifest(text, SCHEMA_VERSION); // what a reader will accept, or a clear error here
    writeFileSync(manifestTemp, text);
    fsyncFile(manifestTemp);
    renameSync(manifestTemp, join(p.out, PACK_MANIFEST_NAME));
    fsyncDir(p.out);
  } catch (e) {
    cleanUp();
    if (classify(e).kind === 'storage-full') {
      const free = freeBytes(join(p.out, 'x'));
      throw new CliError(`no space left in ${p.out}${free !== null ? ` (${formatBytes(free)} free)` : ''}: a pack needs about twice the index's size while it is written; the index is up to date, nothing was published`, EXIT_CODE['storage-full']);
    }
    throw e;
  }

  // 7. Older packs: kept (an open session may read them) unless --prune.
  const keep = new Set([manifest.pack, previous]);
  const older = readdirSync(p.out).filter((f) => f.endsWith(PACK_EXTENSION) && f !== manifest.pack).sort();
  const pruned: string[] = [];
  if (p.prune) {
    for (const f of older) {
      if (keep.has(f)) continue;
      rmSync(join(p.out, f), { force: true });
      pruned.push(f);
    }
  }
  const kept = older.filter((f) => !pruned.includes(f));
  timings.total = Math.round(performance.now() - t0);
  if (tty) process.stderr.write('\r\x1b[K');

  const manifestPath = join(p.out, PACK_MANIFEST_NAME);
  if (o.json) {
    process.stdout.write(JSON.stringify({
      manifest_path: manifestPath, pack_path: packPath, reused, manifest,
      older_packs: kept, previous_pack: previous && previous !== manifest.pack ? previous : null, pruned,
      timings, index: report.json,
    }, null, 2) + '\n');
  } else if (!o.quiet) {
    const e = manifest.contains.embeddings;
    const lines = [
      ...report.lines,
      `pack: ${packPath}${reused ? ' (unchanged, already there)' : ''}`,
      `  ${formatBytes(manifest.bytes)}, ${manifest.files} files, ${manifest.chunks} chunks, page size ${manifest.pageSize}, ` +
        (e ? `embeddings: ${e.vectors} vectors of ${e.model} in ${e.partitions} partition${e.partitions === 1 ? '' : 's'}` : 'no embeddings (--embed adds them)') +
        (manifest.commit ? `, commit ${manifest.commit.slice(0, 12)}` : ''),
      `manifest: ${manifestPath}`,
    ];
    if (pruned.length) lines.push(`pruned: ${pruned.join(', ')}`);
    if (kept.length) lines.push(`older packs kept: ${kept.map((f) => (f === previous ? `${f} (the previous manifest's)` : f)).join(', ')}${p.prune ? '' : ' — --prune deletes all but the new pack and the previous manifest\'s'}`);
    lines.push(`published in ${(timings.total / 1000).toFixed(2)}s`);
    process.stdout.write(lines.map(safeText).join('\n') + '\n');
  }
  return 0;
}
