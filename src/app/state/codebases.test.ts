/**
 * The codebases coordinator in Node, over fakes of what only a browser has (the worker
 * bridge, IndexedDB, the tab channel); the real pieces (records, jobs, sync, folder watch)
 * run as they do in the app. The e2e suite covers the same flows over real workers.
 */
import { describe, expect, it } from 'vitest';
import { createCodebases, rowCounts, type CodebaseBridge, type CodebaseView } from './codebases.svelte.ts';
import { CodebaseRecords, type CodebaseRecord } from './codebase-records.ts';
import type { TabChannel } from './codebase-sync.ts';
import type { TabMessage } from './tabs.svelte.ts';
import { notices } from './notices.svelte.ts';
import type { CodebaseInfo } from '../../../workers/store/api.ts';
import type { IndexSummary } from '../../core/index/indexer.ts';
import type { IndexProgress, IndexWalkSettings, SourceRef } from '../../../workers/indexer/api.ts';

function info(id: string, files = 0): CodebaseInfo {
  return {
    codebaseId: id, files, chunks: files * 2, embedded: 0, bytes: 0, dbBytes: 0, languages: [], kinds: [], chunkTypes: [], runState: 'complete',
    merkleRoot: null, updatedAt: null, createdAt: null, schemaVersion: '5', vectorModel: null, vectorIndexKind: null, skipped: null,
  };
}

interface IndexCall {
  id: string;
  source: SourceRef;
  signal: AbortSignal;
  walk: IndexWalkSettings | undefined;
  finish(files: number): void;
}

function setup(opts: { writer?: boolean; walkSettings?: () => IndexWalkSettings } = {}) {
  const kv = new Map<string, unknown>();
  const records = new CodebaseRecords({ get: async <T>(k: string) => kv.get(k) as T | undefined, set: async (k, v) => void kv.set(k, v) });
  const posted: TabMessage[] = [];
  const listeners: Array<(m: TabMessage) => void> = [];
  const tabs: TabChannel = {
    isWriter: opts.writer ?? true,
    post: (m) => void posted.push(m),
    subscribe: (f) => {
      listeners.push(f);
      return () => undefined;
    },
    onBecomeWriter: () => undefined,
  };
  const indexCalls: IndexCall[] = [];
  const calls: string[] = [];
  const files = new Map<string, number>();
  const bridge: CodebaseBridge = {
    openCodebase: async (id) => (calls.push(`open ${id}`), info(id, files.get(id) ?? 0)),
    prepareCodebase: async (id) => void calls.push(`prepare ${id}`),
    codebaseInfo: async (id) => (calls.push(`info ${id}`), info(id, files.get(id) ?? 0)),
    removeCodebase: async (id) => void calls.push(`remove ${id}`),
    reloadVectors: async (id) => void calls.push(`reloadVectors ${id}`),
    setMeta: async (id, key, value) => void calls.push(`setMeta ${id} ${key}=${value}`),
    indexCodebase: (id, source, o) =>
      new Promise<IndexSummary>((resolve, reject) => {
        const signal = o.signal!;
        signal.addEventListener('abort', () => reject(new DOMException('Cancelled', 'AbortError')));
        indexCalls.push({
          id, source, signal, walk: o.walk,
          finish: (n) => {
            files.set(id, n);
            resolve({ unchanged: false } as IndexSummary);
          },
        });
      }),
    embedPending: async () => ({}) as never,
    exportIndex: async () => new Uint8Array(),
    importIndex: async () => ({ ok: false, reason: 'not-sqlite', message: 'no' }),
    openPack: async () => ({ ok: false, problem: 'http', message: 'no', bytes: null }),
    downloadPack: async () => ({ ok: false, reason: 'corrupt', message: 'no' }),
    warm: async (name) => void calls.push(`warm ${name}`),
  };
  const cb = createCodebases({ bridge, records, tabs, walkSettings: opts.walkSettings });
  return { cb, kv, posted, listeners, indexCalls, calls, tabs, bridge, records };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function picked(...paths: string[]): File[] {
  return paths.map((p) => Object.defineProperty(new File(['x'], p.split('/').pop()!), 'webkitRelativePath', { value: p }));
}

describe('Codebases', () => {
  it('adds a snapshot: saved, announced, named in its index, indexed once at a time', async () => {
    const { cb, kv, posted, indexCalls, calls } = setup();
    let embedded = '';
    cb.embedAfterIndex = (id) => (embedded = id);
    await cb.init();
    await cb.addSnapshot(picked('proj/a.ts', 'proj/src/b.ts'));
    await tick();
    const [view] = cb.list;
    const id = view!.record.id;
    expect(view!.record).toMatchObject({ name: 'proj', kind: 'snapshot', handle: null });
    expect((kv.get('sift:codebases') as CodebaseRecord[]).map((r) => r.id)).toEqual([id]);
    expect(posted).toContainEqual({ type: 'codebases-changed' });
    expect(calls).toContain(`setMeta ${id} codebase_name=proj`);
    expect(indexCalls).toHaveLength(1);
    expect(indexCalls[0]!.source).toMatchObject({ kind: 'files', name: 'proj', paths: ['proj/a.ts', 'proj/src/b.ts'] });
    expect(cb.byId(id)!.job?.kind).toBe('index');
    expect(await cb.rescan(id)).toBeNull(); // one job per codebase
    expect(indexCalls).toHaveLength(1);
    indexCalls[0]!.finish(2);
    await tick();
    await tick();
    expect(cb.byId(id)!.job).toBeNull();
    expect(cb.byId(id)!.info?.files).toBe(2);
    expect(posted).toContainEqual({ type: 'index-updated', codebaseId: id });
    expect(calls).toContain(`reloadVectors ${id}`);
    expect(embedded).toBe(id);
  });

  it('the first codebase added takes the spare index made at load; the next gets a new id; a spare not taken is kept for the next visit', async () => {
    const { cb, kv, calls, tabs, bridge, records } = setup();
    await cb.init();
    await tick();
    await tick();
    const spare = kv.get('sift:codebases:spare') as string;
    expect(spare).toMatch(/^cb-[0-9a-f]{12}$/);
    expect(calls).toContain(`prepare ${spare}`);
    await cb.addSnapshot(picked('proj/a.ts'));
    expect(cb.list[0]!.record.id).toBe(spare);
    await tick();
    expect(kv.get('sift:codebases:spare')).toBeNull();
    await cb.addSnapshot(picked('other/b.ts'));
    const second = cb.list[1]!.record.id;
    expect(second).not.toBe(spare);
    expect(calls).not.toContain(`prepare ${second}`);

    // A later visit: the taken id is a codebase's now, so a new spare is made and kept.
    const next = createCodebases({ bridge, records, tabs });
    await next.init();
    await tick();
    await tick();
    const spare2 = kv.get('sift:codebases:spare') as string;
    expect([spare, second]).not.toContain(spare2);
    expect(calls).toContain(`prepare ${spare2}`);
    // …and the visit after that, with no folder added, reopens the same spare.
    const again = createCodebases({ bridge, records, tabs });
    await again.init();
    await tick();
    await tick();
    expect(kv.get('sift:codebases:spare')).toBe(spare2);
    expect(calls.filter((c) => c === `prepare ${spare2}`)).toHaveLength(2);
  });

  it('a read-only tab makes no spare index', async () => {
    const { cb, kv, calls } = setup({ writer: false });
    await cb.init();
    await tick();
    await tick();
    expect(kv.has('sift:codebases:spare')).toBe(false);
    expect(calls.some((c) => c.startsWith('prepare '))).toBe(false);
  });

  it('each run takes the indexing settings as they are when it starts', async () => {
    let walk: IndexWalkSettings = { include: ['*.ex'], exclude: [], maxFileSize: 1024 };
    const { cb, indexCalls } = setup({ walkSettings: () => walk });
    await cb.init();
    await cb.addSnapshot(picked('p/a.ex'));
    await tick();
    expect(indexCalls[0]!.walk).toEqual({ include: ['*.ex'], exclude: [], maxFileSize: 1024 });
    indexCalls[0]!.finish(1);
    await tick();
    await tick();
    walk = { include: [], exclude: ['test/'], maxFileSize: 2048 };
    cb.resume(cb.list[0]!.record.id);
    await tick();
    expect(indexCalls[1]!.walk).toEqual(walk);
  });

  it('pause keeps the run interrupted and paused; resume starts a new run and clears the pause', async () => {
    const { cb, indexCalls } = setup();
    await cb.init();
    await cb.addSnapshot(picked('p/a.ts'));
    await tick();
    const id = cb.list[0]!.record.id;
    cb.pause(id);
    expect(indexCalls[0]!.signal.aborted).toBe(true);
    await tick();
    await tick();
    expect(cb.byId(id)).toMatchObject({ job: null, interrupted: true });
    expect(cb.isPaused(id)).toBe(true);
    cb.resume(id);
    await tick();
    expect(indexCalls).toHaveLength(2);
    expect(cb.isPaused(id)).toBe(false);
  });

  it('a read-only tab changes nothing and says why', async () => {
    const { cb, kv, indexCalls } = setup({ writer: false });
    await cb.init();
    const before = notices.items.length;
    await cb.addSnapshot(picked('p/a.ts'));
    expect(cb.list).toEqual([]);
    expect(kv.size).toBe(0);
    expect(indexCalls).toHaveLength(0);
    expect(notices.items.slice(before).map((n) => n.text).join()).toMatch(/Another Sift tab is the writer/);
  });

  it("another tab's messages: a saved list reloads, an index update reloads vectors and info", async () => {
    const writer = setup();
    await writer.cb.init();
    await writer.cb.addSnapshot(picked('p/a.ts'));
    const reader = setup({ writer: false });
    for (const [k, v] of writer.kv) reader.kv.set(k, v);
    await reader.cb.init();
    expect(reader.cb.list).toHaveLength(1);
    const id = reader.cb.list[0]!.record.id;
    reader.listeners.forEach((l) => l({ type: 'progress', codebaseId: id, text: 'Indexing in another tab: 1/2 files' }));
    expect(reader.cb.byId(id)!.remoteProgress).toBe('Indexing in another tab: 1/2 files');
    const version = reader.cb.dataVersion;
    reader.listeners.forEach((l) => l({ type: 'index-updated', codebaseId: id }));
    await tick();
    await tick();
    expect(reader.calls).toEqual(expect.arrayContaining([`reloadVectors ${id}`, `info ${id}`]));
    expect(reader.cb.byId(id)!.remoteProgress).toBeNull();
    expect(reader.cb.dataVersion).toBeGreaterThan(version);
    // A snapshot's files live only in the tab that added it: the reader cannot rescan it.
    expect(reader.cb.sourceFor(id)).toBeNull();
  });
});

describe('rowCounts', () => {
  const progress = (indexedFiles: number, totalChunks: number) =>
    ({ status: { indexedFiles, totalChunks, totalFiles: 500, walkDone: false }, rate: 0, etaSeconds: null, percent: null, lastWarning: null, searchable: true, batches: 1 }) as unknown as IndexProgress;
  const view = (o: Partial<CodebaseView>): CodebaseView =>
    ({ record: { id: 'a', name: 'a' }, access: 'granted', info: info('a'), job: null, interrupted: false, remoteProgress: null, lastSummary: null, error: null, ...o }) as CodebaseView;

  it('counts a first index by its run while it goes (the stored info read 0 before it), then by the store', () => {
    expect(rowCounts(view({ job: { kind: 'index', progress: progress(331, 1986) } }))).toEqual({ files: 331, chunks: 1986, indexing: true, fromRun: true });
    expect(rowCounts(view({ job: { kind: 'index', progress: null } }))).toEqual({ files: 0, chunks: 0, indexing: true, fromRun: false });
    expect(rowCounts(view({ info: info('a', 400) }))).toEqual({ files: 400, chunks: 800, indexing: false, fromRun: false });
  });

  it('counts a rescan by the stored index, which search sees until its batches land', () => {
    const indexed = { ...info('a', 400), updatedAt: '2026-01-01T00:00:00Z' };
    expect(rowCounts(view({ info: indexed, job: { kind: 'index', progress: progress(12, 30) } }))).toEqual({ files: 400, chunks: 800, indexing: true, fromRun: false });
    expect(rowCounts(view({ info: null }))).toBeNull();
  });
});
