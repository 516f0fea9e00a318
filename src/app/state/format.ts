/** Number, size and duration formatting for the UI. Pure, locale-independent. */

/** Sizes are written one way in messages from the core and on screen. */
export { formatBytes } from '../../core/store/errors.ts';

export function formatCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A count with its noun: `1 file`, `22 files`, `1.2k chunks` (English plural with -s). */
export function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${Math.round(n) === 1 ? '' : 's'}`;
}

/**
 * An index run's files: `331 / 1.0k files` once the folder's walk has ended; before then the
 * walk's count is only what it found so far, never shown as a total: `331 of 1.0k+ files found
 * so far` (the count lags the walk, which reports every few hundred files: below that only the
 * files done are known); with none done yet (a rescan walks before it reads), just what was found.
 */
export function filesProgress(s: { indexedFiles: number; totalFiles: number; walkDone: boolean }): string {
  if (s.walkDone) return `${formatCount(s.indexedFiles)} / ${plural(s.totalFiles, 'file')}`;
  if (s.indexedFiles === 0) return s.totalFiles > 0 ? `${formatCount(s.totalFiles)}+ files found so far` : 'finding files';
  if (s.totalFiles > s.indexedFiles) return `${formatCount(s.indexedFiles)} of ${formatCount(s.totalFiles)}+ files found so far`;
  return `${plural(s.indexedFiles, 'file')} · still finding files`;
}

/** `null` or non-finite → '—'; otherwise `45 s`, `3 min 20 s`, `2 h 5 min`. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

export function formatRate(perSecond: number, unit: string): string {
  if (!Number.isFinite(perSecond) || perSecond <= 0) return `— ${unit}/s`;
  return `${perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond)} ${unit}/s`;
}

/** Relative time like `just now`, `5 min ago`, `3 h ago`, else the date. */
export function formatWhen(iso: string | null, now = Date.now()): string {
  if (!iso) return 'never';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return 'unknown';
  const s = (now - t) / 1000;
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * The badge of a result's chunk type. The index stores an Elixir `defmodule` as a `class`
 * (queries such as `class Conn` find it, and `module` is the chunk type of top-level code):
 * on screen it is what Elixir calls it, a module (and a `defprotocol`, stored as an
 * `interface`, a protocol).
 */
export function chunkTypeLabel(language: string, chunkType: string): string {
  if (language !== 'elixir') return chunkType;
  return chunkType === 'class' ? 'module' : chunkType === 'interface' ? 'protocol' : chunkType;
}

/**
 * A stored chunk type as the chunk-type filter and Stats name it, given the languages of the
 * indexes it counts: `module` is the type of top-level code (code outside any definition), and
 * where Elixir is indexed a `class` may be an Elixir module, an `interface` a protocol
 * (chunkTypeLabel). The value filtered on, and in the URL, stays the stored type.
 */
export function chunkTypeName(chunkType: string, languages: readonly string[]): string {
  if (chunkType === 'module') return 'top-level code';
  if (!languages.includes('elixir')) return chunkType;
  return chunkType === 'class' ? 'class or Elixir module' : chunkType === 'interface' ? 'interface or Elixir protocol' : chunkType;
}

/**
 * An identifier cut where a line may break in it: before each capital that follows a lower-case
 * letter or digit, and after `_`, `.`, `:` (`TestServe|File|Rejects`, `send_|error`), so a long
 * name wraps between its words rather than inside one. Joined, the parts are the name.
 */
export function nameParts(name: string): string[] {
  return name.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[_.:])(?=.)/);
}
