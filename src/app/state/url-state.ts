/**
 * The search and the page shown as a URL fragment (`#index=…&q=…&mode=…&i=1&lang=…&glob=…&type=…&kind=…&intent=…&cb=…&view=…`),
 * so a search can be bookmarked and shared, and Back leaves Stats or Settings for the search. Pure: parse ∘ serialize is the identity on normalised state,
 * unknown keys and invalid values are dropped, defaults are omitted from the fragment.
 */
import type { ChunkType, SearchMode } from '../../core/types.ts';
import type { GrepMode } from '../../core/search/grep.ts';
import { FILE_KINDS, SEARCH_INTENTS, type FileKind, type SearchIntent } from '../../core/text/file-kind.ts';

/** Ranked modes (hybrid/keyword/semantic) and the line modes of issue 11 (exact/regex). */
export type AppMode = SearchMode | GrepMode;

/** The pages of the app (`view=stats|settings`; the search page is the default). */
export type AppView = 'search' | 'stats' | 'settings';
const VIEWS: readonly AppView[] = ['search', 'stats', 'settings'];

export const isGrepMode = (m: AppMode): m is GrepMode => m === 'exact' || m === 'regex';

export interface UrlSearchState {
  query: string;
  mode: AppMode;
  /** Case-insensitive exact/regex search (`i=1`); ranked modes ignore it. */
  ignoreCase: boolean;
  languages: string[];
  pathGlob: string;
  chunkTypes: ChunkType[];
  /** File kinds to keep (`kind=test,docs`); empty = all. */
  kinds: FileKind[];
  /** Which kinds lead (`intent=test`); null = read from the query's words. */
  intent: SearchIntent | null;
  /** Codebase ids to search; empty = all. */
  codebases: string[];
  /** A published index to open (`index=<URL of sift-index.json>`, relative to the app allowed; issue 27). */
  index: string;
  /** The page shown. */
  view: AppView;
}

export const DEFAULT_URL_STATE: UrlSearchState = { query: '', mode: 'hybrid', ignoreCase: false, languages: [], pathGlob: '', chunkTypes: [], kinds: [], intent: null, codebases: [], index: '', view: 'search' };

const MODES: Record<string, AppMode> = { hybrid: 'hybrid', keyword: 'bm25', bm25: 'bm25', semantic: 'vector', vector: 'vector', exact: 'exact', regex: 'regex' };
const MODE_NAMES: Record<AppMode, string> = { hybrid: 'hybrid', bm25: 'keyword', vector: 'semantic', exact: 'exact', regex: 'regex' };
const CHUNK_TYPES = new Set<string>(['function', 'method', 'class', 'struct', 'interface', 'enum', 'type', 'module', 'comment', 'text']);

function list(v: string | null): string[] {
  return v ? v.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

export function parseHash(hash: string): UrlSearchState {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  return {
    query: p.get('q') ?? '',
    mode: MODES[p.get('mode') ?? ''] ?? 'hybrid',
    ignoreCase: p.get('i') === '1',
    languages: list(p.get('lang')),
    pathGlob: p.get('glob') ?? '',
    chunkTypes: list(p.get('type')).filter((t): t is ChunkType => CHUNK_TYPES.has(t)),
    kinds: list(p.get('kind')).filter((k): k is FileKind => (FILE_KINDS as readonly string[]).includes(k)),
    intent: (SEARCH_INTENTS as readonly string[]).includes(p.get('intent') ?? '') ? (p.get('intent') as SearchIntent) : null,
    codebases: list(p.get('cb')),
    index: (p.get('index') ?? '').trim(),
    view: (VIEWS as readonly string[]).includes(p.get('view') ?? '') ? (p.get('view') as AppView) : 'search',
  };
}

export function serializeHash(s: UrlSearchState): string {
  const p = new URLSearchParams();
  if (s.index) p.set('index', s.index);
  if (s.query) p.set('q', s.query);
  if (s.mode !== 'hybrid') p.set('mode', MODE_NAMES[s.mode]);
  if (s.ignoreCase) p.set('i', '1');
  if (s.languages.length) p.set('lang', s.languages.join(','));
  if (s.pathGlob) p.set('glob', s.pathGlob);
  if (s.chunkTypes.length) p.set('type', s.chunkTypes.join(','));
  if (s.kinds.length) p.set('kind', s.kinds.join(','));
  if (s.intent) p.set('intent', s.intent);
  if (s.codebases.length) p.set('cb', s.codebases.join(','));
  if (s.view !== 'search') p.set('view', s.view);
  const out = p.toString();
  return out ? `#${out}` : '';
}
