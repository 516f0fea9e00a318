/**
 * Which embedding model the CLI uses: `--model DIR|HUB_ID`, else the one recorded in the
 * index, else all-MiniLM-L6-v2 from $SIFT_HOME/models (default ~/.sift/models/<hub id>/),
 * else the Hugging Face Hub (downloaded into that folder, offline afterwards). The spec is
 * recorded in the index (meta `model_spec`) so `sift search` embeds queries with the same
 * model. No model → a value saying why, never an exception: search runs keyword-only.
 *
 * Either family: loadEmbedder reads the folder (or the Hub, through $SIFT_HOME/models) and
 * picks transformer (Transformers.js) or static (model2vec) from the files. SIFT_HUB_URL
 * replaces https://huggingface.co for both (tests serve generated models from a local server).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SiftEmbedder } from '../core/embed/embedder.ts';
import { loadEmbedder } from '../core/embed/load-embedder.ts';
import { folderModelFiles, hubModelFiles, HubUnreachableError } from '../core/embed/model-files-node.ts';
import { resolveModelSource } from '../core/embed/model-source-node.ts';
import { sourceOptions, type ModelSource } from '../core/embed/model-source.ts';
import { DEFAULT_MODEL_ID, HUB_URL } from '../core/config.ts';
import { siftHome } from './home.ts';
import { NO_EMBEDDINGS, searchModelSpec, specOf } from './model-spec.ts';
import { META, type MetaKey } from '../core/store/meta.ts';

/** Give up on the hub when a download makes no progress this long (offline) instead of hanging the CLI. */
const HUB_TIMEOUT_MS = 30_000;

/**
 * After the Hub could not be reached, `sift index` (and `sift mcp`) do not ask it again for this
 * long: offline, every try cost a DNS lookup and the HTTP client's load (~70 ms of a 100-file
 * index), and on a network that drops packets a stalled connection. Recorded per SIFT_HOME and
 * Hub address in `models/.hub-unreachable.json`; a download that succeeds removes it.
 */
export const HUB_RETRY_MS = 10 * 60_000;

function unreachableFile(): string {
  return join(siftHome(), 'models', '.hub-unreachable.json');
}

/** When the Hub at `hub` was last found unreachable and why, if within HUB_RETRY_MS. */
function recentlyUnreachable(hub: string, now = Date.now()): { at: number; reason: string } | null {
  try {
    const r = JSON.parse(readFileSync(unreachableFile(), 'utf8')) as { hub?: unknown; at?: unknown; reason?: unknown };
    if (r.hub !== hub || typeof r.at !== 'number' || typeof r.reason !== 'string') return null;
    return r.at <= now && now - r.at < HUB_RETRY_MS ? { at: r.at, reason: r.reason } : null;
  } catch {
    return null;
  }
}

function recordUnreachable(hub: string, reason: string | null): void {
  try {
    if (reason === null) rmSync(unreachableFile(), { force: true });
    else {
      mkdirSync(join(siftHome(), 'models'), { recursive: true });
      writeFileSync(unreachableFile(), JSON.stringify({ hub, at: Date.now(), reason }) + '\n');
    }
  } catch {
    // Only a shortcut: without the record the next command asks the Hub again.
  }
}

/** The Hub's address: SIFT_HUB_URL, else https://huggingface.co. */
export function hubUrl(): string {
  return process.env.SIFT_HUB_URL || HUB_URL;
}

interface MetaStore {
  getMeta(key: MetaKey): Promise<string | null>;
  setMeta(key: MetaKey, value: string): Promise<void>;
}

export interface ModelChoice {
  embedder: SiftEmbedder;
  source: ModelSource;
}

function dtypeFor(source: ModelSource): 'q8' | 'fp32' {
  if (source.origin === 'hub') return 'q8';
  return existsSync(join(source.localModelPath, source.modelId, 'onnx', 'model_quantized.onnx')) ? 'q8' : 'fp32';
}

async function load(source: ModelSource): Promise<SiftEmbedder> {
  const dir = join(source.localModelPath, source.modelId);
  const files = source.origin === 'hub' ? hubModelFiles({ id: source.modelId, cacheDir: source.localModelPath, hubUrl: hubUrl() }) : folderModelFiles(dir);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stalled: (e: Error) => void = () => undefined;
  const timeout = new Promise<never>((_, reject) => {
    stalled = reject;
  });
  // (Downloads only: the timer restarts at every progress event, so a slow link is not cut.)
  const alive = (): void => {
    if (!source.allowRemote) return;
    clearTimeout(timer);
    timer = setTimeout(() => stalled(new HubUnreachableError(`could not download ${source.modelId} from the Hugging Face Hub (no data for ${HUB_TIMEOUT_MS / 1000}s)`)), HUB_TIMEOUT_MS);
  };
  alive();
  const loading = loadEmbedder({
    files,
    modelId: source.modelId,
    // Transformers.js and onnxruntime-node are imported by loadEmbedder only for a transformer:
    // their ~0.8 s import is no part of `sift search --mode bm25`, `stats`, `check` or a static model.
    transformer: { ...sourceOptions(source), device: 'cpu', dtype: dtypeFor(source), remoteHost: hubUrl() },
    onProgress: alive,
  });
  try {
    return await Promise.race([loading, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function choose(spec: string, allowRemote: boolean, store: MetaStore, record: boolean): Promise<ModelChoice | { unavailable: string }> {
  const resolved = await resolveModelSource({ model: spec, allowRemote, modelsDir: join(siftHome(), 'models') });
  if (!resolved.ok) return { unavailable: resolved.reason };
  const fromHub = resolved.source.origin === 'hub';
  const hub = hubUrl();
  const down = fromHub ? recentlyUnreachable(hub) : null;
  if (down) {
    const hhmm = (t: number) => new Date(t).toTimeString().slice(0, 5);
    return { unavailable: `${spec}: not downloaded — at ${hhmm(down.at)} ${down.reason}; Sift asks it again from ${hhmm(down.at + HUB_RETRY_MS)} (or pass --model DIR)` };
  }
  try {
    const embedder = await load(resolved.source);
    if (fromHub) recordUnreachable(hub, null);
    if (record) {
      await store.setMeta(META.modelSpec, spec);
      await store.setMeta(META.modelKey, embedder.info.key);
    }
    return { embedder, source: resolved.source };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (fromHub && e instanceof HubUnreachableError) recordUnreachable(hub, message);
    return { unavailable: `${spec}: ${message}` };
  }
}

/** For `sift index`: pick and load a model (downloads allowed unless SIFT_OFFLINE=1), and record it. */
export async function loadCliEmbedder(o: { modelDir?: string; store: MetaStore }): Promise<ModelChoice | { unavailable: string }> {
  const spec = specOf(o.modelDir) ?? (await o.store.getMeta(META.modelSpec)) ?? DEFAULT_MODEL_ID;
  return choose(spec, process.env.SIFT_OFFLINE !== '1', o.store, true);
}

/** For `sift search`: the model the index was built with (or an override); never downloads. */
export async function loadSearchEmbedder(o: { modelDir?: string; store: MetaStore }): Promise<ModelChoice | { unavailable: string }> {
  const spec = await searchModelSpec(o);
  if (!spec) return { unavailable: NO_EMBEDDINGS };
  return loadSearchModel(spec, o.store);
}

/** loadSearchEmbedder for a spec already known (model-spec.ts searchModelSpec): never downloads. */
export function loadSearchModel(spec: string, store: MetaStore): Promise<ModelChoice | { unavailable: string }> {
  return choose(spec, false, store, false);
}
