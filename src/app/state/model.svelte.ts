/**
 * The embedding model setting and status. Sources: a model bundled with the deploy (listed
 * in the build's `sift-models.json`), a folder the user imported (copied into OPFS), or the
 * Hugging Face Hub — only after the user said yes. No model → keyword search only, and the
 * app offers the one-click download (ModelOffer) until the user says "Not now".
 *
 * Invariants:
 * - Nothing is requested from the Hub before the user consents (Download, or choosing the
 *   Hub in Settings); after that the model comes from the browser's cache, offline too.
 * - No request 404s on load: bundled models are known from the manifest, never probed.
 * - After a model loads, every codebase's pending chunks are embedded (writer tab only),
 *   one codebase at a time. Vectors are kept per (chunk content, model), so switching to a
 *   model that ran before embeds only what it lacks; keyword search never waits for it.
 * - The offer's choice is between the catalogue's models (model-catalogue.ts), each with an
 *   estimate for the open codebases on this device: the family's measured rate until the
 *   model has run here, then its observed chunks/s (kept in localStorage).
 */
import { bridge } from '../bridges/workers.ts';
import type { ImportedModel, LoadProgress, ModelConfig, ModelInfo, ModelSourceKind } from '../../../workers/embedder/api.ts';
import { DEFAULT_MODEL_ID } from '../../core/config.ts';
import { BUNDLED_MODELS_FILE, parseBundledModels, type BundledModel } from '../../core/embed/model-source.ts';
import { codebases } from './codebases.svelte.ts';
import { CATALOGUE, estimate, projectChunks, recommended, PROSE_MODEL, type CatalogueModel, type Device, type Estimate } from './model-catalogue.ts';
import { handleError, notices } from './notices.svelte.ts';
import { tabs } from './tabs.svelte.ts';

const SETTINGS_KEY = 'sift:model';
/** 'later' once the user said "Not now" to the download offer. */
const OFFER_KEY = 'sift:model-offer';
/** Observed chunks/s per model id on this device: { [modelId]: number }. */
const RATES_KEY = 'sift:model-rates';
/** A pass shorter than this says little about a model's speed (startup, a few batches). */
const MIN_CHUNKS_FOR_RATE = 32;
/** The last embedding pass's summary (counts, ms, where its time went: EmbedSummary.phases), for a person or a bench to read. */
const LAST_PASS_KEY = 'sift:last-embed-pass';
/** What the offer promises: the q8 ONNX file (22.9 MB) plus tokenizer and config. */
export const HUB_DOWNLOAD_MB = PROSE_MODEL.downloadMB;
export const DEFAULT_MODEL_NAME = DEFAULT_MODEL_ID.split('/').pop() ?? DEFAULT_MODEL_ID;

/** A model the offer lists, with what embedding the open codebases would take here. */
export interface ModelChoice {
  model: CatalogueModel;
  estimate: Estimate;
  /** The model the offer suggests (the fast one when MiniLM would take over ~5 minutes). */
  recommended: boolean;
}

export interface ModelSettings {
  /** 'auto': the bundled model when the deploy ships one, else none until the user downloads. */
  source: ModelSourceKind | 'none' | 'auto';
  modelId: string;
  dtype: 'fp32' | 'q8' | 'auto';
}

export const DEFAULT_MODEL_SETTINGS: ModelSettings = { source: 'auto', modelId: DEFAULT_MODEL_ID, dtype: 'auto' };

/** 'offer': no model, and the Hub download has not been accepted yet. */
export type ModelStatus = 'none' | 'offer' | 'loading' | 'ready' | 'missing' | 'error';

class Model {
  #settings = $state<ModelSettings>({ ...DEFAULT_MODEL_SETTINGS });
  #status = $state<ModelStatus>('none');
  #info = $state.raw<ModelInfo | null>(null);
  #message = $state<string | null>(null);
  #imported = $state.raw<ImportedModel[]>([]);
  #bundled = $state.raw<BundledModel[]>([]);
  #download = $state.raw<LoadProgress | null>(null);
  #offerDeferred = $state(false);
  #rates = $state.raw<Record<string, number>>({});
  /** Set by Download: the next successful load says the model is now cached. */
  #consented = false;
  #ctl: AbortController | null = null;

  get settings() { return this.#settings; }
  get status() { return this.#status; }
  get info() { return this.#info; }
  get message() { return this.#message; }
  get imported() { return this.#imported; }
  get bundled() { return this.#bundled; }
  get ready() { return this.#status === 'ready'; }
  /** Bytes read while the model loads (a Hub download, or the cache on later loads). */
  get download() { return this.#download; }
  /** The user said "Not now": the offer shrinks to a hint (search bar, Settings). */
  get offerDeferred() { return this.#offerDeferred; }
  /** Where the current model comes from (after 'auto' is resolved). */
  get source(): ModelSourceKind | 'none' { return this.#resolve().source; }
  /** Observed chunks/s per model id on this device. */
  get rates(): Readonly<Record<string, number>> { return this.#rates; }

  /** Chunks the open codebases hold (what a model that has not run here would embed). */
  get chunkTotal(): number {
    let n = 0;
    for (const v of codebases.list) if (v.record.kind !== 'pack') n += v.info?.chunks ?? 0;
    return n;
  }

  /**
   * Chunks the open codebases will hold: a codebase being indexed counts its chunks so far
   * scaled to its walked files. The recommendation reads it, so the model offered while a first
   * index runs is the one offered when it ends (it offered MiniLM on a folder's first chunks,
   * then the static code model for its 14k).
   */
  get chunkProjection(): number {
    let n = 0;
    for (const v of codebases.list) {
      if (v.record.kind === 'pack') continue;
      const st = v.job?.kind === 'index' ? v.job.progress?.status : null;
      n += projectChunks(v.info?.chunks ?? 0, st);
    }
    return n;
  }

  /** Chunks `modelId` would still embed: all of them, less what the loaded model already has. */
  pendingFor(modelId: string): number {
    let n = 0;
    const loaded = this.#status === 'ready' && this.#info?.modelId === modelId;
    for (const v of codebases.list) {
      if (v.record.kind === 'pack' || !v.info) continue;
      n += loaded ? Math.max(0, v.info.chunks - v.info.embedded) : v.info.chunks;
    }
    return n;
  }

  /** The catalogue with estimates for the open codebases on this device, recommended one first. */
  get choices(): ModelChoice[] {
    const device = thisDevice();
    const pick = recommended(this.chunkProjection, device, this.#rates);
    return CATALOGUE.map((m) => ({ model: m, estimate: estimate(m, this.pendingFor(m.id), device, this.#rates[m.id]), recommended: m.id === pick.id }))
      .sort((a, b) => Number(b.recommended) - Number(a.recommended));
  }

  async init(): Promise<void> {
    try {
      const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? 'null') as ModelSettings | null;
      if (saved && typeof saved.modelId === 'string') this.#settings = { ...DEFAULT_MODEL_SETTINGS, ...saved };
    } catch {
      // corrupt setting: defaults
    }
    this.#offerDeferred = localStorage.getItem(OFFER_KEY) === 'later';
    this.#rates = readRates();
    codebases.embedAfterIndex = (id) => {
      if (this.ready) void codebases.embed(id);
    };
    codebases.embedFinished = (summary) => {
      const id = this.#info?.modelId;
      localStorage.setItem(LAST_PASS_KEY, JSON.stringify({ modelId: id ?? null, ...summary }));
      if (!id || summary.newlyEmbedded < MIN_CHUNKS_FOR_RATE || !(summary.rate > 0)) return;
      this.#rates = { ...this.#rates, [id]: summary.rate };
      localStorage.setItem(RATES_KEY, JSON.stringify(this.#rates));
    };
    this.#bundled = await readBundledModels();
    await this.load();
  }

  async apply(s: ModelSettings): Promise<void> {
    this.#settings = { ...s };
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(s));
    await this.load();
  }

  /** The person chose a catalogue model: downloaded once from the Hub, cached for offline use. */
  async choose(modelId: string): Promise<void> {
    localStorage.removeItem(OFFER_KEY);
    this.#offerDeferred = false;
    this.#consented = true;
    await this.apply({ source: 'hub', modelId, dtype: 'auto' });
  }

  /** One-click download where there is no room for the choice: the recommended model. */
  async downloadDefault(): Promise<void> {
    await this.choose(this.recommendedModel.id);
  }

  /** The model a one-click download gets: MiniLM, or the fast model when MiniLM would be slow here. */
  get recommendedModel(): CatalogueModel {
    return recommended(this.chunkProjection, thisDevice(), this.#rates);
  }

  /** The offer's "Not now": remembered; the hint stays one click away. */
  deferOffer(): void {
    localStorage.setItem(OFFER_KEY, 'later');
    this.#offerDeferred = true;
  }

  /** 'auto' → the bundled model (the default id if shipped, else the first), or nothing. */
  #resolve(): { source: ModelSourceKind | 'none'; modelId: string } {
    const s = this.#settings;
    if (s.source !== 'auto') return { source: s.source, modelId: s.modelId };
    const shipped = this.#bundled.find((m) => m.id === s.modelId) ?? this.#bundled[0];
    return shipped ? { source: 'served', modelId: shipped.id } : { source: 'none', modelId: s.modelId };
  }

  async load(): Promise<void> {
    this.#ctl?.abort();
    const s = this.#settings;
    const { source, modelId } = this.#resolve();
    this.#download = null;
    if (source === 'none') {
      await bridge.unloadModel().catch(() => undefined);
      this.#info = null;
      if (s.source === 'auto') {
        this.#status = 'offer';
        this.#message = `Keyword search only. Search by meaning needs a model, downloaded once from Hugging Face: ${CATALOGUE.map((m) => `${m.name} (≈${m.downloadMB} MB)`).join(' or ')}.`;
      } else {
        this.#status = 'none';
        this.#message = 'Search by meaning is off: keyword search only.';
      }
      return;
    }
    if (source === 'served' && !this.#bundled.some((m) => m.id === modelId)) {
      // Not in the build's manifest: asking for it would only 404.
      this.#status = 'missing';
      this.#info = null;
      this.#message = `No embedding model “${modelId}” is bundled with this deploy (see ${BUNDLED_MODELS_FILE}). Keyword search only — download it from Hugging Face or import a model folder in Settings.`;
      return;
    }
    const ctl = new AbortController();
    this.#ctl = ctl;
    this.#status = 'loading';
    this.#message = null;
    const cfg: ModelConfig = {
      source,
      modelId,
      dtype: s.dtype === 'auto' ? undefined : s.dtype,
      ...(source === 'served' ? { files: this.#bundled.find((m) => m.id === modelId)?.files ?? [] } : {}),
    };
    let fetched = 0;
    try {
      const res = await bridge.loadModel(cfg, ctl.signal, (p) => {
        if (ctl.signal.aborted) return;
        this.#download = p;
        fetched = p.total;
      });
      if (ctl.signal.aborted) return;
      if (!res.ok) {
        this.#status = res.reason === 'missing' ? 'missing' : 'error';
        this.#info = null;
        this.#message =
          res.reason === 'missing'
            ? `No embedding model “${modelId}” found (${source === 'served' ? 'in the app’s models/ folder' : source === 'opfs' ? 'among imported models' : 'on the Hub or in the browser cache'}). Keyword search only — import a model folder or choose another source in Settings.`
            : `The model could not be loaded: ${res.message}. Keyword search only.`;
        return;
      }
      this.#status = 'ready';
      this.#info = res.info;
      this.#message = null;
      if (source === 'hub' && this.#consented && fetched > 0) {
        this.#consented = false;
        notices.push('info', `${modelId} is ready and cached in this browser: search by meaning works offline from now on.`);
      }
      this.#download = null;
      await this.embedAll();
    } catch (e) {
      if (ctl.signal.aborted) return;
      this.#status = 'error';
      this.#message = e instanceof Error ? e.message : String(e);
      handleError(e, 'Loading the model');
    }
  }

  /** Embeds what is missing in every codebase (writer tab only). */
  async embedAll(): Promise<void> {
    if (!tabs.isWriter || !this.ready) return;
    for (const v of codebases.list) if (!v.job) await codebases.embed(v.record.id);
  }

  async refreshImported(): Promise<void> {
    try {
      this.#imported = await bridge.listImportedModels();
    } catch (e) {
      handleError(e, 'Listing imported models');
    }
  }

  /** Copies a model folder into OPFS and switches to it. */
  async importFolder(): Promise<void> {
    let handle: FileSystemDirectoryHandle;
    try {
      handle = await (window as unknown as { showDirectoryPicker(o: object): Promise<FileSystemDirectoryHandle> }).showDirectoryPicker({ id: 'sift-model', mode: 'read' });
    } catch (e) {
      if ((e as { name?: string }).name !== 'AbortError') handleError(e, 'Choosing the model folder');
      return;
    }
    try {
      const m = await bridge.importModelFolder(handle);
      notices.push('info', `Imported model ${m.name} (${m.files} files).`);
      await this.refreshImported();
      await this.apply({ source: 'opfs', modelId: m.name, dtype: this.#settings.dtype });
    } catch (e) {
      handleError(e, 'Importing the model');
    }
  }

  async removeImported(name: string): Promise<void> {
    try {
      await bridge.removeImportedModel(name);
      await this.refreshImported();
      if (this.#settings.source === 'opfs' && this.#settings.modelId === name) await this.apply({ ...DEFAULT_MODEL_SETTINGS });
    } catch (e) {
      handleError(e, 'Removing the model');
    }
  }
}

/** This device, as the estimates see it. */
function thisDevice(): Device {
  return { cores: navigator.hardwareConcurrency || 1, isolated: globalThis.crossOriginIsolated === true };
}

function readRates(): Record<string, number> {
  try {
    const r = JSON.parse(localStorage.getItem(RATES_KEY) ?? '{}') as Record<string, unknown>;
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(r ?? {})) if (typeof v === 'number' && v > 0 && Number.isFinite(v)) out[k] = v;
    return out;
  } catch {
    return {};
  }
}

/** The build's list of bundled models (next to index.html; precached by the service worker). */
async function readBundledModels(): Promise<BundledModel[]> {
  try {
    const res = await fetch(new URL(BUNDLED_MODELS_FILE, document.baseURI));
    return res.ok ? parseBundledModels(await res.json()) : [];
  } catch {
    return [];
  }
}

export const model = new Model();
