/**
 * Argument checks of the agent tools: every bad argument becomes a ToolInputError whose
 * message says what was wrong and what is accepted — a tool error for the agent, never an
 * exception out of the server. Numbers and booleans sent as strings ("10", "true") are
 * accepted; unknown arguments are refused (a misspelt `ignore_case` must not be dropped silently).
 */
import type { ChunkType } from '../types.ts';
import {
  DEFAULT_MAX_TOKENS, DEFAULT_SYMBOLS_LIMIT, DEFAULT_TOOL_GREP_LIMIT, DEFAULT_TOOL_SEARCH_LIMIT, INTENTS, KINDS, MAX_MAX_TOKENS,
  MAX_SYMBOLS_LIMIT, MAX_TOOL_GREP_LIMIT, MAX_TOOL_SEARCH_LIMIT, MIN_MAX_TOKENS, SEARCH_KINDS, SEARCH_MODES, toolDefinition,
  type Intent, type ToolName, type ToolSearchMode,
} from './contract.ts';

export class ToolInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

/** Longest string argument accepted (a query, a pattern, a path). */
export const MAX_ARG_CHARS = 4000;

export interface Common {
  maxTokens: number;
  cursor: string | null;
  codebase: string | null;
  /** Arguments clamped to their range, said in the answer's notes. */
  notes: string[];
}

export interface SearchArgs extends Common {
  query: string;
  mode: ToolSearchMode;
  intent: Intent | null;
  languages: string[] | null;
  path: string | null;
  /** A chunk kind or a file kind (contract.ts SEARCH_KINDS). */
  kind: string | null;
  limit: number;
}

export interface GrepArgs extends Common {
  pattern: string;
  regex: boolean;
  ignoreCase: boolean;
  path: string | null;
  languages: string[] | null;
  limit: number;
}

export interface ReadArgs extends Common {
  path: string;
  startLine: number;
  endLine: number | null;
}

export interface SymbolsArgs extends Common {
  name: string | null;
  path: string | null;
  kind: ChunkType | null;
  limit: number;
}

export type StatusArgs = Common;

type Raw = Record<string, unknown>;

function str(raw: Raw, key: string, required: boolean): string | null {
  const v = raw[key];
  if (v === undefined || v === null) {
    if (required) throw new ToolInputError(`missing required argument "${key}"`);
    return null;
  }
  if (typeof v !== 'string') throw new ToolInputError(`"${key}" must be a string, got ${typeof v}`);
  if (v.length > MAX_ARG_CHARS) throw new ToolInputError(`"${key}" is too long (${v.length} characters; at most ${MAX_ARG_CHARS})`);
  if (v.includes('\0')) throw new ToolInputError(`"${key}" must not contain NUL characters`);
  if (required && !v.trim()) throw new ToolInputError(`"${key}" must not be empty`);
  return v.trim() === '' ? null : v;
}

function bool(raw: Raw, key: string): boolean {
  const v = raw[key];
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new ToolInputError(`"${key}" must be true or false, got ${JSON.stringify(v)}`);
}

function int(raw: Raw, key: string, o: { min: number; max?: number; def: number | null; notes: string[]; clamp?: boolean }): number | null {
  const v = raw[key];
  if (v === undefined || v === null || v === '') return o.def;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new ToolInputError(`"${key}" must be an integer, got ${JSON.stringify(v)}`);
  const i = Math.floor(n);
  if (i < o.min || (o.max !== undefined && i > o.max)) {
    const range = o.max !== undefined ? `${o.min}..${o.max}` : `≥ ${o.min}`;
    if (!o.clamp) throw new ToolInputError(`"${key}" must be ${range}, got ${i}`);
    const c = Math.max(o.min, Math.min(o.max ?? i, i));
    o.notes.push(`${key} ${i} is outside ${range}; used ${c}`);
    return c;
  }
  return i;
}

function oneOf<T extends string>(raw: Raw, key: string, allowed: readonly T[]): T | null {
  const v = str(raw, key, false);
  if (v === null) return null;
  const t = v.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(t)) throw new ToolInputError(`"${key}" must be one of ${allowed.join(', ')}; got "${v}"`);
  return t as T;
}

function languages(raw: Raw): string[] | null {
  const v = str(raw, 'language', false);
  if (v === null) return null;
  const list = v.split(',').map((l) => l.trim().toLowerCase()).filter(Boolean);
  return list.length ? list : null;
}

function checkKnown(tool: ToolName, raw: Raw): void {
  const props = Object.keys((toolDefinition(tool)?.inputSchema.properties ?? {}) as Record<string, unknown>);
  const unknown = Object.keys(raw).filter((k) => !props.includes(k));
  if (unknown.length) {
    throw new ToolInputError(`unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; ${tool} takes ${props.join(', ')}`);
  }
}

function common(tool: ToolName, raw: Raw): Common {
  checkKnown(tool, raw);
  const notes: string[] = [];
  const maxTokens = tool === 'status' ? DEFAULT_MAX_TOKENS : int(raw, 'max_tokens', { min: MIN_MAX_TOKENS, max: MAX_MAX_TOKENS, def: DEFAULT_MAX_TOKENS, notes, clamp: true })!;
  return { maxTokens, cursor: tool === 'status' ? null : str(raw, 'cursor', false), codebase: str(raw, 'codebase', false), notes };
}

export function parseSearchArgs(raw: Raw): SearchArgs {
  const c = common('search', raw);
  return {
    ...c,
    query: str(raw, 'query', true)!,
    mode: oneOf(raw, 'mode', SEARCH_MODES) ?? 'auto',
    intent: oneOf(raw, 'intent', INTENTS),
    languages: languages(raw),
    path: str(raw, 'path', false),
    kind: oneOf(raw, 'kind', SEARCH_KINDS),
    limit: int(raw, 'limit', { min: 1, max: MAX_TOOL_SEARCH_LIMIT, def: DEFAULT_TOOL_SEARCH_LIMIT, notes: c.notes, clamp: true })!,
  };
}

export function parseGrepArgs(raw: Raw): GrepArgs {
  const c = common('grep', raw);
  return {
    ...c,
    pattern: str(raw, 'pattern', true)!,
    regex: bool(raw, 'regex'),
    ignoreCase: bool(raw, 'ignore_case'),
    path: str(raw, 'path', false),
    languages: languages(raw),
    limit: int(raw, 'limit', { min: 1, max: MAX_TOOL_GREP_LIMIT, def: DEFAULT_TOOL_GREP_LIMIT, notes: c.notes, clamp: true })!,
  };
}

export function parseReadArgs(raw: Raw): ReadArgs {
  const c = common('read', raw);
  const startLine = int(raw, 'start_line', { min: 1, def: 1, notes: c.notes })!;
  const endLine = int(raw, 'end_line', { min: 1, def: null, notes: c.notes });
  if (endLine !== null && endLine < startLine) throw new ToolInputError(`"end_line" (${endLine}) is before "start_line" (${startLine})`);
  return { ...c, path: str(raw, 'path', true)!, startLine, endLine };
}

export function parseSymbolsArgs(raw: Raw): SymbolsArgs {
  const c = common('symbols', raw);
  const name = str(raw, 'name', false);
  const path = str(raw, 'path', false);
  if (name === null && path === null) throw new ToolInputError('give "name" (where is it defined) or "path" (the outline of a file)');
  if (name !== null && path !== null) throw new ToolInputError('give either "name" or "path", not both');
  return {
    ...c,
    name: name?.trim() ?? null,
    path,
    kind: oneOf(raw, 'kind', KINDS),
    limit: int(raw, 'limit', { min: 1, max: MAX_SYMBOLS_LIMIT, def: DEFAULT_SYMBOLS_LIMIT, notes: c.notes, clamp: true })!,
  };
}

export function parseStatusArgs(raw: Raw): StatusArgs {
  return common('status', raw);
}

/**
 * A path argument as a path relative to the codebase root, or an error: no `..` segment, no
 * absolute path outside `root` (an absolute path inside it is made relative), no NUL.
 */
export function relativePath(input: string, root: string | null): string {
  let p = input.trim();
  const absolute = p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\') || p.startsWith('~');
  if (absolute) {
    const r = root?.replace(/\/+$/, '');
    if (r && p.startsWith(r + '/')) p = p.slice(r.length + 1);
    else throw new ToolInputError(`"${input}" is outside the codebase root${root ? ` (${root})` : ''}: give a path relative to the root, e.g. "src/main.ts"`);
  }
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.some((s) => s === '..')) throw new ToolInputError(`"${input}" leaves the codebase root: ".." is not allowed; give a path relative to the root`);
  if (parts.length === 0) throw new ToolInputError(`"${input}" is not a file path`);
  return parts.join('/');
}
