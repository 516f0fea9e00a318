/**
 * What the app indexes (Settings → Indexing): include and exclude patterns and the size
 * limit, for every codebase of this browser, persisted in localStorage like the other
 * settings. Every text file is indexed by default; the indexer worker gets these with each
 * run (IndexRequest), so a change applies from the next index or rescan.
 *
 * Patterns are gitignore syntax relative to the folder (`src/`, `*.ex`, `docs/**\/*.md`), as
 * the CLI's --include / --exclude take them.
 */
import { DEFAULT_MAX_FILE_SIZE } from '../../core/config.ts';
import type { IndexWalkSettings } from '../../../workers/indexer/api.ts';

const SETTINGS_KEY = 'sift:index';
const MB = 1024 * 1024;

export interface IndexSettings {
  /** When any: only paths matching one are indexed. */
  include: string[];
  /** Paths matching one are skipped (after .gitignore and .siftignore). */
  exclude: string[];
  /** Files larger than this are skipped. */
  maxFileSizeMb: number;
}

export const DEFAULT_INDEX_SETTINGS: IndexSettings = { include: [], exclude: [], maxFileSizeMb: DEFAULT_MAX_FILE_SIZE / MB };

/** One pattern per line; blank lines and `#` comments dropped, surrounding spaces trimmed. */
export function parsePatterns(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

/** Saved settings back, with defaults for what is missing or malformed. */
export function readIndexSettings(raw: string | null): IndexSettings {
  try {
    const v = JSON.parse(raw ?? 'null') as Partial<IndexSettings> | null;
    const list = (x: unknown): string[] => (Array.isArray(x) ? x.filter((p): p is string => typeof p === 'string' && p.trim() !== '') : []);
    const mb = Number(v?.maxFileSizeMb);
    return {
      include: list(v?.include),
      exclude: list(v?.exclude),
      maxFileSizeMb: Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_INDEX_SETTINGS.maxFileSizeMb,
    };
  } catch {
    return { ...DEFAULT_INDEX_SETTINGS };
  }
}

/** The settings as the indexer worker takes them. */
export function walkSettings(s: IndexSettings): IndexWalkSettings {
  return { include: [...s.include], exclude: [...s.exclude], maxFileSize: Math.round(s.maxFileSizeMb * MB) };
}

const storage = (): Storage | null => (typeof localStorage === 'undefined' ? null : localStorage);

class IndexSettingsState {
  #settings = $state<IndexSettings>(readIndexSettings(storage()?.getItem(SETTINGS_KEY) ?? null));

  get settings(): IndexSettings {
    return this.#settings;
  }

  /** For the indexer worker (IndexRequest). */
  get walk(): IndexWalkSettings {
    return walkSettings(this.settings);
  }

  apply(s: IndexSettings): void {
    const clean = readIndexSettings(JSON.stringify(s));
    this.#settings = clean;
    storage()?.setItem(SETTINGS_KEY, JSON.stringify(clean));
  }
}

export const indexSettings = new IndexSettingsState();
