/**
 * The codebases this browser knows: their records (persisted with idb-keyval, folder handles
 * included), access state, index info and the running job of each. Every write action runs
 * only in the writer tab (see tabs.svelte.ts).
 *
 * Invariants:
 * - At most one job (index or embed) per codebase at a time; a new request cancels nothing,
 *   it is ignored while a job runs (rescan on focus must not restart a long first index).
 * - Pausing or cancelling keeps every committed batch: the indexer writes whole files per
 *   transaction, so "Resume" is just another incremental run.
 * - A `snapshot` codebase (webkitdirectory / dropped files) has no handle: it stays
 *   searchable after a reload but cannot be rescanned in place.
 */
import { get, set } from 'idb-keyval';
import { bridge } from '../bridges/workers.ts';
import { isAbortError } from '../../core/cancel.ts';
import type { CodebaseInfo } from '../../../workers/store/api.ts';
import type { IndexProgress, SourceRef } from '../../../workers/indexer/api.ts';
import type { EmbedProgress } from '../../core/embed/embed-pass.ts';
import type { IndexSummary } from '../../core/index/indexer.ts';
import { handleError, notices } from './notices.svelte.ts';
import { tabs } from './tabs.svelte.ts';
import { META } from '../../core/store/meta.ts';

const STORE_KEY = 'sift:codebases';
/** A focus-triggered rescan runs at most this often per codebase. */
const FOCUS_RESCAN_MIN_MS = 15_000;
/** FileSystemObserver changes are coalesced for this long before a rescan. */
const OBSERVER_DEBOUNCE_MS = 800;

export type CodebaseKind = 'folder' | 'snapshot' | 'imported';
export type Access = 'granted' | 'prompt' | 'denied' | 'missing' | 'none';

export interface CodebaseRecord {
  id: string;
  name: string;
  kind: CodebaseKind;
  handle: FileSystemDirectoryHandle | null;
  addedAt: string;
}

export type JobState =
  | { kind: 'index'; progress: IndexProgress | null }
  | { kind: 'embed'; progress: EmbedProgress | null };

export interface CodebaseView {
  record: CodebaseRecord;
  access: Access;
  info: CodebaseInfo | null;
  job: JobState | null;
  /** The last run stopped before finishing (paused, cancelled, tab closed, crash). */
  interrupted: boolean;
  /** What another tab reports while it indexes this codebase. */
  remoteProgress: string | null;
  lastSummary: IndexSummary | null;
  error: string | null;
}

type PermissionHandle = FileSystemDirectoryHandle & {
  queryPermission?(d: { mode: 'read' }): Promise<PermissionState>;
  requestPermission?(d: { mode: 'read' }): Promise<PermissionState>;
};

type ObserverCtor = new (cb: (records: unknown[]) => void) => { observe(h: FileSystemHandle, o: { recursive: boolean }): Promise<void>; disconnect(): void };

function newId(): string {
  const r = new Uint8Array(6);
  crypto.getRandomValues(r);
  return `cb-${Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

async function queryAccess(handle: FileSystemDirectoryHandle): Promise<Access> {
  const h = handle as PermissionHandle;
  try {
    const state = h.queryPermission ? await h.queryPermission({ mode: 'read' }) : 'granted';
    if (state !== 'granted') return state === 'denied' ? 'denied' : 'prompt';
    // Granted but gone? Reading the first entry tells.
    const it = (handle as unknown as { keys(): AsyncIterableIterator<string> }).keys();
    await it.next();
    await it.return?.();
    return 'granted';
  } catch (e) {
    return (e as { name?: string }).name === 'NotFoundError' ? 'missing' : 'denied';
  }
}

/** Files from `<input webkitdirectory>` carry `webkitRelativePath`; dropped files may not. */
function snapshotName(files: File[]): string {
  const rel = (files[0] as File & { webkitRelativePath?: string }).webkitRelativePath ?? '';
  return rel.split('/')[0] || 'Uploaded files';
}

class Codebases {
  #views = $state.raw<CodebaseView[]>([]);
  #ready = $state(false);
  /** Bumped whenever searchable data changed (a batch landed, a rescan ended, a tab wrote). */
  #dataVersion = $state(0);
  #jobs = new Map<string, AbortController>();
  #paused = new Set<string>();
  #snapshots = new Map<string, { files: File[]; paths: string[] }>();
  #lastCheck = new Map<string, number>();
  #observers = new Map<string, { disconnect(): void }>();
  #observerTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Set by the model state: embeds new chunks after indexing when a model is loaded. */
  embedAfterIndex: ((id: string) => void) | null = null;

  get list(): CodebaseView[] {
    return this.#views;
  }

  get ready(): boolean {
    return this.#ready;
  }

  get dataVersion(): number {
    return this.#dataVersion;
  }

  get anyJob(): boolean {
    return this.#views.some((v) => v.job !== null);
  }

  byId(id: string): CodebaseView | undefined {
    return this.#views.find((v) => v.record.id === id);
  }

  isPaused(id: string): boolean {
    return this.#paused.has(id);
  }

  #patch(id: string, patch: Partial<CodebaseView>): void {
    this.#views = this.#views.map((v) => (v.record.id === id ? { ...v, ...patch } : v));
  }

  async #save(): Promise<void> {
    await set(STORE_KEY, this.#views.map((v) => v.record));
    tabs.post({ type: 'codebases-changed' });
  }

  /** Loads the records, checks access and opens every database. */
  async init(): Promise<void> {
    tabs.subscribe((m) => void this.#onTabMessage(m));
    tabs.onBecomeWriter(() => void this.#resumeInterrupted());
    await this.#load();
    this.#ready = true;
    if (typeof window !== 'undefined') {
      window.addEventListener('focus', () => this.#onFocus());
      document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && this.#onFocus());
    }
  }

  async #load(): Promise<void> {
    const records = ((await get<CodebaseRecord[]>(STORE_KEY)) ?? []).filter((r) => r && r.id);
    const prev = new Map(this.#views.map((v) => [v.record.id, v]));
    this.#views = records.map(
      (record) =>
        prev.get(record.id) ?? { record, access: record.handle ? 'prompt' : 'none', info: null, job: null, interrupted: false, remoteProgress: null, lastSummary: null, error: null },
    );
    await Promise.all(
      records.map(async (r) => {
        const access = r.handle ? await queryAccess(r.handle) : 'none';
        let info: CodebaseInfo | null = null;
        try {
          info = await bridge.openCodebase(r.id);
        } catch (e) {
          handleError(e, `Opening the index of ${r.name}`);
        }
        this.#patch(r.id, { access, info, interrupted: info?.runState === 'indexing' });
        if (access === 'granted') this.#observe(r.id);
      }),
    );
    this.#dataVersion++;
  }

  async #onTabMessage(m: Awaited<Parameters<Parameters<typeof tabs.subscribe>[0]>[0]>): Promise<void> {
    if (m.type === 'codebases-changed') await this.#load();
    else if (m.type === 'index-updated') {
      await bridge.reloadVectors(m.codebaseId).catch(() => undefined);
      await this.refreshInfo(m.codebaseId);
      this.#patch(m.codebaseId, { remoteProgress: null });
      this.#dataVersion++;
    } else if (m.type === 'progress') {
      this.#patch(m.codebaseId, { remoteProgress: m.text });
      this.#dataVersion++;
    }
  }

  async refreshInfo(id: string): Promise<void> {
    try {
      const info = await bridge.codebaseInfo(id);
      this.#patch(id, { info, interrupted: info.runState === 'indexing' && !this.byId(id)?.job });
    } catch (e) {
      handleError(e, 'Reading index info');
    }
  }

  sourceFor(id: string): SourceRef | null {
    const v = this.byId(id);
    if (!v) return null;
    if (v.record.kind === 'folder' && v.record.handle && v.access === 'granted') return { kind: 'folder', name: v.record.name, handle: v.record.handle };
    const snap = this.#snapshots.get(id);
    if (snap) return { kind: 'files', name: v.record.name, files: snap.files, paths: snap.paths };
    return null;
  }

  #requireWriter(): boolean {
    if (tabs.isWriter) return true;
    notices.push('warning', 'Another Sift tab is the writer. This tab can search but not change indexes — switch to that tab or close it.');
    return false;
  }

  // ---- adding codebases ----

  /** The File System Access picker; falls back to the caller's file input where missing. */
  get canPickFolders(): boolean {
    return typeof window !== 'undefined' && 'showDirectoryPicker' in window;
  }

  async openFolder(): Promise<void> {
    if (!this.#requireWriter()) return;
    let handle: FileSystemDirectoryHandle;
    try {
      handle = await (window as unknown as { showDirectoryPicker(o: object): Promise<FileSystemDirectoryHandle> }).showDirectoryPicker({ id: 'sift-codebase', mode: 'read' });
    } catch (e) {
      if ((e as { name?: string }).name === 'AbortError') return; // picker dismissed
      handleError(e, 'Opening the folder');
      return;
    }
    await this.addHandle(handle);
  }

  async addHandle(handle: FileSystemDirectoryHandle): Promise<void> {
    if (!this.#requireWriter()) return;
    for (const v of this.#views) {
      if (v.record.handle && (await v.record.handle.isSameEntry(handle).catch(() => false))) {
        this.#patch(v.record.id, { access: 'granted' });
        notices.push('info', `${v.record.name} is already indexed — rescanning it.`);
        void this.rescan(v.record.id);
        return;
      }
    }
    const record: CodebaseRecord = { id: newId(), name: handle.name, kind: 'folder', handle, addedAt: new Date().toISOString() };
    await this.#add(record, 'granted');
    this.#observe(record.id);
    void this.rescan(record.id);
  }

  async addSnapshot(files: File[], name = snapshotName(files), paths = files.map((f) => f.webkitRelativePath || f.name)): Promise<void> {
    if (!this.#requireWriter() || files.length === 0) return;
    const record: CodebaseRecord = { id: newId(), name, kind: 'snapshot', handle: null, addedAt: new Date().toISOString() };
    this.#snapshots.set(record.id, { files, paths });
    await this.#add(record, 'none');
    void this.rescan(record.id);
  }

  /** Drag and drop: a real directory handle where the browser gives one, else the files. */
  async addDropped(items: DataTransferItem[]): Promise<void> {
    if (!this.#requireWriter()) return;
    for (const item of items) {
      const getHandle = (item as DataTransferItem & { getAsFileSystemHandle?: () => Promise<FileSystemHandle | null> }).getAsFileSystemHandle;
      if (getHandle) {
        const h = await getHandle.call(item);
        if (h?.kind === 'directory') {
          await this.addHandle(h as FileSystemDirectoryHandle);
          return;
        }
      }
    }
    const entry = items.map((i) => i.webkitGetAsEntry?.()).find((e) => e?.isDirectory) as FileSystemDirectoryEntry | undefined;
    if (!entry) {
      notices.push('warning', 'Drop a folder, not single files.');
      return;
    }
    const { files, paths } = await readEntryTree(entry);
    await this.addSnapshot(files, entry.name, paths);
  }

  async #add(record: CodebaseRecord, access: Access): Promise<void> {
    const view: CodebaseView = { record, access, info: null, job: null, interrupted: false, remoteProgress: null, lastSummary: null, error: null };
    this.#views = [...this.#views, view];
    try {
      this.#patch(record.id, { info: await bridge.openCodebase(record.id) });
      await bridge.setMeta(record.id, META.codebaseName, record.name);
    } catch (e) {
      handleError(e, `Creating the index of ${record.name}`);
    }
    await this.#save();
  }

  // ---- access ----

  async restoreAccess(id: string): Promise<void> {
    const v = this.byId(id);
    const h = v?.record.handle as PermissionHandle | null | undefined;
    if (!v || !h) return;
    try {
      const state = h.requestPermission ? await h.requestPermission({ mode: 'read' }) : 'granted';
      const access = state === 'granted' ? await queryAccess(h) : state === 'denied' ? 'denied' : 'prompt';
      this.#patch(id, { access, error: null });
      if (access === 'granted') {
        this.#observe(id);
        if (tabs.isWriter) void this.rescan(id);
      } else if (access === 'missing') notices.push('warning', `${v.record.name} was moved or deleted. Its index stays searchable; open the folder again to update it.`);
      else notices.push('warning', `Sift was not allowed to read ${v.record.name}. Its index stays searchable.`);
    } catch (e) {
      handleError(e, `Restoring access to ${v.record.name}`);
    }
  }

  async restoreAll(): Promise<void> {
    for (const v of this.#views) if (v.access === 'prompt') await this.restoreAccess(v.record.id);
  }

  // ---- jobs ----

  /** Incremental index run (the first run is just a rescan of an empty index). */
  async rescan(id: string, opts: { verify?: boolean; quiet?: boolean } = {}): Promise<IndexSummary | null> {
    if (!tabs.isWriter) {
      if (!opts.quiet) this.#requireWriter();
      return null;
    }
    const v = this.byId(id);
    if (!v || v.job) return null;
    const source = this.sourceFor(id);
    if (!source) {
      if (!opts.quiet) {
        notices.push(
          'warning',
          v.record.kind === 'folder'
            ? `Sift has no access to ${v.record.name} right now. Use “Restore access”.`
            : `${v.record.name} was added as a snapshot (upload or drop) and cannot be rescanned in place. Add the folder again to update it.`,
        );
      }
      return null;
    }
    this.#paused.delete(id);
    const ctl = new AbortController();
    this.#jobs.set(id, ctl);
    this.#lastCheck.set(id, Date.now());
    this.#patch(id, { job: { kind: 'index', progress: null }, error: null, interrupted: false });
    let lastBroadcast = 0;
    let searchableSeen = false;
    try {
      const summary = await bridge.indexCodebase(id, source, {
        verify: opts.verify,
        signal: ctl.signal,
        onProgress: (p) => {
          this.#patch(id, { job: { kind: 'index', progress: p } });
          if (p.searchable && (!searchableSeen || Date.now() - lastBroadcast > 1000)) {
            searchableSeen = true;
            this.#dataVersion++;
          }
          if (Date.now() - lastBroadcast > 500) {
            lastBroadcast = Date.now();
            tabs.post({ type: 'progress', codebaseId: id, text: `Indexing in another tab: ${p.status.indexedFiles}/${p.status.totalFiles} files` });
          }
        },
      });
      this.#patch(id, { lastSummary: summary });
      if (!summary.unchanged || !opts.quiet) {
        if (!summary.unchanged) await bridge.reloadVectors(id).catch(() => undefined);
        await this.refreshInfo(id);
        this.#dataVersion++;
        tabs.post({ type: 'index-updated', codebaseId: id });
      }
      this.#jobs.delete(id);
      this.#patch(id, { job: null });
      this.embedAfterIndex?.(id);
      return summary;
    } catch (e) {
      const paused = this.#paused.has(id);
      if (isAbortError(e)) this.#patch(id, { interrupted: true });
      else {
        this.#patch(id, { error: e instanceof Error ? e.message : String(e), interrupted: true });
        handleError(e, `Indexing ${v.record.name}`);
        if ((e as { name?: string }).name === 'NotAllowedError' || (e as { name?: string }).name === 'NotFoundError') {
          this.#patch(id, { access: v.record.handle ? await queryAccess(v.record.handle) : 'none' });
        }
      }
      await this.refreshInfo(id);
      this.#patch(id, { interrupted: true });
      this.#dataVersion++;
      tabs.post({ type: 'index-updated', codebaseId: id });
      if (!paused) this.#paused.delete(id);
      return null;
    } finally {
      this.#jobs.delete(id);
      this.#patch(id, { job: null });
    }
  }

  /** Embeds chunks without vectors; the caller (model state) passes the loaded model's key. */
  async embed(id: string): Promise<void> {
    if (!tabs.isWriter) return;
    const v = this.byId(id);
    if (!v || v.job) return;
    const ctl = new AbortController();
    this.#jobs.set(id, ctl);
    this.#patch(id, { job: { kind: 'embed', progress: null } });
    let last = 0;
    try {
      await bridge.embedPending(id, {
        signal: ctl.signal,
        onProgress: (p) => {
          this.#patch(id, { job: { kind: 'embed', progress: p } });
          if (Date.now() - last > 1500) {
            last = Date.now();
            this.#dataVersion++;
          }
        },
      });
      tabs.post({ type: 'index-updated', codebaseId: id });
    } catch (e) {
      handleError(e, `Embedding ${v.record.name}`);
    } finally {
      this.#jobs.delete(id);
      this.#patch(id, { job: null });
      await this.refreshInfo(id);
      this.#dataVersion++;
    }
  }

  pause(id: string): void {
    this.#paused.add(id);
    this.#jobs.get(id)?.abort();
  }

  cancel(id: string): void {
    this.#paused.delete(id);
    this.#jobs.get(id)?.abort();
  }

  resume(id: string): void {
    void this.rescan(id);
  }

  async remove(id: string): Promise<void> {
    if (!this.#requireWriter()) return;
    const v = this.byId(id);
    if (!v) return;
    this.#jobs.get(id)?.abort();
    this.#observers.get(id)?.disconnect();
    this.#observers.delete(id);
    try {
      await bridge.removeCodebase(id);
    } catch (e) {
      handleError(e, `Removing ${v.record.name}`);
      return;
    }
    this.#snapshots.delete(id);
    this.#views = this.#views.filter((x) => x.record.id !== id);
    await this.#save();
    this.#dataVersion++;
  }

  // ---- export / import ----

  /** The index as one SQLite file (schema version and model key are in its meta table). */
  async exportIndex(id: string): Promise<{ name: string; blob: Blob } | null> {
    const v = this.byId(id);
    if (!v) return null;
    try {
      const bytes = await bridge.exportIndex(id);
      return { name: `${v.record.name}.sift.sqlite`, blob: new Blob([bytes as BlobPart], { type: 'application/vnd.sqlite3' }) };
    } catch (e) {
      handleError(e, `Exporting ${v.record.name}`);
      return null;
    }
  }

  async importIndex(file: File, expectModel: string | null): Promise<boolean> {
    if (!this.#requireWriter()) return false;
    const id = newId();
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const res = await bridge.importIndex(id, bytes, expectModel);
      if (!res.ok) {
        notices.push('error', `Import failed: ${res.message}`);
        return false;
      }
      const name = res.name ?? file.name.replace(/\.sift\.sqlite$|\.sqlite$/i, '');
      const record: CodebaseRecord = { id, name, kind: 'imported', handle: null, addedAt: new Date().toISOString() };
      this.#views = [...this.#views, { record, access: 'none', info: res.info, job: null, interrupted: false, remoteProgress: null, lastSummary: null, error: null }];
      await this.#save();
      this.#dataVersion++;
      notices.push('info', `Imported ${name}: ${res.info.files} files, ${res.info.chunks} chunks.`);
      return true;
    } catch (e) {
      handleError(e, 'Importing the index');
      return false;
    }
  }

  // ---- keeping up with edits ----

  #onFocus(): void {
    if (!tabs.isWriter) return;
    for (const v of this.#views) {
      if (v.record.kind !== 'folder' || v.access !== 'granted' || v.job || this.#paused.has(v.record.id)) continue;
      if (this.#observers.has(v.record.id)) continue; // the observer already keeps it fresh
      if (Date.now() - (this.#lastCheck.get(v.record.id) ?? 0) < FOCUS_RESCAN_MIN_MS) continue;
      void this.rescan(v.record.id, { quiet: true });
    }
  }

  #observe(id: string): void {
    const Ctor = (globalThis as { FileSystemObserver?: ObserverCtor }).FileSystemObserver;
    const v = this.byId(id);
    if (!Ctor || !v?.record.handle || this.#observers.has(id)) return;
    try {
      const obs = new Ctor(() => {
        clearTimeout(this.#observerTimers.get(id));
        this.#observerTimers.set(
          id,
          setTimeout(() => void this.rescan(id, { quiet: true }), OBSERVER_DEBOUNCE_MS),
        );
      });
      obs.observe(v.record.handle, { recursive: true }).catch(() => this.#observers.delete(id));
      this.#observers.set(id, obs);
    } catch {
      // Observer unsupported for this handle: focus rescans cover it.
    }
  }

  /** A writer tab picks up runs that a closed or crashed tab left unfinished. */
  async #resumeInterrupted(): Promise<void> {
    if (!this.#ready) return;
    for (const v of this.#views) if (v.interrupted && !v.job && this.sourceFor(v.record.id)) void this.rescan(v.record.id, { quiet: true });
  }
}

/** Reads a dropped folder (non-Chromium drag and drop) into File objects with relative paths. */
async function readEntryTree(root: FileSystemDirectoryEntry): Promise<{ files: File[]; paths: string[] }> {
  const out: File[] = [];
  const paths: string[] = [];
  const walk = async (dir: FileSystemDirectoryEntry, prefix: string): Promise<void> => {
    const reader = dir.createReader();
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
      if (batch.length === 0) break;
      for (const e of batch) {
        if (e.isDirectory) await walk(e as FileSystemDirectoryEntry, `${prefix}${e.name}/`);
        else {
          const f = await new Promise<File>((res, rej) => (e as FileSystemFileEntry).file(res, rej));
          out.push(f);
          paths.push(`${root.name}/${prefix}${e.name}`);
        }
      }
    }
  };
  await walk(root, '');
  return { files: out, paths };
}

export const codebases = new Codebases();
