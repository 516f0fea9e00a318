/**
 * What an index run did not index, and why: counts by reason and by extension plus a few
 * example paths, kept in the index's meta (META.skipStats) as JSON and shown by `sift stats`
 * and the app's Stats page.
 *
 * The JSON is `SkippedStats`, snake_case like the CLI's other JSON:
 * - `total`: skipped paths; an ignored folder counts once, not its files;
 * - `by_reason`: the same paths by reason (their sum is `total`);
 * - `by_extension`: skipped FILES by lower-case extension with its dot, '(none)' for a
 *   file without one; the MAX_EXTENSIONS most frequent, the rest summed under '(other)';
 * - `examples`: the first EXAMPLES_PER_REASON paths of each reason met, grouped by reason in
 *   `by_reason`'s order (most frequent first).
 */
import { baseName } from '../source/paths.ts';
import { extensionOf, type WalkSkip, type WalkSkipReason } from './walker.ts';

/** A reason the walker gives, or one the indexer adds when it reads a file ('binary' by content, 'unreadable'). */
export type SkipReason = WalkSkipReason;

/** Each reason in words, for people (the app's Stats page, a scan's warnings). */
export const SKIP_REASON_TEXT: Record<SkipReason, string> = {
  binary: 'binary',
  ignored: 'ignored (.gitignore, .siftignore, defaults, exclude)',
  'not-included': 'not matched by “include only”',
  secret: 'likely secret: never read',
  'too-large': 'over the size limit',
  unreadable: 'unreadable',
  'link-outside': 'link leaving the folder',
  'link-loop': 'link to something already indexed',
};

export interface SkippedExample {
  path: string;
  reason: SkipReason;
  detail?: string;
}

export interface SkippedStats {
  total: number;
  by_reason: Partial<Record<SkipReason, number>>;
  by_extension: Record<string, number>;
  examples: SkippedExample[];
}

export const EXAMPLES_PER_REASON = 3;
export const MAX_EXTENSIONS = 30;
/** by_extension keys for files without an extension and for the extensions past MAX_EXTENSIONS. */
export const NO_EXTENSION = '(none)';
export const OTHER_EXTENSIONS = '(other)';

/** Counts skips as a run reports them; `result()` is the JSON to store. */
export class SkipTally {
  #total = 0;
  readonly #byReason = new Map<SkipReason, number>();
  readonly #byExtension = new Map<string, number>();
  readonly #examples: SkippedExample[] = [];

  add(s: Pick<WalkSkip, 'path' | 'reason' | 'detail' | 'directory'>): void {
    this.#total++;
    const n = this.#byReason.get(s.reason) ?? 0;
    this.#byReason.set(s.reason, n + 1);
    if (n < EXAMPLES_PER_REASON) this.#examples.push(s.detail === undefined ? { path: s.path, reason: s.reason } : { path: s.path, reason: s.reason, detail: s.detail });
    if (!s.directory) {
      const ext = extensionOf(baseName(s.path)) || NO_EXTENSION;
      this.#byExtension.set(ext, (this.#byExtension.get(ext) ?? 0) + 1);
    }
  }

  result(): SkippedStats {
    const exts = [...this.#byExtension].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const by_extension: Record<string, number> = {};
    for (const [ext, n] of exts.slice(0, MAX_EXTENSIONS)) by_extension[ext] = n;
    const rest = exts.slice(MAX_EXTENSIONS).reduce((sum, [, n]) => sum + n, 0);
    if (rest > 0) by_extension[OTHER_EXTENSIONS] = (by_extension[OTHER_EXTENSIONS] ?? 0) + rest;
    const reasons = [...this.#byReason].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([r]) => r);
    const by_reason: SkippedStats['by_reason'] = {};
    for (const r of reasons) by_reason[r] = this.#byReason.get(r);
    // Grouped by reason in by_reason's order; in the order met within a reason.
    const examples = reasons.flatMap((r) => this.#examples.filter((e) => e.reason === r));
    return { total: this.#total, by_reason, by_extension, examples };
  }
}

/** The stored JSON back, or null when absent or not of this shape (an index from before it existed). */
export function parseSkippedStats(raw: string | null): SkippedStats | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<SkippedStats> | null;
    if (!v || typeof v.total !== 'number' || typeof v.by_reason !== 'object' || typeof v.by_extension !== 'object' || !Array.isArray(v.examples)) return null;
    return { total: v.total, by_reason: v.by_reason ?? {}, by_extension: v.by_extension ?? {}, examples: v.examples };
  } catch {
    return null;
  }
}
