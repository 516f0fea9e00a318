/**
 * The bench page: exposes `window.siftBench` (BenchPageApi) for bench/browser.ts. Cold
 * indexing goes through the app's own store and indexer workers, wired as the app's bridge
 * wires them (a MessageChannel from the indexer to the store), so the number is the app's;
 * everything else runs in a fresh bench worker (worker.ts) per call.
 */
import { proxy, transfer, wrap, type Remote } from 'comlink';
import type { BenchPageApi, BenchWorkerApi, ColdIndexResult, IndexCorpusOptions, IndexVariant } from './api.ts';
import type { StoreWorkerApi } from '../../workers/store/api.ts';
import type { IndexerWorkerApi, IndexProgress } from '../../workers/indexer/api.ts';
import type { IndexSummary } from '../../src/core/index/indexer.ts';
import { OPFS_DIR } from '../../src/core/store/open-opfs.ts';

const CORPUS_DIR = 'bench-corpus';
/** measureUserAgentSpecificMemory may wait for a GC; give up after this. */
const MEMORY_TIMEOUT_MS = 30_000;

/** Runs `fn` in a fresh bench worker and terminates it afterwards. */
async function inWorker<T>(fn: (w: Remote<BenchWorkerApi>) => Promise<T>): Promise<T> {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'sift-bench' });
  try {
    return await fn(wrap<BenchWorkerApi>(worker));
  } finally {
    worker.terminate();
  }
}

let storeWorker: Worker | null = null;
let indexerWorker: Worker | null = null;

function appWorkers(): { store: Remote<StoreWorkerApi>; indexer: Remote<IndexerWorkerApi> } {
  storeWorker ??= new Worker(new URL('../../workers/store/index.ts', import.meta.url), { type: 'module', name: 'sift-store' });
  indexerWorker ??= new Worker(new URL('../../workers/indexer/index.ts', import.meta.url), { type: 'module', name: 'sift-indexer' });
  return { store: wrap<StoreWorkerApi>(storeWorker), indexer: wrap<IndexerWorkerApi>(indexerWorker) };
}

async function indexOnce(name: string, storeName: string, handle: FileSystemDirectoryHandle, variant: IndexVariant): Promise<{ summary: IndexSummary; wallMs: number; firstSearchableWallMs: number | null }> {
  const { store, indexer } = appWorkers();
  const { port1, port2 } = new MessageChannel();
  const t0 = performance.now();
  await store.connectWriter(storeName, transfer(port1, [port1]));
  let firstSearchableWallMs: number | null = null;
  const onProgress = (p: IndexProgress) => {
    if (p.searchable && firstSearchableWallMs === null) firstSearchableWallMs = performance.now() - t0;
  };
  const summary = await indexer.indexCodebase(
    transfer({ source: { kind: 'folder', name, handle }, storePort: port2, ...variant }, [port2]),
    `bench-${Date.now()}`,
    proxy(onProgress),
  );
  return { summary, wallMs: performance.now() - t0, firstSearchableWallMs };
}

const api: BenchPageApi = {
  embed: (req) => inWorker((w) => w.embed(req)),
  embedStatic: (req) => inWorker((w) => w.embedStatic(req)),
  copyCorpus: (req) => inWorker((w) => w.copyCorpus(req)),
  fsaCosts: (name) => inWorker((w) => w.fsaCosts(name)),
  storeVariants: (req) => inWorker((w) => w.storeVariants(req)),
  cloneCost: (name, maxFiles) => inWorker((w) => w.cloneCost(name, maxFiles)),
  search: (req) => inWorker((w) => w.search(req)),
  grep: (req) => inWorker((w) => w.grep(req)),
  vectors: (opts) => inWorker((w) => w.vectors(opts)),
  env: () => inWorker((w) => w.env()),

  async indexCorpus(name: string, storeName: string, opts: IndexCorpusOptions = {}): Promise<ColdIndexResult> {
    const root = await navigator.storage.getDirectory();
    const handle = await (await root.getDirectoryHandle(CORPUS_DIR)).getDirectoryHandle(name);
    // The store's OPFS folder; the VFS does not create it.
    const dbDir = await root.getDirectoryHandle(OPFS_DIR.replace(/^\//, ''), { create: true });
    // Cold means cold: a kept profile may hold this store from an earlier run. Deleted here,
    // not through the store worker: its remove() opens the store first, and the VFS then
    // failed to open the same name again ("could not be found").
    for (const suffix of ['', '-journal']) await dbDir.removeEntry(`${storeName}.sqlite${suffix}`).catch(() => undefined);
    const { store } = appWorkers();
    await store.open(storeName);
    const variant: IndexVariant = { chunkWorkers: opts.chunkWorkers, filesAhead: opts.filesAhead };
    const cold = await indexOnce(name, storeName, handle, variant);
    const again = opts.rescan === false ? null : await indexOnce(name, storeName, handle, variant);
    const info = await store.info(storeName);
    // Hand the database to the bench worker's Searcher (one writer at a time on OPFS).
    await store.close(storeName);
    if (opts.drop) for (const suffix of ['', '-journal']) await dbDir.removeEntry(`${storeName}.sqlite${suffix}`).catch(() => undefined);
    return { ...cold, rescan: again?.summary ?? null, rescanWallMs: again?.wallMs ?? null, dbBytes: info.dbBytes };
  },

  async memory() {
    const p = performance as Performance & {
      measureUserAgentSpecificMemory?: () => Promise<{ bytes: number; breakdown: Array<{ bytes: number; types: string[]; attribution: Array<{ scope?: string }> }> }>;
      memory?: { usedJSHeapSize: number };
    };
    if (crossOriginIsolated && p.measureUserAgentSpecificMemory) {
      const timeout = new Promise<null>((ok) => setTimeout(() => ok(null), MEMORY_TIMEOUT_MS));
      const m = await Promise.race([p.measureUserAgentSpecificMemory(), timeout]);
      if (m) {
        const breakdown: Record<string, number> = {};
        for (const b of m.breakdown) {
          const key = [...new Set(b.attribution.map((a) => a.scope ?? '?'))].join('+') || b.types.join('+') || 'other';
          breakdown[key] = (breakdown[key] ?? 0) + b.bytes;
        }
        return { api: 'measureUserAgentSpecificMemory', bytes: m.bytes, breakdown };
      }
    }
    return { api: 'performance.memory (page heap only)', bytes: p.memory?.usedJSHeapSize ?? null };
  },
};

(window as unknown as { siftBench: BenchPageApi }).siftBench = api;
document.title = 'sift bench ready';
