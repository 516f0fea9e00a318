/**
 * The agent tools over Sift's core (issue 26): argument checks (args.ts), the work (Searcher,
 * grep, the Store), budgets and cursors (budget.ts) and the text rendering (render.ts), behind
 * one call: `callTool(host, name, args)`. Two adapters call it — the CLI's MCP server and the
 * app's store worker (WebMCP) — each giving a ToolHost over its open codebases.
 *
 * Invariants:
 * - Never throws: a bad argument, an invalid regex, an unknown or outside path is an answer with
 *   `isError` and a message that says what to do; any other failure is an error answer too.
 * - Every answer that is not an error fits its max_tokens (budget.ts answerTokens), and counts
 *   come first: what exists, then what is shown.
 * - Degrades in order: whole snippets (lines with text), then signatures and best lines, then
 *   locations only; the cursor continues after the last entry shown WITH text, so an entry
 *   shown only as a location comes again, with its text, on the next page.
 * - `read` and `symbols` serve only files the index holds, by a path relative to the root
 *   (args.ts relativePath): text comes from the index — or, while an adapter's codebase says
 *   `filesComplete` (the CLI during a first index), from its store's view of every file the
 *   index will hold, which reads the files not stored yet from disk (src/cli/mcp-disk.ts).
 */
import type { ChunkType, FileRecord, SearchMode, SearchOptions, SearchResponse, SearchResult, StoredChunk } from '../types.ts';
import { familyOfKey } from '../embed/model-files.ts';
import type { Queryable } from '../store/sqlite.ts';
import type { IndexStats } from '../store/store.ts';
import { addAsRegex, asRegexText, grep, grepAsRegex, GrepPatternError, type AsRegex, type GrepLine, type GrepRequest, type GrepStore, type TextCache } from '../search/grep.ts';
import { mergeRanked } from '../search/results.ts';
import {
  parseGrepArgs, parseReadArgs, parseSearchArgs, parseStatusArgs, parseSymbolsArgs, relativePath, ToolInputError,
  type GrepArgs, type ReadArgs, type SearchArgs, type StatusArgs, type SymbolsArgs,
} from './args.ts';
import { MAX_LINE_CHARS, MAX_TOOL_SEARCH_LIMIT, TOOL_NAMES, type ToolName } from './contract.ts';
import {
  answerTokens, decodeCursor, encodeCursor, fingerprint, jsonStringWeight, jsonWeight, resultEnvelope, tokensOfWeight, weightBudget,
} from './budget.ts';
import { FILE_KINDS, parseIntent, type FileKind, type SearchIntent } from '../text/file-kind.ts';
import { escapeRegExp } from '../text/regexp.ts';
import * as render from './render.ts';
import { declarationOf, definitionEnd, ownEnd, type Declared } from './declarations.ts';

/** What the tools need of one codebase's store (Store satisfies it). */
export interface ToolStore extends GrepStore {
  readonly db: Queryable;
  getFile(path: string): Promise<FileRecord | null>;
  getFileText(path: string): Promise<string | null>;
  getFileChunks(path: string): Promise<StoredChunk[]>;
  getChunks(ids: number[], o?: { content?: boolean }): Promise<StoredChunk[]>;
  stats(): Promise<IndexStats>;
}

export interface ToolProgress {
  state: 'indexing' | 'ready' | 'error';
  /** Share of the codebase's files stored in the index (1 when complete). */
  indexedShare: number;
  error?: string | null;
  /**
   * While indexing: `store` serves every file the index will hold (the ones not stored yet
   * read from disk), so grep and read are complete; search and symbols still see the stored share.
   */
  filesComplete?: boolean;
}

/** One served codebase. */
export interface ToolCodebase {
  /** The name agents use (unique among the host's codebases). */
  readonly name: string;
  /** Its absolute folder, when the adapter has one (CLI); null in the browser. */
  readonly root: string | null;
  readonly store: ToolStore;
  readonly searcher: { search(query: string, o: SearchOptions): Promise<SearchResponse>; readonly hasVectors: boolean };
  /** File texts kept between grep calls (keyed by content hash, never stale). */
  readonly texts?: TextCache;
  /**
   * A shared index read over the network: grep reads files only until the lines a call asks
   * for are found (stopAtLimit), so its totals are lower bounds, said in a note.
   */
  readonly remote?: boolean;
  progress(): ToolProgress;
  /** Why semantic search is off (no embeddings, model missing or still loading), or null/absent. */
  readonly semanticNote?: string | null;
  /** What only the adapter knows, for `status`. */
  statusExtra?(): Promise<{ pendingChanges: number | null; skipped: Record<string, number>; notes?: string[] }>;
}

/** What a call looks for (ToolHost.beforeCall), from its raw arguments. */
export interface CallWants {
  /** Words: a search's query or a symbols call's name. */
  words: string | null;
  /** A file: a symbols call's outline. */
  path: string | null;
  /** A search's intent when the call gives one (else its words decide); a symbols call's: code. */
  intent: SearchIntent | null;
  /** The codebase the call names (its `codebase` argument), or null: every one. */
  codebase?: string | null;
}

export interface ToolHost {
  codebases(): readonly ToolCodebase[];
  /**
   * Bring the indexes up to date before a call (the adapter debounces it). Not called for `status`.
   * `wants`: what the call looks for, so an adapter still indexing can store the files that hold it
   * first: a search's query, a symbols call's name or file.
   */
  beforeCall?(tool: ToolName, wants: CallWants): Promise<void>;
}

export interface ToolAnswer {
  text: string;
  /** Conforms to the tool's outputSchema; null for an error. */
  structuredContent: Record<string, unknown> | null;
  isError: boolean;
}

/** Run one tool call. Never throws. */
export async function callTool(host: ToolHost, name: string, rawArgs: unknown): Promise<ToolAnswer> {
  try {
    if (!(TOOL_NAMES as readonly string[]).includes(name)) throw new ToolInputError(`unknown tool "${name}"; the tools are ${TOOL_NAMES.join(', ')}`);
    const tool = name as ToolName;
    if (rawArgs !== undefined && rawArgs !== null && (typeof rawArgs !== 'object' || Array.isArray(rawArgs))) throw new ToolInputError('arguments must be an object');
    const raw = (rawArgs ?? {}) as Record<string, unknown>;
    if (tool !== 'status') await host.beforeCall?.(tool, callWants(tool, raw));
    switch (tool) {
      case 'search':
        return await searchTool(host, parseSearchArgs(raw));
      case 'grep':
        return await grepTool(host, parseGrepArgs(raw));
      case 'read':
        return await readTool(host, parseReadArgs(raw));
      case 'symbols':
        return await symbolsTool(host, parseSymbolsArgs(raw));
      case 'status':
        return await statusTool(host, parseStatusArgs(raw));
    }
  } catch (e) {
    return errorAnswer(e);
  }
}

function callWants(tool: ToolName, raw: Record<string, unknown>): CallWants {
  const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);
  const codebase = str(raw.codebase);
  if (tool === 'search') return { words: str(raw.query), path: null, intent: typeof raw.intent === 'string' ? parseIntent(raw.intent) : null, codebase };
  if (tool === 'symbols') return { words: str(raw.name), path: str(raw.path), intent: 'code', codebase };
  return { words: null, path: null, intent: null, codebase };
}

/**
 * The codebases a call's `codebase` argument names (by name or root), or all of them when it
 * names none (or none served: the call itself then says so). ToolHost.beforeCall readies only these.
 */
export function codebasesNamed<C extends Pick<ToolCodebase, 'name' | 'root'>>(all: readonly C[], wanted: string | null | undefined): readonly C[] {
  if (wanted === null || wanted === undefined) return all;
  const hit = matching(all, wanted);
  return hit.length ? hit : all;
}

/** The codebases `wanted` names: by name, or by root (a trailing slash either way). */
function matching<C extends Pick<ToolCodebase, 'name' | 'root'>>(all: readonly C[], wanted: string): C[] {
  const w = wanted.trim().replace(/\/+$/, '');
  return all.filter((c) => c.name === w || (c.root !== null && c.root.replace(/\/+$/, '') === w));
}

export function errorAnswer(e: unknown): ToolAnswer {
  if (e instanceof ToolInputError) return { text: `error: ${e.message}`, structuredContent: null, isError: true };
  if (e instanceof GrepPatternError) return { text: `error: invalid pattern: ${e.message}${e.offset !== null && !/offset/.test(e.message) ? ` (at offset ${e.offset})` : ''}`, structuredContent: null, isError: true };
  const msg = e instanceof Error ? e.message : String(e);
  return { text: `error: ${msg.split('\n')[0]}`, structuredContent: null, isError: true };
}

// ---- shared helpers --------------------------------------------------------------------

function selectCodebases(host: ToolHost, wanted: string | null): readonly ToolCodebase[] {
  const all = host.codebases();
  if (all.length === 0) throw new ToolInputError('no codebase is being served');
  if (wanted === null) return all;
  const hit = matching(all, wanted);
  if (hit.length) return hit;
  throw new ToolInputError(`no codebase "${wanted}"; served: ${all.map((c) => c.name).join(', ')}`);
}

/**
 * The share of files indexed over the chosen codebases, and a note for each one still
 * indexing. `byText`: the tool reads file texts (grep, read), complete where `filesComplete`.
 */
function indexing(cbs: readonly ToolCodebase[], notes: string[], byText = false): number {
  let share = 1;
  for (const c of cbs) {
    const p = c.progress();
    share = Math.min(share, p.indexedShare);
    if (p.state === 'indexing') {
      const pct = Math.floor(p.indexedShare * 100);
      notes.push(byText && p.filesComplete
        ? `${c.name} is still being indexed (${pct}% of files stored): the files not stored yet were read from disk, so this answer covers every file`
        : `${c.name} is still being indexed (${pct}% of files stored): this answer covers the stored files only`);
    }
    if (p.state === 'error' && p.error) notes.push(`${c.name}: indexing failed (${p.error}); answers come from the index as it is`);
  }
  return Number(share.toFixed(4));
}

const LANGUAGE_ALIASES: Record<string, string> = {
  ts: 'typescript', js: 'javascript', py: 'python', rs: 'rust', golang: 'go', 'c++': 'cpp', cc: 'cpp', cs: 'csharp', 'c#': 'csharp',
  rb: 'ruby', kt: 'kotlin', md: 'markdown', sh: 'bash', shell: 'bash', yml: 'yaml',
};

async function indexedLanguages(cbs: readonly ToolCodebase[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const c of cbs) for (const r of await c.store.db.all<{ language: string }>('SELECT DISTINCT language FROM files')) out.add(r.language);
  return out;
}

/** Requested languages, aliases resolved; an unknown one is an error naming those indexed. */
async function checkLanguages(cbs: readonly ToolCodebase[], langs: string[] | null, complete: boolean): Promise<string[] | null> {
  if (!langs) return null;
  const have = await indexedLanguages(cbs);
  const out = langs.map((l) => (have.has(l) ? l : LANGUAGE_ALIASES[l] ?? l));
  const unknown = out.filter((l) => !have.has(l));
  if (unknown.length && complete) {
    throw new ToolInputError(`no indexed files of language ${unknown.map((l) => `"${l}"`).join(', ')}; indexed languages: ${[...have].filter(Boolean).sort().join(', ') || 'none'}`);
  }
  return out;
}

function offsetOf(cursor: string | null, fp: string): number {
  if (cursor === null) return 0;
  const c = decodeCursor(cursor, fp);
  if ('error' in c) throw new ToolInputError(c.error);
  return c.offset;
}

/**
 * One entry of a list answer at each detail level, best first; `text` is its text line(s)
 * (newline-terminated), `structured` its object in the list.
 */
interface Levels {
  levels: Array<{ structured: Record<string, unknown>; text: string; detail: number }>;
}

/** Weight an entry adds to the answer: its object in the array and its text. */
function entryWeight(e: { structured: Record<string, unknown>; text: string }): number {
  return jsonWeight(e.structured) + 1 + jsonStringWeight(e.text);
}

/** Share of a budget kept for the location entries that follow the entries with text. */
const LOCATION_RESERVE = 0.25;

/**
 * Fit entries into `budgetWeight`: in order, each at the highest detail that fits (never
 * higher than the entry before: snippets first, then signatures and best lines), keeping up to
 * LOCATION_RESERVE of the budget for the entries after them, which come as locations only
 * while they fit. Returns the chosen level per entry (its length: the entries shown).
 */
function fitEntries(entries: readonly Levels[], budgetWeight: number): number[] {
  const locWeight = (e: Levels) => entryWeight(e.levels[e.levels.length - 1]);
  const reserve = Math.min(entries.reduce((s, e) => s + locWeight(e), 0), budgetWeight * LOCATION_RESERVE);
  const chosen: number[] = [];
  let used = 0;
  let cap = 0;
  for (const e of entries) {
    const last = e.levels.length - 1;
    let picked = -1;
    for (let l = cap; l < last; l++) {
      const w = entryWeight(e.levels[l]);
      if (used + w <= budgetWeight - reserve) {
        picked = l;
        used += w;
        break;
      }
    }
    if (picked < 0) break;
    chosen.push(picked);
    cap = picked;
  }
  for (let i = chosen.length; i < entries.length; i++) {
    const w = locWeight(entries[i]);
    if (used + w > budgetWeight) break;
    used += w;
    chosen.push(entries[i].levels.length - 1);
  }
  return chosen;
}

/**
 * Assemble a list answer and make sure it fits: `build(n)` makes the answer with the first n
 * fitted entries; while it is over budget (estimates are per entry), drop the last entry.
 */
function finish(maxTokens: number, n: number, build: (n: number) => { text: string; structured: Record<string, unknown> }): ToolAnswer {
  for (let k = n; k >= 0; k--) {
    const a = build(k);
    if (answerTokens(a.text, a.structured) <= maxTokens) return { text: a.text, structuredContent: a.structured, isError: false };
  }
  const a = build(0);
  return { text: a.text, structuredContent: a.structured, isError: false };
}

/** Weight of the answer with no entries (plus room for a cursor). */
function baseWeight(text: string, structured: Record<string, unknown>): number {
  return jsonWeight(resultEnvelope(text, structured)) + 80;
}

function clipLine(s: string, around = 0, max = MAX_LINE_CHARS): { text: string; clipped: boolean } {
  if (s.length <= max) return { text: s, clipped: false };
  const start = Math.max(0, Math.min(around - Math.floor(max / 4), s.length - max));
  return { text: (start > 0 ? '…' : '') + s.slice(start, start + max) + (start + max < s.length ? '…' : ''), clipped: true };
}

// ---- search ----------------------------------------------------------------------------

type Tagged = SearchResult & { codebase: string };

async function searchTool(host: ToolHost, a: SearchArgs): Promise<ToolAnswer> {
  const cbs = selectCodebases(host, a.codebase);
  const notes = [...a.notes];
  const share = indexing(cbs, notes);
  const languages = await checkLanguages(cbs, a.languages, share >= 1);
  const fp = fingerprint('search', { q: a.query, m: a.mode, i: a.intent, l: languages, p: a.path, k: a.kind, n: a.limit, c: a.codebase });
  const offset = offsetOf(a.cursor, fp);

  const vectors = cbs.some((c) => c.searcher.hasVectors);
  let mode: SearchMode | undefined;
  if (a.mode === 'keyword') mode = 'bm25';
  else if (a.mode === 'semantic' || a.mode === 'hybrid') {
    if (vectors) mode = a.mode === 'semantic' ? 'vector' : 'hybrid';
    else {
      mode = 'bm25';
      const why = cbs.map((c) => c.semanticNote).find((n) => n) ?? 'no embeddings in this index; `sift index` with a model adds them';
      notes.push(`${a.mode} search is unavailable (${why}): keyword results instead`);
    }
  }
  const fetch = Math.min(MAX_TOOL_SEARCH_LIMIT, offset + a.limit + 1);
  // `kind` is a chunk kind (function, class, …) or a file kind (code, test, docs, …).
  const fileKind = a.kind && (FILE_KINDS as readonly string[]).includes(a.kind) ? (a.kind as FileKind) : null;
  const opts: SearchOptions = {
    limit: fetch, mode, languages: languages ?? undefined, pathGlob: a.path ?? undefined,
    chunkTypes: a.kind && !fileKind ? [a.kind as ChunkType] : undefined, kinds: fileKind ? [fileKind] : undefined,
    intent: a.intent ? parseIntent(a.intent) ?? undefined : undefined,
  };
  const responses = await Promise.all(cbs.map(async (c) => ({ c, r: await c.searcher.search(a.query, opts) })));
  const list: Tagged[] = mergeRanked(responses.map(({ c, r }) => r.results.map((x) => ({ ...x, codebase: c.name }))), fetch);
  // A full list may go on: `fetch` asked for one more than this page needs.
  const moreFound = list.length >= fetch;
  const strategies = new Set(responses.map(({ r }) => r.strategy));
  const strategy = strategies.size === 1 ? [...strategies][0] : strategies.has('hybrid') ? 'hybrid' : [...strategies][0] ?? 'none';
  const embedded = responses.length ? responses.reduce((s, { r }) => s + r.embeddedRatio, 0) / responses.length : 0;
  const page = list.slice(offset, offset + a.limit);
  const multi = host.codebases().length > 1;

  const entries: Levels[] = page.map((r) => render.searchEntry(r, multi));
  const head = (shown: number, counts: [number, number, number], next: string | null) => ({
    query: a.query.length > 200 ? a.query.slice(0, 200) + '…' : a.query,
    strategy,
    total_found: list.length,
    more_found: moreFound,
    offset,
    shown,
    full: counts[0],
    brief: counts[1],
    locations: counts[2],
    indexed_share: share,
    embedded_share: Number(embedded.toFixed(4)),
    notes,
    results: [] as Record<string, unknown>[],
    next_cursor: next,
  });
  const base = head(0, [0, 0, 0], null);
  const chosen = fitEntries(entries, weightBudget(a.maxTokens) - baseWeight(render.searchHeader(base), base));
  return finish(a.maxTokens, chosen.length, (n) => {
    const picked = chosen.slice(0, n).map((l, i) => entries[i].levels[l]);
    const counts: [number, number, number] = [0, 0, 0];
    for (const p of picked) counts[p.detail]++;
    const withText = picked.filter((p) => p.detail < 2).length;
    const advance = withText > 0 ? countLeading(picked, (p) => p.detail < 2) : picked.length;
    const nextOffset = offset + Math.max(advance, 0);
    const next = n > 0 && nextOffset < list.length ? encodeCursor(fp, nextOffset) : null;
    const s = head(n, counts, next);
    s.results = picked.map((p) => p.structured);
    return { text: render.searchHeader(s) + picked.map((p) => p.text).join(''), structured: s };
  });
}

/** Entries at the start of `list` that satisfy `ok` (the cursor continues after them). */
function countLeading<T>(list: readonly T[], ok: (t: T) => boolean): number {
  let n = 0;
  while (n < list.length && ok(list[n])) n++;
  return n;
}

// ---- grep ------------------------------------------------------------------------------

/**
 * An exact grep that found nothing for a pattern written as a regex: how many lines it
 * matches as one (grepAsRegex), as a note, so the next call can ask for that.
 */
async function asRegexNote(cbs: readonly ToolCodebase[], request: (c: ToolCodebase) => GrepRequest): Promise<string[]> {
  let sum: AsRegex | null = null;
  for (const c of cbs) sum = addAsRegex(sum, await grepAsRegex(c.store, request(c), { cache: c.texts }));
  const text = asRegexText(sum, 'regex: true');
  return text ? [`no line holds this exact text; ${text}`] : [];
}

async function grepTool(host: ToolHost, a: GrepArgs): Promise<ToolAnswer> {
  const cbs = selectCodebases(host, a.codebase);
  const notes = [...a.notes];
  const share = indexing(cbs, notes, true);
  const languages = await checkLanguages(cbs, a.languages, share >= 1);
  const fp = fingerprint('grep', { p: a.pattern, r: a.regex, i: a.ignoreCase, g: a.path, l: languages, n: a.limit, c: a.codebase });
  const offset = offsetOf(a.cursor, fp);
  const want = offset + a.limit;
  const lines: Array<GrepLine & { codebase: string }> = [];
  let total = 0;
  let filesMatched = 0;
  let filesSearched = 0;
  let exhaustive = true;
  /** One codebase's request: a shared index is read only as far as the lines asked for need. */
  const request = (c: ToolCodebase): GrepRequest => ({
    pattern: a.pattern, mode: a.regex ? 'regex' : 'exact', ignoreCase: a.ignoreCase, path: a.path ?? undefined, languages: languages ?? undefined, stopAtLimit: !!c.remote,
  });
  for (const c of cbs) {
    const r = await grep(c.store, { ...request(c), limit: Math.max(1, want - lines.length) }, { cache: c.texts });
    for (const l of r.results) if (lines.length < want) lines.push({ ...l, codebase: c.name });
    total += r.totalMatches;
    filesMatched += r.filesMatched;
    filesSearched += r.filesSearched;
    exhaustive &&= r.exhaustive;
  }
  if (!exhaustive) notes.push('a shared index is read only as far as the lines asked for need: total_matches and files_matched are lower bounds (the cursor continues)');
  if (total === 0 && !a.regex) notes.push(...(await asRegexNote(cbs, request)));
  const page = lines.slice(offset, offset + a.limit);
  const multi = host.codebases().length > 1;
  const entries: Levels[] = page.map((l) => render.grepEntry(l, multi, clipLine(l.content, l.matches[0]?.start ?? 0)));
  const head = (shown: number, withText: number, next: string | null) => ({
    pattern: a.pattern.length > 200 ? a.pattern.slice(0, 200) + '…' : a.pattern,
    regex: a.regex,
    ignore_case: a.ignoreCase,
    total_matches: total,
    files_matched: filesMatched,
    files_searched: filesSearched,
    offset,
    shown,
    with_text: withText,
    indexed_share: share,
    notes,
    lines: [] as Record<string, unknown>[],
    next_cursor: next,
  });
  const base = head(0, 0, null);
  const chosen = fitEntries(entries, weightBudget(a.maxTokens) - baseWeight(render.grepHeader(base), base));
  return finish(a.maxTokens, chosen.length, (n) => {
    const picked = chosen.slice(0, n).map((l, i) => entries[i].levels[l]);
    const withText = countLeading(picked, (p) => p.detail === 0);
    const nextOffset = offset + (withText > 0 ? withText : picked.length);
    const next = n > 0 && (nextOffset < total || !exhaustive) ? encodeCursor(fp, nextOffset) : null;
    const s = head(n, withText, next);
    s.lines = picked.map((p) => p.structured);
    return { text: render.grepHeader(s) + picked.map((p) => p.text).join(''), structured: s };
  });
}

// ---- read ------------------------------------------------------------------------------

/** The codebase and indexed file a path argument names, or a clear error. */
async function resolveFile(host: ToolHost, input: string, wanted: string | null): Promise<{ c: ToolCodebase; rel: string; file: FileRecord }> {
  const cbs = selectCodebases(host, wanted);
  const outside: string[] = [];
  const found: Array<{ c: ToolCodebase; rel: string; file: FileRecord }> = [];
  let rel: string | null = null;
  for (const c of cbs) {
    let r: string;
    try {
      r = relativePath(input, c.root);
    } catch (e) {
      outside.push((e as Error).message);
      continue;
    }
    rel = r;
    const file = await c.store.getFile(r);
    if (file) found.push({ c, rel: r, file });
  }
  if (found.length === 1) return found[0];
  if (found.length > 1) throw new ToolInputError(`"${input}" is in several codebases (${found.map((f) => f.c.name).join(', ')}); give "codebase"`);
  if (rel === null) throw new ToolInputError(outside[0] ?? `"${input}" is not a file path`);
  const base = rel.slice(rel.lastIndexOf('/') + 1);
  const like: string[] = [];
  for (const c of cbs) {
    const rows = await c.store.db.all<{ path: string }>("SELECT path FROM files WHERE path = ? OR path LIKE ? ESCAPE '\\' ORDER BY length(path) LIMIT 5", [base, `%/${base.replace(/[\\%_]/g, (m) => `\\${m}`)}`]);
    like.push(...rows.map((r) => (cbs.length > 1 ? `${c.name}: ${r.path}` : r.path)));
  }
  const share = Math.min(...cbs.map((c) => c.progress().indexedShare));
  throw new ToolInputError(
    `"${rel}" is not in the index: no such file, or one Sift does not index (ignored by .gitignore/.siftignore, a secret, binary, too large, or a link to outside the root)`
    + (share < 1 ? `; the index is still being built (${Math.floor(share * 100)}% of files stored)` : '')
    + (like.length ? `; did you mean ${like.slice(0, 5).map((p) => `"${p}"`).join(', ')}?` : ''),
  );
}

async function readTool(host: ToolHost, a: ReadArgs): Promise<ToolAnswer> {
  const { c, rel, file } = await resolveFile(host, a.path, a.codebase);
  const notes = [...a.notes];
  const share = indexing([c], notes, true);
  const text = await c.store.getFileText(rel);
  if (text === null) throw new ToolInputError(`"${rel}" has no stored text in this index (made by an older Sift); run \`sift index\` on the folder`);
  const all = text.split('\n');
  if (all.length > 1 && all[all.length - 1] === '') all.pop(); // the final newline ends the last line
  const fp = fingerprint('read', { p: rel, s: a.startLine, e: a.endLine, c: c.name });
  const start = a.cursor !== null ? offsetOf(a.cursor, fp) : a.startLine;
  const total = all.length;
  if (start > total && !(total === 0 && start === 1)) throw new ToolInputError(`start_line ${start} is past the end of "${rel}" (${total} lines)`);
  const last = Math.min(total, a.endLine ?? total);
  const multi = host.codebases().length > 1;
  const head = (end: number, content: string, clipped: number[], next: number | null) => ({
    ...(multi ? { codebase: c.name } : {}),
    path: rel,
    language: file.language,
    total_lines: total,
    start_line: start,
    end_line: end,
    content,
    truncated: next !== null,
    ...(clipped.length ? { clipped_lines: clipped } : {}),
    next_start_line: next,
    indexed_share: share,
    notes,
    next_cursor: next !== null ? encodeCursor(fp, next) : null,
  });
  const base = head(start - 1, '', [], last);
  let budget = weightBudget(a.maxTokens) - baseWeight(render.readText(base, []), base);
  const width = String(last).length;
  const shown: string[] = [];
  const clipped: number[] = [];
  for (let n = start; n <= last; n++) {
    let line = all[n - 1].endsWith('\r') ? all[n - 1].slice(0, -1) : all[n - 1];
    // The line in content, in the numbered text, and the newlines around both.
    let w = 2 * jsonStringWeight(line) + width + 8;
    if (w > budget && shown.length === 0) {
      // Not even the first line fits whole: show as much of it as fits, and say so.
      const room = Math.max(0, Math.floor((budget - width - 8) / 6) - 2);
      line = line.slice(0, room) + '…';
      clipped.push(n);
      w = 2 * jsonStringWeight(line) + width + 8;
    }
    if (w > budget) break;
    budget -= w;
    shown.push(line);
  }
  return finish(a.maxTokens, shown.length, (k) => {
    const lines = shown.slice(0, k);
    const end = start + k - 1;
    const next = end < last ? end + 1 : null;
    const s = head(end, lines.join('\n'), clipped.filter((x) => x <= end), next);
    return { text: render.readText(s, lines), structured: s };
  });
}

// ---- symbols ---------------------------------------------------------------------------

export interface SymbolRow {
  codebase: ToolCodebase;
  name: string;
  kind: string;
  container: string | null;
  path: string;
  language: string;
  startLine: number;
  endLine: number;
  exactCase: boolean;
  /** The chunk to read the signature from, and the line of it to show (null: its head). */
  chunkId: number;
  line: number | null;
  /** The signature when already known (a declaration found in the text). */
  sig?: string;
}

const QUALIFIER = /::|->|[.#]/;
/** Chunks looked at for one name (a name defined in thousands of places is cut, and said). */
const MAX_NAME_CHUNKS = 2000;
/** Lines holding a name that are checked for a declaration in the text (declarations.ts). */
const MAX_TEXT_DECLARATION_LINES = 400;
/** Chunk types whose body holds members (methods, fields) worth an outline entry. */
const CONTAINER_KINDS = new Set(['class', 'struct', 'interface', 'enum', 'module', 'type']);

function wordLine(content: string, name: string): number | null {
  const re = new RegExp(`(^|[^A-Za-z0-9_$])${escapeRegExp(name)}($|[^A-Za-z0-9_$])`);
  const lines = content.split('\n');
  const i = lines.findIndex((l) => re.test(l));
  return i < 0 ? null : i;
}

/** Definition entries a chunk holds for `want` (null: all of them). */
function definitionsOf(c: ToolCodebase, ch: StoredChunk, want: string | null): SymbolRow[] {
  const out: SymbolRow[] = [];
  const names = ch.names?.length ? ch.names : ch.symbol ? [ch.symbol] : [];
  const merged = names.length > 1;
  const lower = want?.toLowerCase() ?? null;
  const add = (name: string, kind: string, container: string | null, own: boolean): void => {
    if (lower !== null && name.toLowerCase() !== lower) return;
    // A merged chunk or a constant: its own line, found in the text (when the text is known).
    let line: number | null = null;
    if (!own && ch.content) {
      const i = wordLine(ch.content, name);
      if (i !== null) line = ch.startLine + i;
    }
    out.push({
      codebase: c, name, kind, container, path: ch.path, language: ch.language,
      startLine: own ? (ch.defLine ?? ch.startLine) : line ?? ch.startLine, endLine: own ? ch.endLine : line ?? ch.endLine,
      exactCase: want === null || name === want, chunkId: ch.id, line: own ? null : line,
    });
  };
  for (const n of names) add(n, ch.chunkType, ch.parent, !merged);
  for (const d of ch.defines ?? []) add(d, 'constant', null, false);
  return out;
}

/** Pieces of one split definition (same path, name and line) as one entry over all its lines. */
function mergePieces(rows: SymbolRow[]): SymbolRow[] {
  const byKey = new Map<string, SymbolRow>();
  for (const r of rows) {
    const k = `${r.codebase.name}\n${r.path}\n${r.name}\n${r.kind}\n${r.startLine}`;
    const have = byKey.get(k);
    if (!have) byKey.set(k, { ...r });
    else have.endLine = Math.max(have.endLine, r.endLine);
  }
  return [...byKey.values()];
}

/** The innermost class-like chunk of `chunks` around `line`, or null. */
function containerAt(chunks: readonly StoredChunk[], line: number): StoredChunk | null {
  let best: StoredChunk | null = null;
  for (const ch of chunks) {
    if (!ch.symbol || !CONTAINER_KINDS.has(ch.chunkType) || line <= (ch.defLine ?? ch.startLine) || line > ch.endLine) continue;
    if (!best || ch.endLine - ch.startLine < best.endLine - best.startLine) best = ch;
  }
  return best;
}

/** Members declared in a class-like chunk that are no chunk of their own (declarations.ts). */
function membersOf(c: ToolCodebase, ch: StoredChunk, fileLines: readonly string[]): SymbolRow[] {
  const first = ch.defLine ?? ch.startLine;
  const found: Array<{ i: number; d: Declared; indent: number }> = [];
  for (let n = first + 1; n <= ch.endLine && n <= fileLines.length; n++) {
    const text = fileLines[n - 1];
    const d = declarationOf(text, ch.language, true);
    if (d && d.name !== ch.symbol) found.push({ i: n, d, indent: text.length - text.trimStart().length });
  }
  if (!found.length) return [];
  const indent = Math.min(...found.map((f) => f.indent));
  return found.filter((f) => f.indent === indent).map((f) => ({
    codebase: c, name: f.d.name, kind: f.d.kind, container: ch.symbol, path: ch.path, language: ch.language,
    startLine: f.i, endLine: Math.min(ch.endLine, definitionEnd(fileLines, f.i - 1, ch.language) + 1),
    exactCase: true, chunkId: ch.id, line: f.i, sig: fileLines[f.i - 1].trim(),
  }));
}

function fileLinesOf(text: string): string[] {
  return text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/** Declarations of `name` found in the text (members of classes that are one chunk), not already in `have`. */
async function textDeclarations(c: ToolCodebase, name: string, have: readonly SymbolRow[]): Promise<SymbolRow[]> {
  if (!/^[A-Za-z_$][\w$]*[?!=]?$/.test(name)) return [];
  const g = await grep(c.store, { pattern: `\\b${escapeRegExp(name)}\\b`, mode: 'regex', ignoreCase: true, limit: MAX_TEXT_DECLARATION_LINES }, { cache: c.texts });
  const known = new Set(have.filter((r) => r.codebase === c).map((r) => `${r.path}\n${r.startLine}`));
  const out: SymbolRow[] = [];
  const files = new Map<string, { chunks: StoredChunk[]; lines: string[] }>();
  for (const l of g.results) {
    if (known.has(`${l.path}\n${l.line}`)) continue;
    const quick = declarationOf(l.content, l.language, true);
    if (!quick || quick.name.toLowerCase() !== name.toLowerCase()) continue;
    let f = files.get(l.path);
    if (!f) {
      const text = (await c.store.getFileText(l.path)) ?? '';
      f = { chunks: await c.store.getFileChunks(l.path), lines: fileLinesOf(text) };
      files.set(l.path, f);
    }
    const box = containerAt(f.chunks, l.line);
    const d = declarationOf(l.content, l.language, box !== null);
    if (!d || d.name.toLowerCase() !== name.toLowerCase()) continue;
    // A definition that is a chunk of its own is listed from the index already.
    if (f.chunks.some((ch) => ch.symbol === d.name && (ch.defLine ?? ch.startLine) === l.line)) continue;
    out.push({
      codebase: c, name: d.name, kind: d.kind, container: box?.symbol ?? null, path: l.path, language: l.language,
      startLine: l.line, endLine: definitionEnd(f.lines, l.line - 1, l.language) + 1,
      exactCase: d.name === name, chunkId: box?.id ?? -1, line: l.line, sig: l.content.trim(),
    });
  }
  return out;
}

/**
 * Every definition of one stored file, in line order (the outer one first at a shared line):
 * the index's definitions (pieces of one merged, merged siblings and constants on their own
 * lines) and the members of class-like chunks found in the text. `symbols path=` lists these,
 * and the app's file viewer shows them as its outline.
 */
export async function fileDefinitions(c: ToolCodebase, rel: string): Promise<SymbolRow[]> {
  const chunks = await c.store.getFileChunks(rel);
  const rows = mergePieces(chunks.flatMap((ch) => definitionsOf(c, ch, null)));
  const lines = fileLinesOf((await c.store.getFileText(rel)) ?? '');
  const at = new Set(rows.map((r) => `${r.name}\n${r.startLine}`));
  for (const ch of chunks) {
    if (!ch.symbol || !CONTAINER_KINDS.has(ch.chunkType) || ch.context) continue;
    for (const m of membersOf(c, ch, lines)) if (!at.has(`${m.name}\n${m.startLine}`)) rows.push(m);
  }
  for (const r of rows) r.endLine = ownEnd(lines, r.startLine, r.endLine);
  return rows.sort((x, y) => x.startLine - y.startLine || y.endLine - x.endLine);
}

async function symbolsTool(host: ToolHost, a: SymbolsArgs): Promise<ToolAnswer> {
  const notes = [...a.notes];
  let rows: SymbolRow[] = [];
  let cbs: readonly ToolCodebase[];
  let pathShown: string | null = null;
  if (a.path !== null) {
    const { c, rel } = await resolveFile(host, a.path, a.codebase);
    cbs = [c];
    pathShown = rel;
    rows = await fileDefinitions(c, rel);
  } else {
    cbs = selectCodebases(host, a.codebase);
    const full = a.name!;
    const parts = full.split(QUALIFIER).filter(Boolean);
    const name = parts[parts.length - 1] ?? full;
    const container = parts.length >= 2 ? parts[parts.length - 2] : null;
    for (const c of cbs) {
      const ids = (await c.store.db.all<{ id: number }>(
        `SELECT id FROM chunks WHERE symbol = ? COLLATE NOCASE UNION SELECT chunk_id AS id FROM chunk_names WHERE key = ? LIMIT ${MAX_NAME_CHUNKS + 1}`,
        [name, name.replace(/[A-Z]+/g, (m) => m.toLowerCase())],
      )).map((r) => r.id);
      if (ids.length > MAX_NAME_CHUNKS) notes.push(`${c.name}: more than ${MAX_NAME_CHUNKS} chunks define "${name}"; the first ${MAX_NAME_CHUNKS} are listed`);
      const chunks = await c.store.getChunks(ids.slice(0, MAX_NAME_CHUNKS), { content: false });
      // Merged names and constants need the text to find their line.
      const needText = chunks.filter((ch) => (ch.names?.length ?? 0) > 1 || (ch.defines?.length ?? 0) > 0).map((ch) => ch.id);
      const withText = new Map((needText.length ? await c.store.getChunks(needText) : []).map((ch) => [ch.id, ch]));
      const own = mergePieces(chunks.flatMap((ch) => definitionsOf(c, withText.get(ch.id) ?? ch, name)));
      rows.push(...own, ...(await textDeclarations(c, name, own)));
    }
    if (container !== null) {
      const inside = rows.filter((r) => r.container?.toLowerCase() === container.toLowerCase());
      if (inside.length) rows = inside;
      else if (rows.length) notes.push(`no "${name}" defined in "${container}"; showing every "${name}"`);
    }
    rows.sort((x, y) => Number(y.exactCase) - Number(x.exactCase) || x.codebase.name.localeCompare(y.codebase.name) || (x.path < y.path ? -1 : x.path > y.path ? 1 : 0) || x.startLine - y.startLine);
  }
  if (a.kind) rows = rows.filter((r) => r.kind === a.kind);
  const share = indexing(cbs, notes);
  if (rows.length === 0 && a.name !== null) notes.push(`no definition of "${a.name}" found; try search or grep for where it is used`);
  const fp = fingerprint('symbols', { n: a.name, p: pathShown, k: a.kind, l: a.limit, c: a.codebase });
  const offset = offsetOf(a.cursor, fp);
  const page = rows.slice(offset, offset + a.limit);
  // Signatures of the page's entries (one read of their chunks, text included).
  const sigs = new Map<SymbolRow, string>();
  const byCb = new Map<ToolCodebase, SymbolRow[]>();
  for (const r of page) {
    if (r.sig !== undefined) sigs.set(r, clipLine(r.sig, 0, 300).text);
    else byCb.set(r.codebase, [...(byCb.get(r.codebase) ?? []), r]);
  }
  for (const [c, list] of byCb) {
    const chunks = new Map((await c.store.getChunks([...new Set(list.map((r) => r.chunkId))])).map((ch) => [ch.id, ch]));
    for (const r of list) {
      const ch = chunks.get(r.chunkId);
      if (!ch) continue;
      const lines = ch.content.split('\n');
      const sig = r.line !== null ? lines[r.line - ch.startLine] : (ch.signature ?? lines.find((l) => l.trim()) ?? '');
      if (sig !== undefined) sigs.set(r, clipLine(sig.trim(), 0, 300).text);
    }
  }
  const multi = host.codebases().length > 1;
  const entries: Levels[] = page.map((r) => render.symbolEntry(r, sigs.get(r) ?? null, multi));
  const head = (shown: number, next: string | null) => ({
    name: a.name,
    path: pathShown,
    total: rows.length,
    offset,
    shown,
    indexed_share: share,
    notes,
    symbols: [] as Record<string, unknown>[],
    next_cursor: next,
  });
  const base = head(0, null);
  const chosen = fitEntries(entries, weightBudget(a.maxTokens) - baseWeight(render.symbolsHeader(base), base));
  return finish(a.maxTokens, chosen.length, (n) => {
    const picked = chosen.slice(0, n).map((l, i) => entries[i].levels[l]);
    const withSig = countLeading(picked, (p) => p.detail === 0);
    const nextOffset = offset + (withSig > 0 ? withSig : picked.length);
    const next = n > 0 && nextOffset < rows.length ? encodeCursor(fp, nextOffset) : null;
    const s = head(n, next);
    s.symbols = picked.map((p) => p.structured);
    return { text: render.symbolsHeader(s) + picked.map((p) => p.text).join(''), structured: s };
  });
}

// ---- status ----------------------------------------------------------------------------

/** Languages listed per codebase in `status` (the most files first). */
const STATUS_LANGUAGES = 24;

async function statusTool(host: ToolHost, a: StatusArgs): Promise<ToolAnswer> {
  const cbs = selectCodebases(host, a.codebase);
  const notes = [...a.notes];
  const out: Array<Record<string, unknown>> = [];
  for (const c of cbs) {
    const p = c.progress();
    const s = await c.store.stats();
    const extra = c.statusExtra ? await c.statusExtra() : { pendingChanges: null, skipped: {} };
    if (c.semanticNote && s.embeddedChunks > 0) notes.push(`${c.name}: semantic search is off (${c.semanticNote})`);
    const skipped: Record<string, number> = { ...(s.skipped?.by_reason ?? {}), ...extra.skipped };
    if (extra.notes) notes.push(...extra.notes.map((n) => `${c.name}: ${n}`));
    const langs = Object.entries(s.languages).filter(([l]) => l).sort((x, y) => y[1].files - x[1].files).slice(0, STATUS_LANGUAGES);
    out.push({
      name: c.name,
      root: c.root,
      state: p.state,
      indexed_share: Number(p.indexedShare.toFixed(4)),
      files: s.files,
      chunks: s.chunks,
      embedded_share: s.chunks > 0 ? Number(Math.min(1, s.embeddedChunks / s.chunks).toFixed(4)) : 0,
      last_indexed: s.lastIndexed,
      pending_changes: extra.pendingChanges,
      skipped,
      languages: Object.fromEntries(langs.map(([l, v]) => [l, v.files])),
      model: s.model,
      model_family: s.model ? familyOfKey(s.model) : null,
      error: p.error ?? null,
    });
  }
  const structured = { codebases: out, notes };
  return { text: render.statusText(structured), structuredContent: structured, isError: false };
}

export { tokensOfWeight };
