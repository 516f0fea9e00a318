/**
 * The embedding model setting and status. Sources: the app's served `models/` folder, a
 * folder the user imported (copied into OPFS), or the Hugging Face Hub (only when chosen —
 * nothing leaves the machine otherwise). No model → keyword search only, and the UI says so.
 *
 * Invariant: after a model loads, every codebase's pending chunks are embedded (writer tab
 * only), one codebase at a time.
 */
import { bridge } from '../bridges/workers.ts';
import type { ImportedModel, ModelConfig, ModelInfo, ModelSourceKind } from '../../../workers/embedder/api.ts';
import { DEFAULT_MODEL_ID } from '../../core/config.ts';
import { codebases } from './codebases.svelte.ts';
import { handleError, notices } from './notices.svelte.ts';
import { tabs } from './tabs.svelte.ts';

const SETTINGS_KEY = 'sift:model';

export interface ModelSettings {
  source: ModelSourceKind | 'none';
  modelId: string;
  dtype: 'fp32' | 'q8' | 'auto';
}

export const DEFAULT_MODEL_SETTINGS: ModelSettings = { source: 'served', modelId: DEFAULT_MODEL_ID, dtype: 'auto' };

export type ModelStatus = 'none' | 'loading' | 'ready' | 'missing' | 'error';

class Model {
  #settings = $state<ModelSettings>({ ...DEFAULT_MODEL_SETTINGS });
  #status = $state<ModelStatus>('none');
  #info = $state.raw<ModelInfo | null>(null);
  #message = $state<string | null>(null);
  #imported = $state.raw<ImportedModel[]>([]);
  #ctl: AbortController | null = null;

  get settings() { return this.#settings; }
  get status() { return this.#status; }
  get info() { return this.#info; }
  get message() { return this.#message; }
  get imported() { return this.#imported; }
  get ready() { return this.#status === 'ready'; }

  async init(): Promise<void> {
    try {
      const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? 'null') as ModelSettings | null;
      if (saved && typeof saved.modelId === 'string') this.#settings = { ...DEFAULT_MODEL_SETTINGS, ...saved };
    } catch {
      // corrupt setting: defaults
    }
    codebases.embedAfterIndex = (id) => {
      if (this.ready) void codebases.embed(id);
    };
    await this.load();
  }

  async apply(s: ModelSettings): Promise<void> {
    this.#settings = { ...s };
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(s));
    await this.load();
  }

  async load(): Promise<void> {
    this.#ctl?.abort();
    const s = this.#settings;
    if (s.source === 'none') {
      await bridge.unloadModel().catch(() => undefined);
      this.#status = 'none';
      this.#info = null;
      this.#message = 'Semantic search is off: keyword search only.';
      return;
    }
    const ctl = new AbortController();
    this.#ctl = ctl;
    this.#status = 'loading';
    this.#message = null;
    const cfg: ModelConfig = { source: s.source, modelId: s.modelId, dtype: s.dtype === 'auto' ? undefined : s.dtype };
    try {
      const res = await bridge.loadModel(cfg, ctl.signal);
      if (!res.ok) {
        this.#status = res.reason === 'missing' ? 'missing' : 'error';
        this.#info = null;
        this.#message =
          res.reason === 'missing'
            ? `No embedding model “${s.modelId}” found (${s.source === 'served' ? 'in the app’s models/ folder' : s.source === 'opfs' ? 'among imported models' : 'on the Hub'}). Keyword search only — import a model folder or choose another source in Settings.`
            : `The model could not be loaded: ${res.message}. Keyword search only.`;
        return;
      }
      this.#status = 'ready';
      this.#info = res.info;
      this.#message = null;
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
      if (this.#settings.source === 'opfs' && this.#settings.modelId === name) await this.apply({ ...DEFAULT_MODEL_SETTINGS, source: 'none' });
    } catch (e) {
      handleError(e, 'Removing the model');
    }
  }
}

export const model = new Model();
