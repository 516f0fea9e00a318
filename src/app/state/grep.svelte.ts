/**
 * Exact and regex search in the app (issue 11): the latest line response, grouped by file
 * like VS Code's search view, and the selected line. The query, mode, case and filters are
 * owned by search.svelte.ts (and the URL); it calls `run` when they select a line mode.
 *
 * Invariants: at most one grep is in flight — a newer `run` (the query changed) aborts the
 * older, which the store worker stops (cancel token) and whose answer never lands. An invalid
 * pattern is a value (`error`), shown under the box; it never throws.
 */
import { bridge } from '../bridges/workers.ts';
import type { AppGrepLine, AppGrepRequest, AppGrepResponse } from '../../../workers/store/api.ts';
import { LatestCall, keepSelection } from './latest-call.svelte.ts';
import { viewer } from './viewer.svelte.ts';

export type GrepAnswer = Extract<AppGrepResponse, { ok: true }>;

export interface GrepFileGroup {
  key: string;
  codebaseId: string;
  path: string;
  /** The file's lines among those returned, with their index in `lines`. */
  items: Array<{ line: AppGrepLine; index: number }>;
}

const lineKey = (l: AppGrepLine): string => `${l.codebaseId}\n${l.path}\n${l.line}`;

class GrepSearch {
  #answer = $state.raw<GrepAnswer | null>(null);
  #error = $state.raw<{ pattern: string; message: string; offset: number | null } | null>(null);
  #selected = $state(-1);
  #call = new LatestCall();

  get answer() { return this.#answer; }
  get error() { return this.#error; }
  get loading() { return this.#call.loading; }
  get selected() { return this.#selected; }
  get lines(): readonly AppGrepLine[] { return this.#answer?.lines ?? []; }
  get selectedLine(): AppGrepLine | null { return this.lines[this.#selected] ?? null; }

  /** Lines grouped by codebase + file, files in result (path) order. */
  get groups(): GrepFileGroup[] {
    const groups: GrepFileGroup[] = [];
    let last: GrepFileGroup | null = null;
    this.lines.forEach((line, index) => {
      const key = `${line.codebaseId}\n${line.path}`;
      if (!last || last.key !== key) {
        last = { key, codebaseId: line.codebaseId, path: line.path, items: [] };
        groups.push(last);
      }
      last.items.push({ line, index });
    });
    return groups;
  }

  async run(req: AppGrepRequest): Promise<void> {
    await this.#call.run((signal) => bridge.grep(req, signal), (res) => {
      if (!res.ok) {
        this.#error = { pattern: res.pattern, message: res.message, offset: res.offset };
        this.#answer = null;
        this.#selected = -1;
        return;
      }
      const prev = this.selectedLine;
      this.#error = null;
      this.#answer = res;
      this.#selected = keepSelection(res.lines, prev ? lineKey(prev) : null, lineKey);
    });
  }

  clear(): void {
    this.#call.cancel();
    this.#answer = null;
    this.#error = null;
    this.#selected = -1;
  }

  /** Opens the file viewer at a line (Enter or click). */
  open(l: AppGrepLine): void {
    void viewer.open({ codebaseId: l.codebaseId, path: l.path, language: l.language, startLine: l.line, endLine: l.line, content: l.content });
  }

  select(i: number): void {
    this.#selected = Math.max(-1, Math.min(this.lines.length - 1, i));
  }

  move(delta: number): void {
    if (!this.lines.length) return;
    this.#selected = Math.max(0, Math.min(this.lines.length - 1, this.#selected < 0 ? 0 : this.#selected + delta));
  }
}

export const grepSearch = new GrepSearch();
