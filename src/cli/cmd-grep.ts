/**
 * `sift search DIR PATTERN --mode exact|regex [-i]`: every matching line of the indexed files,
 * ripgrep style (core/search/grep.ts). The ranked modes live in cmd-search.ts; their JSON is
 * untouched by this file.
 *
 * Output: human text is `path:line:content`, like `rg -n --no-heading`, with a summary on
 * stderr; --json prints one object (--stdin: one line per pattern). A bad pattern is exit 2
 * with what and where; under --stdin it is an `error` object on that pattern's line instead.
 */
import { asRegexText, DEFAULT_TEXT_CACHE_CHARS, grep, grepAsRegex, GrepPatternError, TextCache, type GrepMode, type GrepResponse } from '../core/search/grep.ts';
import { CliError, safeText, type IndexContext } from './context.ts';
import type { CliIo } from './io.ts';

export interface GrepCliOptions {
  mode: GrepMode;
  ignoreCase: boolean;
  limit?: number;
  path?: string;
  languages?: string[];
}

/** Control characters shown as \xNN so file contents cannot drive the terminal (tabs stay). */
function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

const round = (ms: number) => Number(ms.toFixed(2));

export function formatGrepJson(res: GrepResponse): Record<string, unknown> {
  return {
    query: res.pattern,
    mode: res.mode,
    strategy: res.mode,
    ignore_case: res.ignoreCase,
    total_matches: res.totalMatches,
    truncated: res.truncated,
    files_matched: res.filesMatched,
    files_searched: res.filesSearched,
    files_indexed: res.filesIndexed,
    prefilter: res.prefilter,
    timings: { prefilter: round(res.timings.prefilter), scan: round(res.timings.scan), total: round(res.timings.total) },
    // matches: [start, end) offsets in UTF-16 code units of `content`.
    results: res.results.map((r) => ({
      path: r.path,
      start_line: r.line,
      end_line: r.line,
      language: r.language,
      content: r.content,
      matches: r.matches,
    })),
  };
}

export function formatGrepHuman(res: GrepResponse): { out: string; summary: string } {
  const out = res.results.map((r) => `${printable(r.path)}:${r.line}:${printable(r.content)}\n`).join('');
  const files = new Set(res.results.map((r) => r.path)).size;
  const shown = res.truncated ? `showing the first ${res.results.length} of ${res.totalMatches} matching lines` : `${res.totalMatches} matching lines`;
  const summary = `${shown} in ${res.truncated ? `${files} of ${res.filesMatched}` : res.filesMatched} files · ${res.mode}${res.ignoreCase ? ' -i' : ''} · ${res.filesSearched} of ${res.filesIndexed} files searched · ${res.timings.total.toFixed(1)} ms`;
  return { out, summary };
}

function errorJson(pattern: string, mode: GrepMode, e: GrepPatternError): Record<string, unknown> {
  return { query: pattern, mode, strategy: mode, error: e.message, error_offset: e.offset, results: [] };
}

/** An opened index for grep, with the file texts its scans keep (later scans skip SQLite). */
export interface GrepSession {
  ctx: IndexContext;
  cache: TextCache;
  close(): Promise<void>;
}

/** `maxChars`: file text kept across this session's patterns (`--stdin`, the warm server). */
export function openGrep(ctx: IndexContext, maxChars = DEFAULT_TEXT_CACHE_CHARS): GrepSession {
  return { ctx, cache: new TextCache(maxChars), close: () => ctx.store.close() };
}

async function runOne(g: GrepSession, pattern: string, o: GrepCliOptions): Promise<GrepResponse> {
  return grep(g.ctx.store, { pattern, mode: o.mode, ignoreCase: o.ignoreCase, limit: o.limit, path: o.path, languages: o.languages }, { cache: g.cache });
}

/** One pattern; exit code 0 (matches or not), 2 for an invalid pattern. */
export async function runGrep(g: GrepSession, pattern: string, o: GrepCliOptions, json: boolean, quiet: boolean, io: CliIo): Promise<number> {
  const { ctx, cache } = g;
  try {
    const res = await runOne(g, pattern, o);
    if (json) io.out(JSON.stringify(formatGrepJson(res), null, 2) + '\n');
    else {
      const { out, summary } = formatGrepHuman(res);
      io.out(safeText(out)); // control characters in paths/lines shown as \xNN
      if (!quiet) io.err(`sift: ${summary}\n`);
      // An exact pattern written as a regex that found nothing: what the regex reading finds.
      const asRegex = quiet || res.totalMatches > 0 ? null : asRegexText(await grepAsRegex(ctx.store, { pattern, mode: o.mode, ignoreCase: o.ignoreCase, path: o.path, languages: o.languages }, { cache }), '--mode regex');
      if (asRegex) io.err(`sift: no line holds this exact text; ${asRegex}\n`);
      // An index made before file text was stored: those files are not searched until re-read.
      const missing = quiet ? 0 : await ctx.store.filesWithoutText();
      if (missing > 0) io.err(`sift: ${missing} indexed files have no stored text yet and were not searched; run \`sift index\` to store it\n`);
    }
    return 0;
  } catch (e) {
    if (!(e instanceof GrepPatternError)) throw e;
    if (json) io.out(JSON.stringify(errorJson(pattern, o.mode, e), null, 2) + '\n');
    throw new CliError(e.message + (e.offset !== null ? `\n  ${printable(pattern)}\n  ${' '.repeat(printable(pattern.slice(0, e.offset)).length)}^` : ''), 2);
  }
}

/** One pattern per input line, one JSON line per pattern; a bad pattern answers with an error object. */
export async function runGrepLines(g: GrepSession, lines: AsyncIterable<string>, o: GrepCliOptions, io: CliIo): Promise<number> {
  for await (const line of lines) {
    if (!line) continue;
    try {
      io.out(JSON.stringify(formatGrepJson(await runOne(g, line, o))) + '\n');
    } catch (e) {
      if (!(e instanceof GrepPatternError)) throw e;
      io.out(JSON.stringify(errorJson(line, o.mode, e)) + '\n');
    }
  }
  return 0;
}
