/**
 * The file viewer and result context: reads a file live from its codebase's folder (code on
 * demand — the index keeps chunks, not files) and says when the file changed since it was
 * indexed (hash differs) or can no longer be read.
 *
 * Invariant: only the latest `open` lands; a newer one aborts the older read.
 *
 * History (history-entry.ts): opening the viewer adds an entry, so Back closes it; ✕ and Esc
 * close it and step back off that entry.
 */
import { bridge } from '../bridges/workers.ts';
import type { AppSearchResult, OutlineEntry } from '../../../workers/store/api.ts';
import { codebases } from './codebases.svelte.ts';
import { handleError } from './notices.svelte.ts';
import { isViewerEntry, viewerEntryState } from './history-entry.ts';

/** Lines of context shown above and below an expanded result. */
export const CONTEXT_LINES = 12;

export interface OpenFile {
  codebaseId: string;
  path: string;
  language: string;
  line: number;
  endLine: number;
  /** Whole file text, or the chunk's own text when the file cannot be read. */
  text: string;
  /** First line number of `text`. */
  firstLine: number;
  status: 'live' | 'changed' | 'unavailable';
  note: string | null;
}

export interface ResultContext {
  before: string;
  after: string;
  changed: boolean;
}

class Viewer {
  #file = $state.raw<OpenFile | null>(null);
  #loading = $state(false);
  #ctl: AbortController | null = null;
  #context = $state.raw<Readonly<Record<string, ResultContext | 'unavailable'>>>({});
  #outline = $state.raw<OutlineEntry[] | null>(null);
  /** The step back taken by ✕ or Esc, until it lands. */
  #leaving = false;

  get file() { return this.#file; }
  /** The open file's definitions as indexed (null while read or when the index has none). */
  get outline() { return this.#outline; }
  get loading() { return this.#loading; }
  /** Whether a step back off the viewer's entry (✕, Esc) has not landed yet: the popstate that comes next is it. */
  get leaving() { return this.#leaving; }

  context(key: string): ResultContext | 'unavailable' | undefined {
    return this.#context[key];
  }

  async #read(r: Pick<AppSearchResult, 'codebaseId' | 'path'>, signal: AbortSignal) {
    const source = codebases.sourceFor(r.codebaseId);
    if (!source) {
      // No folder to read (a published or imported index, a snapshot, a lost permission): the
      // index keeps each file's text, exactly as it was indexed.
      const text = await bridge.getFileText(r.codebaseId, r.path, signal);
      if (text !== null) return { live: { text }, changed: false, indexed: true } as const;
      return { live: null, why: 'Sift has no access to this folder now (snapshot, imported index, or permission not restored); showing the indexed chunk.' } as const;
    }
    const [live, rec] = await Promise.all([bridge.readLiveFile(source, r.path, signal), bridge.getFileRecord(r.codebaseId, r.path, signal)]);
    if (!live.ok) {
      const why = live.reason === 'not-found' ? 'The file is gone from the folder (deleted or moved) — showing the indexed chunk.' : live.reason === 'permission' ? 'Permission to read the folder was lost — showing the indexed chunk.' : `The file could not be read (${live.message}).`;
      return { live: null, why } as const;
    }
    return { live, changed: !!rec && rec.hash !== live.hash, indexed: false } as const;
  }

  /** Opens a result, or any line range of a file (exact/regex lines pass start = end). */
  async open(r: Pick<AppSearchResult, 'codebaseId' | 'path' | 'language' | 'startLine' | 'endLine' | 'content'>): Promise<void> {
    // The viewer's entry, added once: opened again on it, it is reused; opened again while the
    // step back off it has not landed, it is added when the step lands (applyHistory).
    if (!this.#leaving && !this.#file && typeof history !== 'undefined' && !isViewerEntry(history.state)) history.pushState(viewerEntryState(history.state), '', location.href);
    this.#ctl?.abort();
    const ctl = new AbortController();
    this.#ctl = ctl;
    this.#loading = true;
    const base = { codebaseId: r.codebaseId, path: r.path, language: r.language, line: r.startLine, endLine: r.endLine };
    this.#file = { ...base, text: r.content, firstLine: r.startLine, status: 'unavailable', note: null };
    this.#outline = null;
    bridge.outline(r.codebaseId, r.path, ctl.signal).then(
      (o) => {
        if (this.#ctl === ctl) this.#outline = o;
      },
      () => {
        // No outline (the file left the index, the read was cancelled): the viewer shows none.
      },
    );
    try {
      const got = await this.#read(r, ctl.signal);
      if (ctl.signal.aborted) return;
      if (!got.live) this.#file = { ...base, text: r.content, firstLine: r.startLine, status: 'unavailable', note: got.why };
      else
        this.#file = {
          ...base,
          text: got.live.text,
          firstLine: 1,
          status: got.changed ? 'changed' : 'live',
          note: got.changed ? 'This file changed since it was indexed: lines may have moved. Rescan to update the index.' : got.indexed ? 'The file as it was indexed (this codebase has no folder Sift can read).' : null,
        };
    } catch (e) {
      handleError(e, 'Opening the file');
    } finally {
      if (this.#ctl === ctl) this.#loading = false;
    }
  }

  /**
   * Back or Forward moved through history (App calls this on popstate): the viewer is open only
   * on its own entry. The step ✕ or Esc took lands here too; a viewer opened again meanwhile gets
   * its entry now.
   */
  applyHistory(state: unknown): void {
    const own = this.#leaving;
    this.#leaving = false;
    if (!this.#file || isViewerEntry(state)) return;
    if (own) history.pushState(viewerEntryState(state), '', location.href);
    else this.#shut();
  }

  /** Closes the viewer (✕, Esc, the dialog closing): on its own entry, steps back off it. */
  close(): void {
    this.#shut();
    if (!this.#leaving && typeof history !== 'undefined' && isViewerEntry(history.state) && history.length > 1) {
      this.#leaving = true;
      history.back();
    }
  }

  #shut(): void {
    this.#ctl?.abort();
    this.#ctl = null;
    this.#file = null;
    this.#outline = null;
    this.#loading = false;
  }

  /** Loads lines around a result from the live file (for "expand"). */
  async loadContext(key: string, r: AppSearchResult): Promise<void> {
    if (key in this.#context) return;
    try {
      const got = await this.#read(r, new AbortController().signal);
      let value: ResultContext | 'unavailable' = 'unavailable';
      if (got.live) {
        const lines = got.live.text.split('\n');
        const before = lines.slice(Math.max(0, r.startLine - 1 - CONTEXT_LINES), r.startLine - 1).join('\n');
        const after = lines.slice(r.endLine, r.endLine + CONTEXT_LINES).join('\n');
        value = { before, after, changed: got.changed };
      }
      this.#context = { ...this.#context, [key]: value };
    } catch (e) {
      handleError(e, 'Loading context');
    }
  }
}

export const viewer = new Viewer();
