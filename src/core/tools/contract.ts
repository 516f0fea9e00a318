/**
 * The agent tool contract (issue 26): the five read-only tools Sift offers coding agents —
 * `search`, `grep`, `read`, `symbols`, `status` — defined ONCE here (names, descriptions,
 * input and output JSON Schemas, annotations, the token budget), and served by two adapters:
 * the CLI's MCP server (`sift mcp`, src/cli/mcp.ts) and the app's WebMCP registration (the
 * store worker answers through run.ts).
 *
 * Plain data only: the schemas are JSON Schema (draft 2020-12 subset every MCP client
 * understands: no $ref, no top-level oneOf), so they cross workers and go on the wire as is.
 */
import type { ChunkType } from '../types.ts';
import { FILE_KINDS } from '../text/file-kind.ts';

export type ToolName = 'search' | 'grep' | 'read' | 'symbols' | 'status';
export const TOOL_NAMES: readonly ToolName[] = ['search', 'grep', 'read', 'symbols', 'status'];

/** Default answer budget in tokens (counted conservatively: budget.ts estimateTokens). */
export const DEFAULT_MAX_TOKENS = 4000;
/** Largest budget a call may ask for (one popular agent rejects results over 25,000 tokens). */
export const MAX_MAX_TOKENS = 20_000;
/** Smallest budget: the counts, notes and a cursor always fit in it. */
export const MIN_MAX_TOKENS = 300;

export const DEFAULT_TOOL_SEARCH_LIMIT = 10;
export const MAX_TOOL_SEARCH_LIMIT = 50;
export const DEFAULT_TOOL_GREP_LIMIT = 100;
export const MAX_TOOL_GREP_LIMIT = 2000;
export const DEFAULT_SYMBOLS_LIMIT = 50;
export const MAX_SYMBOLS_LIMIT = 500;
/** A grep line longer than this (code units) is shown clipped around its first match. */
export const MAX_LINE_CHARS = 1000;

export const SEARCH_MODES = ['auto', 'keyword', 'semantic', 'hybrid'] as const;
export type ToolSearchMode = (typeof SEARCH_MODES)[number];
export const INTENTS = ['understand', 'implement', 'debug', 'test', 'configure', 'document', 'example', 'any'] as const;
export type Intent = (typeof INTENTS)[number];
export const KINDS: readonly ChunkType[] = ['function', 'method', 'class', 'struct', 'interface', 'enum', 'type', 'module', 'comment', 'text'];
/** Search's `kind`: a chunk kind, or a file kind (text/file-kind.ts). */
export const SEARCH_KINDS: readonly string[] = [...KINDS, ...FILE_KINDS];

/** JSON Schema, as plain data. */
export type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: { readOnlyHint: true; destructiveHint: false; idempotentHint: true; openWorldHint: false; title: string };
}

const maxTokens: JsonSchema = {
  type: 'integer',
  minimum: MIN_MAX_TOKENS,
  maximum: MAX_MAX_TOKENS,
  default: DEFAULT_MAX_TOKENS,
  description: `Budget for the whole answer in tokens (default ${DEFAULT_MAX_TOKENS}, at most ${MAX_MAX_TOKENS}; counted conservatively as characters/3). What does not fit is left for the cursor.`,
};
const cursor: JsonSchema = { type: 'string', description: 'From a previous answer with the same arguments: continue where it stopped.' };
const codebase: JsonSchema = { type: 'string', description: 'Only this codebase (its name or root as `status` lists them). Default: every served codebase.' };
const language: JsonSchema = { type: 'string', description: 'Only files of this language (e.g. "python", "typescript"; several: comma-separated). `status` lists the languages.' };
const pathGlob: JsonSchema = { type: 'string', description: 'Only paths matching this glob, relative to the root (gitignore style: "*.go", "src/**/*.ts", "tests/").' };

const notes: JsonSchema = { type: 'array', items: { type: 'string' }, description: 'Things the caller should know: partial index, fallbacks, clamped arguments.' };
const nextCursor: JsonSchema = { type: ['string', 'null'], description: 'Pass it back (with the same arguments) for the rest; null when nothing is left.' };
const indexedShare: JsonSchema = { type: 'number', minimum: 0, maximum: 1, description: 'Share of the codebase files stored in the index when this answer was made (1 = complete).' };

const lineText: JsonSchema = {
  type: 'object',
  properties: { line: { type: 'integer' }, text: { type: 'string' } },
  required: ['line', 'text'],
};

const searchResult: JsonSchema = {
  type: 'object',
  properties: {
    rank: { type: 'integer' },
    codebase: { type: 'string' },
    path: { type: 'string' },
    start_line: { type: 'integer' },
    end_line: { type: 'integer' },
    language: { type: 'string' },
    kind: { type: 'string' },
    symbol: { type: ['string', 'null'] },
    container: { type: ['string', 'null'] },
    score: { type: 'number' },
    detail: { type: 'string', enum: ['full', 'brief', 'location'], description: 'full: `content` is the whole snippet; brief: `lines` holds its signature and best lines; location: neither.' },
    content: { type: 'string', description: 'The snippet: exactly the file lines start_line..end_line (detail "full").' },
    lines: { type: 'array', items: lineText, description: 'Signature and best matching lines (detail "brief").' },
    more_matches: { type: 'integer', description: 'Other matching pieces of the same definition.' },
    more_in_file: { type: 'integer', description: 'Other matching definitions of the same file, not listed apart (search `path` to see them).' },
    also_in_file: {
      type: 'array',
      description: 'Where the other matching definitions folded into this result are (of those counted in more_in_file): a described function may be one of them.',
      items: {
        type: 'object',
        properties: { start_line: { type: 'integer' }, end_line: { type: 'integer' }, kind: { type: 'string' }, symbol: { type: 'string' } },
        required: ['start_line', 'end_line', 'kind'],
      },
    },
  },
  required: ['rank', 'path', 'start_line', 'end_line', 'kind', 'detail'],
};

const grepLine: JsonSchema = {
  type: 'object',
  properties: {
    codebase: { type: 'string' },
    path: { type: 'string' },
    line: { type: 'integer' },
    text: { type: 'string', description: 'The line, without its line terminator (absent: location only).' },
    clipped: { type: 'boolean', description: 'The line was longer than shown.' },
    matches: { type: 'array', items: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2 }, description: '[start, end) code-unit offsets of the matches in the full line.' },
  },
  required: ['path', 'line'],
};

const symbolEntry: JsonSchema = {
  type: 'object',
  properties: {
    codebase: { type: 'string' },
    name: { type: 'string' },
    kind: { type: 'string' },
    container: { type: ['string', 'null'], description: 'The enclosing definition (class of a method, …), when known.' },
    path: { type: 'string' },
    start_line: { type: 'integer' },
    end_line: { type: 'integer' },
    language: { type: 'string' },
    signature: { type: 'string', description: 'Its declaration line(s) (absent when the budget left only locations).' },
  },
  required: ['name', 'kind', 'path', 'start_line', 'end_line'],
};

const annotations = (title: string): ToolDefinition['annotations'] => ({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, title });

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = [
  {
    name: 'search',
    title: 'Search code',
    description:
      'Ranked code search over the indexed codebases: definitions, identifiers and natural-language questions ("where are retries configured"). '
      + 'Returns the best snippets first, then signatures and best lines, then locations only, within max_tokens; a cursor gives the rest. '
      + 'Use grep for every occurrence of an exact string or regex, read for a whole file, symbols for where a name is defined.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to find: an identifier, a declaration ("struct page", "def parse_args"), a file name ("query.ts", "search/query"), an error message or a question.' },
        mode: { type: 'string', enum: [...SEARCH_MODES], default: 'auto', description: 'auto (hybrid when the index has embeddings, else keyword), keyword, semantic or hybrid.' },
        intent: { type: 'string', enum: [...INTENTS], description: 'What the answer is for; chooses which file kinds lead: understand, implement, debug → source code; test → tests; configure → config and build files; document → docs; example → examples; any → no preference. Default: read from the query ("tests for …").' },
        language,
        path: pathGlob,
        kind: { type: 'string', enum: [...SEARCH_KINDS], description: 'Only definitions of this kind (function, class, …) or files of this kind (code, test, docs, config, generated, example).' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_SEARCH_LIMIT, default: DEFAULT_TOOL_SEARCH_LIMIT, description: 'Results per page.' },
        max_tokens: maxTokens,
        cursor,
        codebase,
      },
      required: ['query'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        strategy: { type: 'string', description: 'hybrid, bm25_only (keyword) or vector_only.' },
        total_found: { type: 'integer', description: 'Results found (up to 50).' },
        more_found: { type: 'boolean', description: 'More results exist beyond total_found.' },
        offset: { type: 'integer' },
        shown: { type: 'integer' },
        full: { type: 'integer' },
        brief: { type: 'integer' },
        locations: { type: 'integer' },
        indexed_share: indexedShare,
        embedded_share: { type: 'number', minimum: 0, maximum: 1 },
        notes,
        results: { type: 'array', items: searchResult },
        next_cursor: nextCursor,
      },
      required: ['query', 'total_found', 'shown', 'results', 'next_cursor', 'indexed_share'],
    },
    annotations: annotations('Search code'),
  },
  {
    name: 'grep',
    title: 'Grep code',
    description:
      'Every line matching an exact string (default) or a regex (regex: true, RE2 syntax, ripgrep line semantics: a match never spans lines), '
      + 'in path then line order, over the indexed files. total_matches and files_matched come first; lines that do not fit max_tokens come as locations, then via the cursor.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', minLength: 1, description: 'The text to find, or a regex when regex is true.' },
        regex: { type: 'boolean', default: false, description: 'Treat pattern as a regular expression (RE2: no backreferences or lookaround).' },
        ignore_case: { type: 'boolean', default: false },
        path: pathGlob,
        language,
        limit: { type: 'integer', minimum: 1, maximum: MAX_TOOL_GREP_LIMIT, default: DEFAULT_TOOL_GREP_LIMIT, description: 'Matching lines per page.' },
        max_tokens: maxTokens,
        cursor,
        codebase,
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        regex: { type: 'boolean' },
        ignore_case: { type: 'boolean' },
        total_matches: { type: 'integer', description: 'Matching lines in all searched files.' },
        files_matched: { type: 'integer' },
        files_searched: { type: 'integer' },
        offset: { type: 'integer' },
        shown: { type: 'integer' },
        with_text: { type: 'integer', description: 'Lines shown with their text (the rest of `lines` are locations).' },
        indexed_share: indexedShare,
        notes,
        lines: { type: 'array', items: grepLine },
        next_cursor: nextCursor,
      },
      required: ['pattern', 'total_matches', 'files_matched', 'shown', 'lines', 'next_cursor', 'indexed_share'],
    },
    annotations: annotations('Grep code'),
  },
  {
    name: 'read',
    title: 'Read a file',
    description:
      'Lines of one indexed file, with line numbers: path relative to the codebase root, optional start_line/end_line (1-based, inclusive). '
      + 'Only files in the index are served (never outside the root, never ignored or secret files). What does not fit max_tokens continues at next_start_line.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path relative to the codebase root, as search/grep/symbols print it.' },
        start_line: { type: 'integer', minimum: 1, default: 1 },
        end_line: { type: 'integer', minimum: 1, description: 'Last line (inclusive); default: the end of the file.' },
        max_tokens: maxTokens,
        cursor,
        codebase,
      },
      required: ['path'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        codebase: { type: 'string' },
        path: { type: 'string' },
        language: { type: 'string' },
        total_lines: { type: 'integer' },
        start_line: { type: 'integer' },
        end_line: { type: 'integer', description: 'Last line shown (start_line - 1 when none fit).' },
        content: { type: 'string', description: 'Exactly the file lines start_line..end_line, joined with "\\n".' },
        truncated: { type: 'boolean', description: 'Lines of the asked range were left out (budget); continue at next_start_line.' },
        clipped_lines: { type: 'array', items: { type: 'integer' }, description: 'Lines too long for the budget, shown cut.' },
        next_start_line: { type: ['integer', 'null'] },
        indexed_share: indexedShare,
        notes,
        next_cursor: nextCursor,
      },
      required: ['path', 'total_lines', 'start_line', 'end_line', 'content', 'truncated', 'next_cursor'],
    },
    annotations: annotations('Read a file'),
  },
  {
    name: 'symbols',
    title: 'Find definitions',
    description:
      'Definitions by name (where is X defined: kind, container, path, lines; "Class.method" and "ns::fn" narrow by container) '
      + 'or by path (the outline of one file: its definitions in line order). Give name or path.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, description: 'A definition name (case-insensitive; exact-case matches first).' },
        path: { type: 'string', minLength: 1, description: 'A file path relative to the root: list its definitions.' },
        kind: { type: 'string', enum: [...KINDS], description: 'Only definitions of this kind.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_SYMBOLS_LIMIT, default: DEFAULT_SYMBOLS_LIMIT },
        max_tokens: maxTokens,
        cursor,
        codebase,
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        name: { type: ['string', 'null'] },
        path: { type: ['string', 'null'] },
        total: { type: 'integer' },
        offset: { type: 'integer' },
        shown: { type: 'integer' },
        indexed_share: indexedShare,
        notes,
        symbols: { type: 'array', items: symbolEntry },
        next_cursor: nextCursor,
      },
      required: ['total', 'shown', 'symbols', 'next_cursor', 'indexed_share'],
    },
    annotations: annotations('Find definitions'),
  },
  {
    name: 'status',
    title: 'Index status',
    description: 'Per codebase: files, chunks, share embedded (semantic search), last indexed, pending changes, skipped files by reason, languages, the embedding model.',
    inputSchema: {
      type: 'object',
      properties: { codebase },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        codebases: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              root: { type: ['string', 'null'] },
              state: { type: 'string', enum: ['indexing', 'ready', 'error'] },
              indexed_share: indexedShare,
              files: { type: 'integer' },
              chunks: { type: 'integer' },
              embedded_share: { type: 'number', minimum: 0, maximum: 1 },
              last_indexed: { type: ['string', 'null'] },
              pending_changes: { type: ['integer', 'null'], description: 'Files changed on disk and not yet indexed (null: unknown here).' },
              skipped: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Files left out of the index, by reason.' },
              languages: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Indexed files per language.' },
              model: { type: ['string', 'null'] },
              model_family: { type: ['string', 'null'], enum: ['transformer', 'static', null], description: 'transformer (e.g. MiniLM) or static (model2vec: a token table, embeds at keyword speed).' },
              error: { type: ['string', 'null'] },
            },
            required: ['name', 'state', 'files', 'chunks', 'embedded_share'],
          },
        },
        notes,
      },
      required: ['codebases'],
    },
    annotations: annotations('Index status'),
  },
];

export function toolDefinition(name: string): ToolDefinition | undefined {
  return TOOL_DEFINITIONS.find((t) => t.name === name);
}
