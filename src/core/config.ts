/**
 * Defaults for indexing and search, adapted from the seeds' CodiiConfig. Every value
 * here is overridable by the CLI flags / app settings; nothing else hard-codes them.
 */

export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024; // 1 MB
export const MAX_CHUNK_CHARS = 1500;
export const MIN_CHUNK_CHARS = 100;
export const CHUNK_OVERLAP_CHARS = 200;
export const WRITE_BATCH_ROWS = 1000;

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
export const LEG_CANDIDATES = 50;
export const RRF_K = 60;
export const BM25_WEIGHT = 0.5;
export const VECTOR_WEIGHT = 0.5;

export const EMBED_BATCH_SIZE = 32;
export const EMBED_MAX_TOKENS = 256;
export const EMBED_DIM = 384;
export const DEFAULT_MODEL_ID = 'Xenova/all-MiniLM-L6-v2';

export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 200;
export const HNSW_EF_SEARCH = 100;

/** Ignore patterns (gitignore syntax) applied before any .gitignore. */
export const DEFAULT_IGNORE_PATTERNS: readonly string[] = [
  '.git/', '.hg/', '.svn/', '__pycache__/', 'node_modules/', '.venv/', 'venv/', '.env/',
  '*.pyc', '*.pyo', '*.so', '*.dll', '*.dylib', '*.exe', '*.bin', '*.o', '*.a', '*.class', '*.jar',
  '*.jpg', '*.jpeg', '*.png', '*.gif', '*.svg', '*.ico', '*.pdf', '*.webp',
  '*.zip', '*.tar', '*.gz', '*.rar', '*.7z', '*.xz', '*.bz2',
  '.DS_Store', 'Thumbs.db', '*.log', '*.tmp',
  '.idea/', '.vscode/', '*.swp', '*.swo',
  'dist/', 'build/', 'target/',
  '.tox/', '.pytest_cache/', '.mypy_cache/', '.ruff_cache/',
  'coverage/', '*.egg-info/',
  '*.min.js', '*.min.css', '*.map', 'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml',
];

/** Likely secrets: never read, never indexed. */
export const SECRET_PATTERNS: readonly string[] = [
  '.env', '.env.*', '!.env.example', '!.env.sample', '!.env.template',
  '*.pem', '*.key', '*.p12', '*.pfx', '*.jks', '*.keystore',
  'id_rsa', 'id_rsa.*', 'id_dsa', 'id_dsa.*', 'id_ecdsa', 'id_ecdsa.*', 'id_ed25519', 'id_ed25519.*',
  '.npmrc', '.pypirc', '.netrc', '.htpasswd', 'credentials.json', '*.kdbx',
];

/** Extensions indexed by default (lower-case, with dot). Files named in FILENAME_LANGUAGES also count. */
export const DEFAULT_EXTENSIONS: readonly string[] = [
  '.py', '.pyi', '.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.mts', '.cts',
  '.go', '.rs', '.java', '.kt', '.scala', '.c', '.cpp', '.cc', '.cxx', '.h', '.hpp', '.hxx', '.hh',
  '.cs', '.rb', '.php', '.swift', '.lua', '.svelte', '.vue',
  '.json', '.yaml', '.yml', '.toml', '.ini', '.cfg',
  '.md', '.mdx', '.rst', '.txt',
  '.sh', '.bash', '.zsh',
  '.sql', '.proto', '.graphql',
  '.html', '.htm', '.css', '.scss', '.less', '.xml',
];

/** Extension-less files worth indexing. */
export const DEFAULT_FILENAMES: readonly string[] = [
  'Makefile', 'Dockerfile', 'Kconfig', 'README', 'LICENSE', 'CMakeLists.txt', 'Gemfile', 'Rakefile',
];

/**
 * Above this many vectors the hnsw graph replaces the exact scan. Why 50k: the exact f32
 * scan is 7–10 ms p50 at 10k and 33–38 ms at 50k in a Chromium worker (STACK-FACTS),
 * exact, and loads in well under a second; hnsw answers in ~1 ms but its graph costs
 * 2–10 ms per vector to build (efConstruction 200; 107 s for 10k on this loaded 2-core
 * box) and, because hnswlib-wasm cannot hand us its bytes, is rebuilt on every load.
 * Below ~50k the scan stays within an interactive budget, so the graph only pays above.
 */
export const HNSW_THRESHOLD = 50_000;
