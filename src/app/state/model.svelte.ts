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
 *   one codebase at a time.
 */
import { bridge } from '../bridges/workers.ts';
import type { ImportedModel, LoadProgress, ModelConfig, ModelInfo, ModelSourceKind } from '../../../workers/embedder/api.ts';
import { DEFAULT_MODEL_ID } from '../../core/config.ts';
import { BUNDLED_MODELS_FILE, parseBundledModels, type BundledModel } from '../../core/embed/model-source.ts';
import { codebases } from './codebases.svelte.ts';
import { handleError, notices } from './notices.svelte.ts';
import { tabs } from './tabs.svelte.ts';

const SETTINGS_KEY = 'sift:model';
/** 'later' once the user said "Not now" to the download offer. */
const OFFER_KEY = 'sift:model-offer';
/** What the offer promises: the q8 ONNX file (22.9 MB) plus tokenizer and config. */
export const HUB_DOWNLOAD_MB = 23;
export const DEFAULT_MODEL_NAME = DEFAULT_MODEL_ID.split('/').pop() ?? DEFAULT_MODEL_ID;

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

  async init(): Promise<void> {
    try {
      const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? 'null') as ModelSettings | null;
      if (saved && typeof saved.modelId === 'string') this.#settings = { ...DEFAULT_MODEL_SETTINGS, ...saved };
    } catch {
      // corrupt setting: defaults
    }
    this.#offerDeferred = localStorage.getItem(OFFER_KEY) === 'later';
    codebases.embedAfterIndex = (id) => {
      if (this.ready) void codebases.embed(id);
    };
    this.#bundled = await readBundledModels();
    await this.load();
  }

  async apply(s: ModelSettings): Promise<void> {
    this.#settings = { ...s };
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(s));
    await this.load();
  }

  /** The offer's Download: the default model from the Hub, cached for offline use. */
  async downloadDefault(): Promise<void> {
    localStorage.removeItem(OFFER_KEY);
    this.#offerDeferred = false;
    this.#consented = true;
    await this.apply({ source: 'hub', modelId: DEFAULT_MODEL_ID, dtype: 'auto' });
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
        this.#message = `Keyword search only. Search by meaning needs ${DEFAULT_MODEL_NAME} (≈${HUB_DOWNLOAD_MB} MB, downloaded once from Hugging Face).`;
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
    const cfg: ModelConfig = { source, modelId, dtype: s.dtype === 'auto' ? undefined : s.dtype };
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
