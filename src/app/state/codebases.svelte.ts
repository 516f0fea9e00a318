/**
 * The codebases this browser knows: one view per codebase (its record, access state, index
 * info and running job) and the actions on them. Every write action runs only in the
 * writer tab. The pieces it coordinates take their dependencies here, in the constructor:
 * persistence (codebase-records.ts), cross-tab sync (codebase-sync.ts), running jobs
 * (codebase-jobs.ts), observers and focus rescans (folder-watch.ts), folder permissions
 * (folder-access.ts); reading drops and file inputs is core (src/core/source/drop.ts).
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
import { bridge as workerBridge, type WorkerBridge } from '../bridges/workers.ts';
import { isAbortError } from '../../core/cancel.ts';
import type { CodebaseInfo, DownloadProgress } from '../../../workers/store/api.ts';
import type { IndexProgress, IndexWalkSettings, SourceRef } from '../../../workers/indexer/api.ts';
import type { EmbedProgress, EmbedSummary } from '../../core/embed/embed-pass.ts';
import type { IndexSummary } from '../../core/index/indexer.ts';
import { fileSnapshot, readDrop, type FileSnapshot } from '../../core/source/drop.ts';
import { META } from '../../core/store/meta.ts';
import { handleError, notices } from './notices.svelte.ts';
import { tabs } from './tabs.svelte.ts';
import { CodebaseRecords, newCodebaseId, newRecord, type CodebaseRecord } from './codebase-records.ts';
import { CodebaseSync, type TabChannel } from './codebase-sync.ts';
import { CodebaseJobs } from './codebase-jobs.ts';
import { FolderWatch, type ObserverCtor } from './folder-watch.ts';
import { queryAccess, requestAccess, type Access } from './folder-access.ts';
import { indexSettings } from './index-settings.svelte.ts';
import { filesProgress } from './format.ts';

export type { CodebaseKind, CodebaseRecord } from './codebase-records.ts';
export type { Access } from './folder-access.ts';

/** Another tab hears about indexing progress at most this often. */
const PROGRESS_BROADCAST_MS = 500;

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

/** The worker calls the codebases make. */
export type CodebaseBridge = Pick<
  WorkerBridge,
  'openCodebase' | 'prepareCodebase' | 'codebaseInfo' | 'removeCodebase' | 'reloadVectors' | 'setMeta' | 'indexCodebase' | 'embedPending' | 'exportIndex' | 'importIndex' | 'openPack' | 'downloadPack' | 'warm'
>;

export interface CodebasesDeps {
  bridge: CodebaseBridge;
  records: CodebaseRecords;
  tabs: TabChannel;
  Observer?: ObserverCtor;
  /** What to index (Settings → Indexing), read at the start of every run; default: the worker's defaults. */
  walkSettings?: () => IndexWalkSettings;
}

/** What a codebase's row counts, and whether an index run is changing it now. */
export interface RowCounts {
  files: number;
  chunks: number;
  indexing: boolean;
  /** The counts are the running first index's (the stored info, its size too, is from before it). */
  fromRun: boolean;
}

/**
 * A codebase's files and chunks as its row shows them: the stored index's (re-read at each run's
 * end), except while its first index runs: nothing was stored when its info was read, so the
 * run's own counts so far stand in (files done, chunks cut; at most a batch ahead of the store).
 */
export function rowCounts(view: CodebaseView): RowCounts | null {
  const job = view.job?.kind === 'index' ? view.job : null;
  const indexing = job !== null;
  const p = job?.progress ?? null;
  if (p && view.info && view.info.updatedAt === null) {
    return { files: Math.max(view.info.files, p.status.indexedFiles), chunks: Math.max(view.info.chunks, p.status.totalChunks), indexing, fromRun: true };
  }
  return view.info ? { files: view.info.files, chunks: view.info.chunks, indexing, fromRun: false } : null;
}

function newView(record: CodebaseRecord, access: Access, info: CodebaseInfo | null = null): CodebaseView {
  return { record, access, info, job: null, interrupted: false, remoteProgress: null, lastSummary: record.lastSummary ?? null, error: null };
}

/** A published index the host cannot serve in parts: the page offers to download it whole. */
export interface PackOffer {
  url: string;
  message: string;
  /** The pack's size, when the manifest was read. */
  bytes: number | null;
  /** Whether downloading the whole pack can help (a host without ranges, or compressing). */
  canDownload: boolean;
}

class Codebases {
  /**
   * The query typed while a run starts (App.svelte wires the search box here): a small folder's
   * files holding its words are indexed first, so results come with the first batch.
   */
  queryWhileIndexing: () => string = () => '';

  #views = $state.raw<CodebaseView[]>([]);
  #packOffer = $state<PackOffer | null>(null);
  #opening = $state<string | null>(null);
  /** A whole-pack download in progress (downloadOfferedPack): bytes so far and in all. */
  #downloading = $state<DownloadProgress | null>(null);
  #ready = $state(false);
  /** Bumped whenever searchable data changed (a batch landed, a rescan ended, a tab wrote). */
  #dataVersion = $state(0);
  readonly #bridge: CodebaseBridge;
  readonly #records: CodebaseRecords;
  readonly #sync: CodebaseSync;
  readonly #jobs = new CodebaseJobs();
  readonly #watch: FolderWatch;
  readonly #walkSettings: () => IndexWalkSettings | undefined;
  /** Files of snapshot codebases added in this page (they are not persisted). */
  readonly #snapshots = new Map<string, FileSnapshot>();
  /**
   * The spare index: an empty database the store worker has created and holds open, whose id
   * the next added codebase takes (#takeSpare), so a pick waits for no OPFS file creation,
   * schema or journal sync. Set once it is open; null while none is ready.
   */
  #spare: string | null = null;
  #spareStarted = false;
  /** Set by the model state: embeds new chunks after indexing when a model is loaded. */
  embedAfterIndex: ((id: string) => void) | null = null;
  /** Set by the model state: told each finished embedding pass (its chunks/s refine the estimates). */
  embedFinished: ((summary: EmbedSummary) => void) | null = null;

  constructor(deps: CodebasesDeps) {
    this.#bridge = deps.bridge;
    this.#records = deps.records;
    this.#sync = new CodebaseSync(deps.tabs);
    this.#walkSettings = deps.walkSettings ?? (() => undefined);
    this.#watch = new FolderWatch({ rescan: (id) => void this.rescan(id, { quiet: true }), Observer: deps.Observer });
  }

  get list(): CodebaseView[] {
    return this.#views;
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** The last published index that could not be opened in parts, with what to do about it. */
  get packOffer(): PackOffer | null {
    return this.#packOffer;
  }

  /** The index URL being opened right now (null: none). */
  get opening(): string | null {
    return this.#opening;
  }

  get downloading(): DownloadProgress | null {
    return this.#downloading;
  }

  get dataVersion(): number {
    return this.#dataVersion;
  }

  get anyJob(): boolean {
    return this.#views.some((v) => v.job !== null);
  }

  /** A codebase's index run is going on: a search sees its files as they are written. */
  get indexing(): boolean {
    return this.#views.some((v) => v.job?.kind === 'index');
  }

  byId(id: string): CodebaseView | undefined {
    return this.#views.find((v) => v.record.id === id);
  }

  isPaused(id: string): boolean {
    return this.#jobs.isPaused(id);
  }

  #patch(id: string, patch: Partial<CodebaseView>): void {
    this.#views = this.#views.map((v) => (v.record.id === id ? { ...v, ...patch } : v));
  }

  /** Saves the records; `listChanged: false` when no other tab needs to reload its list (a scan's summary). */
  async #save(o: { listChanged?: boolean } = {}): Promise<void> {
    await this.#records.save(this.#views.map((v) => v.record));
    if (o.listChanged !== false) this.#sync.listChanged();
  }

  /** Loads the records, checks access and opens every database. */
  async init(): Promise<void> {
    this.#sync.listen({
      listChanged: () => void this.#load(),
      indexUpdated: (id) => void this.#onRemoteUpdate(id),
      progress: (id, text) => {
        this.#patch(id, { remoteProgress: text });
        this.#dataVersion++;
      },
      becameWriter: () => {
        void this.#resumeInterrupted();
        this.#prepareSpare();
      },
    });
    await this.#load();
    this.#ready = true;
    // The first folder added needs SQLite: it loads now, not after the pick. On a first visit
    // (no codebase yet) adding a folder is the page's only next step: the indexer worker and
    // tree-sitter load next, so a quick pick does not wait for them either.
    void this.#bridge.warm('store').then(() => {
      if (this.#views.length === 0) this.prepareToIndex();
      this.#prepareSpare();
    });
    if (typeof window !== 'undefined') {
      window.addEventListener('focus', () => this.#onFocus());
      document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && this.#onFocus());
    }
  }

  async #load(): Promise<void> {
    const records = await this.#records.load();
    const prev = new Map(this.#views.map((v) => [v.record.id, v]));
    this.#views = records.map((record) => prev.get(record.id) ?? newView(record, record.handle ? 'prompt' : 'none'));
    await Promise.all(
      records.map(async (r) => {
        const access = r.handle ? await queryAccess(r.handle) : 'none';
        let info: CodebaseInfo | null = null;
        let error: string | null = null;
        try {
          if (r.kind === 'pack' && r.url) {
            const res = await this.#bridge.openPack(r.id, r.url, r.manifest ?? null);
            if (res.ok) info = res.info;
            else error = res.message;
          } else {
            info = await this.#bridge.openCodebase(r.id);
          }
        } catch (e) {
          handleError(e, `Opening the index of ${r.name}`);
        }
        this.#patch(r.id, { access, info, error, interrupted: info?.runState === 'indexing' });
        if (access === 'granted' && r.handle) this.#watch.observe(r.id, r.handle);
      }),
    );
    this.#dataVersion++;
  }

  async #onRemoteUpdate(id: string): Promise<void> {
    await this.#bridge.reloadVectors(id).catch(() => undefined);
    await this.refreshInfo(id);
    this.#patch(id, { remoteProgress: null });
    this.#dataVersion++;
  }

  async refreshInfo(id: string): Promise<void> {
    try {
      const info = await this.#bridge.codebaseInfo(id);
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
    if (this.#sync.isWriter) return true;
    notices.push('warning', 'Another Sift tab is the writer. This tab can search but not change indexes — switch to that tab or close it.');
    return false;
  }

  // ---- adding codebases ----

  /** The File System Access picker; falls back to the caller's file input where missing. */
  get canPickFolders(): boolean {
    return typeof window !== 'undefined' && 'showDirectoryPicker' in window;
  }

  /**
   * Creates (or reopens, from an earlier visit) the spare index in the store worker, once per
   * page and only in the writer tab: the next codebase added takes its id.
   */
  #prepareSpare(): void {
    if (!this.#sync.isWriter || this.#spareStarted) return;
    this.#spareStarted = true;
    void (async () => {
      let id = await this.#records.loadSpare();
      // A spare id among the records was taken by a codebase (its record saved, the key not cleared).
      if (!id || this.#views.some((v) => v.record.id === id)) {
        id = newCodebaseId();
        await this.#records.saveSpare(id);
      }
      await this.#bridge.prepareCodebase(id);
      if (!this.#views.some((v) => v.record.id === id)) this.#spare = id;
    })().catch(() => undefined);
  }

  /** The spare index's id for a codebase being added (forgotten at once), or a new id. */
  #takeSpare(): string {
    const id = this.#spare;
    this.#spare = null;
    if (!id) return newCodebaseId();
    void this.#records.saveSpare(null).catch(() => undefined);
    return id;
  }

  /** A folder is about to be picked or dropped: tree-sitter loads while the person chooses. */
  prepareToIndex(): void {
    if (this.#sync.isWriter) void this.#bridge.warm('indexer');
  }

  async openFolder(): Promise<void> {
    if (!this.#requireWriter()) return;
    this.prepareToIndex();
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
    const record = newRecord(handle.name, 'folder', handle, this.#takeSpare());
    // The first index starts with the row, beside opening the store and saving the record
    // (the store worker takes them in turn): the first results wait on no round trip.
    const added = this.#add(record, 'granted');
    this.#watch.observe(record.id, handle);
    void this.rescan(record.id);
    await added;
  }

  /** Files from `<input webkitdirectory>` (or a dropped folder's files): a snapshot codebase. */
  async addSnapshot(files: File[]): Promise<void> {
    await this.#addSnapshot(fileSnapshot(files));
  }

  async #addSnapshot(snapshot: FileSnapshot): Promise<void> {
    if (!this.#requireWriter() || snapshot.files.length === 0) return;
    const record = newRecord(snapshot.name, 'snapshot', null, this.#takeSpare());
    this.#snapshots.set(record.id, snapshot);
    const added = this.#add(record, 'none');
    void this.rescan(record.id);
    await added;
  }

  /** Drag and drop: a real directory handle where the browser gives one, else the files. */
  async addDropped(items: DataTransferItem[]): Promise<void> {
    if (!this.#requireWriter()) return;
    const dropped = await readDrop(items);
    if (dropped.kind === 'folder') await this.addHandle(dropped.handle);
    else if (dropped.kind === 'snapshot') await this.#addSnapshot(dropped.snapshot);
    else notices.push('warning', 'Drop a folder, not single files.');
  }

  /** Adds the row at once (before its first await), then opens the store and saves the record. */
  async #add(record: CodebaseRecord, access: Access): Promise<void> {
    this.#views = [...this.#views, newView(record, access)];
    try {
      this.#patch(record.id, { info: await this.#bridge.openCodebase(record.id) });
      await this.#bridge.setMeta(record.id, META.codebaseName, record.name);
    } catch (e) {
      handleError(e, `Creating the index of ${record.name}`);
    }
    await this.#save();
  }

  // ---- access ----

  async restoreAccess(id: string): Promise<void> {
    const v = this.byId(id);
    const h = v?.record.handle;
    if (!v || !h) return;
    try {
      const access = await requestAccess(h);
      this.#patch(id, { access, error: null });
      if (access === 'granted') {
        this.#watch.observe(id, h);
        if (this.#sync.isWriter) void this.rescan(id);
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
    if (!this.#sync.isWriter) {
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
    const signal = this.#jobs.start(id, { clearPause: true });
    if (!signal) return null;
    this.#watch.checked(id);
    this.#patch(id, { job: { kind: 'index', progress: null }, error: null, interrupted: false });
    let lastBroadcast = 0;
    let batchesSeen = 0;
    try {
      const summary = await this.#bridge.indexCodebase(id, source, {
        verify: opts.verify,
        walk: this.#walkSettings(),
        firstFor: this.queryWhileIndexing().trim() || undefined,
        signal,
        onProgress: (p) => {
          this.#patch(id, { job: { kind: 'index', progress: p } });
          // Each committed batch is new data: the current search runs again (search.refreshLive
          // throttles it while results are shown; at once while none are).
          if (p.batches > batchesSeen) {
            batchesSeen = p.batches;
            this.#dataVersion++;
          }
          if (Date.now() - lastBroadcast > PROGRESS_BROADCAST_MS) {
            lastBroadcast = Date.now();
            this.#sync.progress(id, `Indexing in another tab: ${filesProgress(p.status)}`);
          }
        },
      });
      // Kept with the record, so the last scan and its warnings are still there after a reload.
      const current = this.#views.find((x) => x.record.id === id);
      if (current) {
        this.#patch(id, { lastSummary: summary, record: { ...current.record, lastSummary: summary } });
        // (Other tabs would reopen every codebase on a list change: a summary is no such change.)
        await this.#save({ listChanged: false });
      }
      if (!summary.unchanged || !opts.quiet) {
        if (!summary.unchanged) await this.#bridge.reloadVectors(id).catch(() => undefined);
        await this.refreshInfo(id);
        this.#dataVersion++;
        this.#sync.indexUpdated(id);
      }
      this.#jobs.end(id);
      this.#patch(id, { job: null });
      this.embedAfterIndex?.(id);
      return summary;
    } catch (e) {
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
      this.#sync.indexUpdated(id);
      return null;
    } finally {
      this.#jobs.end(id);
      this.#patch(id, { job: null });
    }
  }

  /** Embeds chunks without vectors with the model the embedder worker has loaded. */
  async embed(id: string): Promise<void> {
    if (!this.#sync.isWriter) return;
    const v = this.byId(id);
    if (!v || v.job) return;
    if (v.record.kind === 'pack') {
      // A published index is read-only: its vectors come with it (or not at all). Whether they
      // are this model's shows in its info.
      await this.refreshInfo(id);
      this.#dataVersion++;
      return;
    }
    const signal = this.#jobs.start(id);
    if (!signal) return;
    this.#patch(id, { job: { kind: 'embed', progress: null } });
    let last = 0;
    try {
      const summary = await this.#bridge.embedPending(id, {
        signal,
        onProgress: (p) => {
          this.#patch(id, { job: { kind: 'embed', progress: p } });
          if (Date.now() - last > 1500) {
            last = Date.now();
            this.#dataVersion++;
          }
        },
      });
      this.#sync.indexUpdated(id);
      this.embedFinished?.(summary);
    } catch (e) {
      handleError(e, `Embedding ${v.record.name}`);
    } finally {
      this.#jobs.end(id);
      this.#patch(id, { job: null });
      await this.refreshInfo(id);
      this.#dataVersion++;
    }
  }

  pause(id: string): void {
    this.#jobs.pause(id);
  }

  cancel(id: string): void {
    this.#jobs.cancel(id);
  }

  resume(id: string): void {
    void this.rescan(id);
  }

  async remove(id: string): Promise<void> {
    if (!this.#requireWriter()) return;
    const v = this.byId(id);
    if (!v) return;
    this.#jobs.forget(id);
    this.#watch.forget(id);
    try {
      await this.#bridge.removeCodebase(id);
    } catch (e) {
      handleError(e, `Removing ${v.record.name}`);
      return;
    }
    this.#snapshots.delete(id);
    this.#views = this.#views.filter((x) => x.record.id !== id);
    await this.#save();
    this.#dataVersion++;
  }

  // ---- published indexes (issue 27) ----

  /**
   * Opens a published index by the URL of its `sift-index.json` (absolute, or relative to the
   * app's URL) as a read-only codebase; one already open is refreshed (a redeploy's new pack
   * replaces the old one). Returns the codebase id, or null with a notice or a download offer.
   */
  async openIndexUrl(ref: string): Promise<string | null> {
    // The same URL asked twice at once (page load and its hash) is one open.
    const key = ref.trim();
    const running = this.#openingUrls.get(key);
    if (running) return running;
    const p = this.#openIndexUrl(key).finally(() => this.#openingUrls.delete(key));
    this.#openingUrls.set(key, p);
    return p;
  }

  readonly #openingUrls = new Map<string, Promise<string | null>>();
  /** Manifest fetches started at page load (a `#index=` link's), by absolute URL. */
  readonly #earlyManifests = new Map<string, Promise<string | null>>();

  /**
   * Starts fetching a `#index=` link's manifest while the app and its workers start, when it is
   * on the app's own origin (others wait for the store worker's origin check); openIndexUrl
   * hands the text to the store worker, which checks it as it checks its own fetch.
   */
  prefetchIndexUrl(ref: string): void {
    let origin: string;
    let href: string;
    try {
      ({ origin, href } = new URL(ref.trim(), location.href));
    } catch {
      return;
    }
    href = href.replace(/#.*$/, ''); // as openIndexUrl keys it
    if (origin !== location.origin || !/^https?:/.test(href) || this.#earlyManifests.has(href)) return;
    this.#earlyManifests.set(href, fetch(href, { cache: 'no-cache', credentials: 'same-origin' }).then((r) => (r.ok ? r.text() : null)).catch(() => null));
  }

  async #openIndexUrl(ref: string): Promise<string | null> {
    const trimmed = ref.trim();
    if (!trimmed) return null;
    let abs: string;
    try {
      abs = new URL(trimmed, location.href).href.replace(/#.*$/, '');
    } catch {
      notices.push('error', `"${trimmed}" is not a URL.`);
      return null;
    }
    const existing = this.#views.find((v) => v.record.kind === 'pack' && v.record.url === abs);
    // `pk-` ids: the store worker never opens a local database for one.
    const id = existing?.record.id ?? `pk-${newCodebaseId().slice(3)}`;
    this.#opening = abs;
    this.#packOffer = null;
    try {
      const early = this.#earlyManifests.get(abs);
      this.#earlyManifests.delete(abs);
      const res = await this.#bridge.openPack(id, abs, existing?.record.manifest ?? null, early ? await early : null);
      if (!res.ok) {
        const canDownload = res.problem === 'no-ranges' || res.problem === 'compressed';
        this.#packOffer = { url: abs, message: res.message, bytes: res.bytes, canDownload };
        if (existing) this.#patch(id, { error: res.message });
        return null;
      }
      const pack = res.info.pack!;
      const record = { ...(existing?.record ?? newRecord(pack.name, 'pack', null, id)), name: pack.name, url: abs, manifest: res.manifestText };
      if (existing) this.#patch(id, { record, info: res.info, error: null });
      else this.#views = [...this.#views, newView(record, 'none', res.info)];
      await this.#save();
      this.#dataVersion++;
      return id;
    } catch (e) {
      handleError(e, 'Opening the shared index');
      return null;
    } finally {
      this.#opening = null;
    }
  }

  dismissPackOffer(): void {
    this.#packOffer = null;
  }

  /** Downloads the offered pack whole into this browser's storage (a local, imported index). */
  async downloadOfferedPack(): Promise<boolean> {
    const offer = this.#packOffer;
    if (!offer || !this.#requireWriter()) return false;
    const id = newCodebaseId();
    this.#opening = offer.url;
    this.#downloading = { loaded: 0, total: offer.bytes ?? 0 };
    try {
      const res = await this.#bridge.downloadPack(id, offer.url, (p) => {
        this.#downloading = p;
      });
      if (!res.ok) {
        notices.push('error', `Download failed: ${res.message}`);
        return false;
      }
      const name = res.name ?? 'shared index';
      this.#packOffer = null;
      await this.#addImported(id, name, res.info);
      notices.push('info', `Downloaded ${name}: ${res.info.files} files, ${res.info.chunks} chunks, kept in this browser.`);
      return true;
    } catch (e) {
      handleError(e, 'Downloading the shared index');
      return false;
    } finally {
      this.#opening = null;
      this.#downloading = null;
    }
  }

  /** Re-reads the info of every published index (its counters of what this session read). */
  async refreshPacks(): Promise<void> {
    for (const v of this.#views) if (v.record.kind === 'pack' && v.info) await this.refreshInfo(v.record.id);
  }

  // ---- export / import ----

  /** A database the worker just wrote (an import, a downloaded pack) joins the list as an imported codebase. */
  async #addImported(id: string, name: string, info: CodebaseInfo): Promise<void> {
    this.#views = [...this.#views, newView(newRecord(name, 'imported', null, id), 'none', info)];
    await this.#save();
    this.#dataVersion++;
  }

  /** The index as one SQLite file (schema version and model key are in its meta table). */
  async exportIndex(id: string): Promise<{ name: string; blob: Blob } | null> {
    const v = this.byId(id);
    if (!v) return null;
    try {
      const bytes = await this.#bridge.exportIndex(id);
      return { name: `${v.record.name}.sift.sqlite`, blob: new Blob([bytes as BlobPart], { type: 'application/vnd.sqlite3' }) };
    } catch (e) {
      handleError(e, `Exporting ${v.record.name}`);
      return null;
    }
  }

  async importIndex(file: File, expectModel: string | null): Promise<boolean> {
    if (!this.#requireWriter()) return false;
    const id = newCodebaseId();
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const res = await this.#bridge.importIndex(id, bytes, expectModel);
      if (!res.ok) {
        notices.push('error', `Import failed: ${res.message}`);
        return false;
      }
      const name = res.name ?? file.name.replace(/\.sift\.sqlite$|\.sqlite$/i, '');
      await this.#addImported(id, name, res.info);
      notices.push('info', `Imported ${name}: ${res.info.files} files, ${res.info.chunks} chunks.`);
      return true;
    } catch (e) {
      handleError(e, 'Importing the index');
      return false;
    }
  }

  // ---- keeping up with edits ----

  #onFocus(): void {
    if (!this.#sync.isWriter) return;
    const idle = this.#views.filter((v) => v.record.kind === 'folder' && v.access === 'granted' && !v.job && !this.#jobs.isPaused(v.record.id));
    this.#watch.focus(idle.map((v) => v.record.id));
  }

  /** A writer tab picks up runs that a closed or crashed tab left unfinished. */
  async #resumeInterrupted(): Promise<void> {
    if (!this.#ready) return;
    for (const v of this.#views) if (v.interrupted && !v.job && this.sourceFor(v.record.id)) void this.rescan(v.record.id, { quiet: true });
  }
}

/** A codebases state over other dependencies (tests give it fakes of the browser-only ones). */
export function createCodebases(deps: CodebasesDeps) {
  return new Codebases(deps);
}

export const codebases = new Codebases({
  bridge: workerBridge,
  records: new CodebaseRecords({ get, set }),
  tabs,
  Observer: (globalThis as { FileSystemObserver?: ObserverCtor }).FileSystemObserver,
  walkSettings: () => indexSettings.walk,
});
