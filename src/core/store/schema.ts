/**
 * The index schema and its numbered migrations (PRAGMA user_version).
 *
 * Invariants:
 * - Pending migrations run once, in order, inside ONE transaction that also sets user_version,
 *   so a crash leaves the database at the version it had or at SCHEMA_VERSION, never between.
 *   Running `migrate` again is a no-op.
 * - A database newer than this code (user_version > SCHEMA_VERSION) is refused, not touched.
 * - Since schema 5, `chunks_fts` is a contentless FTS5 table (content='', contentless_delete=1)
 *   with one row per chunk (rowid = chunks.id). Store writes, rewrites (rename) and deletes
 *   those rows in the same transaction as the chunk rows — no triggers; Store.integrityCheck
 *   runs FTS5's integrity-check (the index's own structure) and compares the FTS row set
 *   (chunks_fts_docsize ids) with chunks. Schemas 1–4 used an external-content table kept
 *   equal to `chunks` by the chunks_ai/_ad/_au triggers.
 * - Since schema 5, text is stored once: a chunk's content is its slice of file_text
 *   (text_start/text_len in UTF-16 code units) whenever the writer had the file's text;
 *   otherwise (text_start NULL) the content column holds it. Since schema 8 the same holds
 *   for a definition's signature and doc (sig_span/doc_span) when they can be remade exactly.
 * - Since schema 8, a file's chunks are one run of ids, files.chunk_lo..chunk_hi (NULL: no
 *   chunks): Store finds, moves and deletes them by that range (chunks.path has no index);
 *   Store.integrityCheck checks that every chunk lies in its file's range and every range
 *   holds its file's chunks only.
 *
 * FTS columns (weights in search/bm25.ts): names (symbol, parent and their identifier parts),
 * path_words (path plus its parts), sig_doc (signature + doc), content, tokens (camelCase
 * parts of identifiers in content that the tokenizer keeps whole). Since schema 5 only the
 * FTS index holds names/path_words/tokens; Store computes them when it writes a row.
 *
 * Tokenizer: unicode61 (remove_diacritics 2), `_` NOT a token character: `get_user_name`
 * indexes as get/user/name and a quoted query "get_user_name" becomes the phrase
 * get+user+name, so snake_case matches whole and split without storing it twice; camelCase
 * parts come from the JS-computed names/path_words/tokens columns.
 *
 * Prefix index (migration 2): prefix='3' only. query.ts puts `*` on terms of PREFIX_MIN_CHARS
 * (3)+ characters, so a 2-character prefix index is never used by a query, yet it cost ~20%
 * of insert CPU and ~11% of the database (measured on the kernel mm/ subset, 7.6k chunks).
 * The 3-character index serves the short `"abc"*` queries, which expand to the most terms.
 * Schema 5 dropped it too: on the kernel subset it was 64 of the FTS index's 157 MB and
 * half its build time, for keyword latencies within noise (see FTS_OPTIONS_V5).
 *
 * embeddings.vector: float32 LE (4 × dim bytes) as migration 1 says, OR int8 with a
 * per-vector scale (store.ts vectorToInt8Blob: length never a multiple of 4), which Store has
 * written since the size work; readers accept both, so no migration was needed for it.
 */
import type { Db } from './sqlite.ts';
import { META } from './meta.ts';
import { RECOUNT_FTS_TOTALS } from './fts-totals.ts';

/**
 * Languages whose chunks embed after source code (data/prose files). Changing this list
 * changes the `is_data` generated column: it needs a new migration.
 */
export const DATA_LANGUAGES: readonly string[] = [
  'json', 'jsonc', 'yaml', 'toml', 'ini', 'xml', 'csv', 'markdown', 'mdx', 'rst', 'text',
];

const sqlList = (xs: readonly string[]) => xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ');

const FTS_COLUMNS = 'names, path_words, sig_doc, content, tokens';
const FTS_OPTIONS_V1 = `content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3'`;
const FTS_OPTIONS_V2 = `content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='3'`;
/**
 * Schema 5 (scale, issue 12): contentless, no prefix index, full detail (phrase queries:
 * a quoted snake_case term is a phrase). Measured on the kernel subset (243k chunks, native
 * sqlite3, same rows): prefix='3' made the FTS index 157 MB instead of 93 MB and its build
 * 2.2x slower, while keyword p50/p95 were within noise (112/287 vs 96/323 ms, load ~8) —
 * the 3-character index only serves terms of exactly 3 characters.
 */
const FTS_OPTIONS_V5 = `content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'`;
const OLD = (cols: string) => cols.split(', ').map((c) => `old.${c}`).join(', ');
const NEW = (cols: string) => cols.split(', ').map((c) => `new.${c}`).join(', ');

/** Languages whose files migration 11 re-chunks (new grammars, container members, `.h` as C++). */
const RECHUNK_AT_11: readonly string[] = ['rust', 'c', 'cpp', 'kotlin', 'swift', 'scala', 'lua', 'dart', 'elixir', 'haskell', 'zig', 'perl', 'r', 'text'];

/** Languages with a tree-sitter grammar when migration 13 was written (chunk/languages.ts GRAMMARS). */
const GRAMMAR_LANGUAGES_AT_13: readonly string[] = [
  'javascript', 'typescript', 'tsx', 'python', 'go', 'rust', 'java', 'c', 'cpp', 'csharp', 'ruby', 'php', 'bash', 'kotlin',
  'swift', 'scala', 'dart', 'lua', 'elixir', 'haskell', 'zig', 'perl', 'r', 'elm', 'gleam', 'clojure',
];

/** MIGRATIONS[i] brings the schema from version i to i + 1. Append only. */
export const MIGRATIONS: readonly string[] = [
  /* 1 */ `
  CREATE TABLE files (
    path TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    size INTEGER NOT NULL DEFAULT 0,
    mtime INTEGER NOT NULL DEFAULT 0,
    language TEXT NOT NULL DEFAULT '',
    indexed_at TEXT NOT NULL
  );
  CREATE INDEX files_hash ON files(hash);

  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    language TEXT NOT NULL,
    chunk_type TEXT NOT NULL,
    symbol TEXT,
    parent TEXT,
    signature TEXT,
    doc TEXT,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    names TEXT NOT NULL DEFAULT '',
    path_words TEXT NOT NULL DEFAULT '',
    tokens TEXT NOT NULL DEFAULT '',
    sig_doc TEXT GENERATED ALWAYS AS (coalesce(signature, '') || ' ' || coalesce(doc, '')) VIRTUAL,
    is_data INTEGER GENERATED ALWAYS AS (language IN (${sqlList(DATA_LANGUAGES)})) VIRTUAL
  );
  CREATE INDEX chunks_path ON chunks(path);
  CREATE INDEX chunks_content_hash ON chunks(content_hash);
  CREATE INDEX chunks_symbol ON chunks(symbol COLLATE NOCASE);
  CREATE INDEX chunks_embed_order ON chunks(is_data, id);

  CREATE VIRTUAL TABLE chunks_fts USING fts5(
    ${FTS_COLUMNS},
    ${FTS_OPTIONS_V1}
  );

  CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, ${FTS_COLUMNS}) VALUES (new.id, ${NEW(FTS_COLUMNS)});
  END;
  CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, ${FTS_COLUMNS}) VALUES ('delete', old.id, ${OLD(FTS_COLUMNS)});
  END;
  CREATE TRIGGER chunks_au AFTER UPDATE OF names, path_words, signature, doc, content, tokens ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, ${FTS_COLUMNS}) VALUES ('delete', old.id, ${OLD(FTS_COLUMNS)});
    INSERT INTO chunks_fts(rowid, ${FTS_COLUMNS}) VALUES (new.id, ${NEW(FTS_COLUMNS)});
  END;

  -- Vector cache: one row per (content hash, model); vector = little-endian float32 BLOB.
  CREATE TABLE embeddings (
    content_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (content_hash, model)
  ) WITHOUT ROWID;

  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  /* 2 */ `
  -- prefix='3' instead of '2 3' (see the module comment). The chunks_* triggers name the
  -- table, so they keep working; 'rebuild' re-indexes existing rows from chunks.
  DROP TABLE chunks_fts;
  CREATE VIRTUAL TABLE chunks_fts USING fts5(${FTS_COLUMNS}, ${FTS_OPTIONS_V2});
  INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild');
  `,
  /* 3 */ `
  -- Exact/regex search (issue 11): each indexed file's full text, stored ONCE, exactly as the
  -- chunker saw it (decodeText), so line numbers agree with chunks. id is an explicit
  -- INTEGER PRIMARY KEY so the rowid the FTS index refers to never changes (VACUUM-safe).
  CREATE TABLE IF NOT EXISTS file_text (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    text TEXT NOT NULL
  );
  -- IF NOT EXISTS: a database rewound to an older user_version (tests do) migrates again.
  -- Trigram prefilter: which files contain all required trigrams of a literal or regex.
  -- detail='none' keeps only file ids per trigram (no positions): the matcher re-checks every
  -- candidate file, so positions would only cost space. detail='none' refuses phrase queries:
  -- search/trigram.ts queries single trigrams joined by AND / OR. Case-folded (trigram default), so one
  -- index serves case-sensitive and case-insensitive searches.
  CREATE VIRTUAL TABLE IF NOT EXISTS file_trigrams USING fts5(text, content='file_text', content_rowid='id', tokenize='trigram', detail='none');
  CREATE TRIGGER IF NOT EXISTS file_text_ai AFTER INSERT ON file_text BEGIN
    INSERT INTO file_trigrams(rowid, text) VALUES (new.id, new.text);
  END;
  CREATE TRIGGER IF NOT EXISTS file_text_ad AFTER DELETE ON file_text BEGIN
    INSERT INTO file_trigrams(file_trigrams, rowid, text) VALUES ('delete', old.id, old.text);
  END;
  CREATE TRIGGER IF NOT EXISTS file_text_au AFTER UPDATE OF text ON file_text BEGIN
    INSERT INTO file_trigrams(file_trigrams, rowid, text) VALUES ('delete', old.id, old.text);
    INSERT INTO file_trigrams(rowid, text) VALUES (new.id, new.text);
  END;
  -- Files indexed before this table existed have no text: void their stat cache and hash so
  -- the next index run re-reads (and re-chunks) each of them and stores its text. Cached
  -- embeddings are keyed by content hash, so nothing is re-embedded.
  UPDATE files SET hash = '', mtime = -1;
  `,
  /* 4 */ `
  -- Results (issue 10): content is exactly the file's lines start_line..end_line. What a later
  -- piece of a split definition carries (the definition's signature rows, starting at
  -- def_line) is its own column; every piece of one definition has the definition's def_line
  -- (results merge on path + def_line); a chunk of merged small siblings lists every name it
  -- defines in symbols (space-separated), so each is found by name.
  ALTER TABLE chunks ADD COLUMN context TEXT;
  ALTER TABLE chunks ADD COLUMN def_line INTEGER;
  ALTER TABLE chunks ADD COLUMN symbols TEXT;
  CREATE INDEX chunks_symbols ON chunks(symbols) WHERE symbols IS NOT NULL;
  -- Rows written before this kept the context inside content: void every file's stat cache
  -- and hash so the next run re-chunks it. Heads and whole definitions keep their embeddings.
  UPDATE files SET hash = '', mtime = -1;
  `,
  /* 5 */ `
  -- Scale (issue 12): text stored once. A chunk's content is its slice of file_text
  -- (text_start/text_len, UTF-16 code units as JS strings count them; content = '') whenever
  -- the writer had the file's text; rows without it (text_start NULL) keep content inline.
  -- chunks_fts becomes contentless (content='', contentless_delete=1): it keeps only the index,
  -- Store writes and deletes its rows itself (no triggers), and the JS-computed columns
  -- names/path_words/tokens are no longer stored in chunks. No prefix index (see FTS_OPTIONS_V5).
  DROP TRIGGER IF EXISTS chunks_ai;
  DROP TRIGGER IF EXISTS chunks_ad;
  DROP TRIGGER IF EXISTS chunks_au;
  DROP TABLE chunks_fts;
  CREATE VIRTUAL TABLE chunks_fts USING fts5(${FTS_COLUMNS}, ${FTS_OPTIONS_V5});
  INSERT INTO chunks_fts(rowid, ${FTS_COLUMNS}) SELECT id, ${FTS_COLUMNS} FROM chunks;
  ALTER TABLE chunks DROP COLUMN names;
  ALTER TABLE chunks DROP COLUMN path_words;
  ALTER TABLE chunks DROP COLUMN tokens;
  ALTER TABLE chunks ADD COLUMN text_start INTEGER;
  ALTER TABLE chunks ADD COLUMN text_len INTEGER;
  -- Only pruneEmbeddings looked chunks up by hash (a rare full pass): 8% of the kernel index.
  DROP INDEX IF EXISTS chunks_content_hash;
  `,
  /* 6 */ `
  -- Scale (issue 12): the index at most 2x the source, its build several times faster.
  -- file text: stored compressed (data = tag byte + deflate-raw of UTF-8, store/text-codec.ts;
  -- 0.28x of the source instead of 1.12x), packed off the store's thread by whoever chunks.
  -- trigram index: FTS5's trigram tokenizer was half the store thread's time of a cold index;
  -- it becomes Sift's own file-level posting lists (store/trigram-index.ts).
  DROP TRIGGER IF EXISTS file_text_ai;
  DROP TRIGGER IF EXISTS file_text_ad;
  DROP TRIGGER IF EXISTS file_text_au;
  DROP TABLE IF EXISTS file_trigrams;
  DROP TABLE IF EXISTS file_text;
  CREATE TABLE file_text (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    data BLOB NOT NULL
  );
  -- Trigram posting lists (store/trigram-index.ts): per segment, per trigram key, the sorted
  -- file_text ids (delta varints) of the files that contain it. trigram_pending: file_text ids
  -- whose trigrams are not in a segment yet — grep treats them as candidates, so a run cut
  -- short never hides a file. token: the connection that wrote the text last (it alone may
  -- index the keys it holds in memory; any other flush reads the text back).
  -- A rowid table (not WITHOUT ROWID): a WITHOUT ROWID row keeps at most ~4 KB of a 16 KB page
  -- local, so every long list took an overflow page of its own (kernel: 28.0 MB instead of 21.1).
  CREATE TABLE trigram_postings (
    seg INTEGER NOT NULL,
    gram INTEGER NOT NULL,
    ids BLOB NOT NULL
  );
  CREATE UNIQUE INDEX trigram_postings_key ON trigram_postings(seg, gram);
  CREATE TABLE trigram_pending (id INTEGER PRIMARY KEY, token INTEGER NOT NULL DEFAULT 0);
  -- Chunks referred into the old file_text: the index is emptied and the next run re-reads
  -- every file (a cold index). Cached embeddings are keyed by content hash and are kept.
  INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all');
  DELETE FROM chunks;
  DELETE FROM files;
  DELETE FROM meta WHERE key IN ('merkle_root', 'skipped_files');
  -- Content hashes are 16 hex characters from now on (chunk/embedding-text.ts
  -- CONTENT_HASH_CHARS): cached vectors keep their key's prefix, so nothing is re-embedded.
  UPDATE OR IGNORE embeddings SET content_hash = substr(content_hash, 1, 16) WHERE length(content_hash) > 16;
  DELETE FROM embeddings WHERE length(content_hash) > 16;
  `,
  /* 7 */ `
  -- Names by which a chunk is a definition besides its symbol (issue 12, identifier lookups):
  -- the names of merged small siblings (chunks.symbols) and the constants it defines that are
  -- no definition of their own (chunks.defines: C/C++ object-like #defines, space-separated).
  -- chunk_names holds each under its key, the name with ASCII A-Z folded (as COLLATE NOCASE
  -- compares; store.ts nameKey), so a name is found with one seek of this one b-tree instead
  -- of a LIKE scan over every list; the scan's index goes. Store deletes a chunk's rows by
  -- the keys of its symbols and defines.
  ALTER TABLE chunks ADD COLUMN defines TEXT;
  CREATE TABLE chunk_names (
    key TEXT NOT NULL,
    chunk_id INTEGER NOT NULL,
    PRIMARY KEY (key, chunk_id)
  ) WITHOUT ROWID;
  WITH RECURSIVE split(id, name, rest) AS (
    SELECT id, '', symbols || ' ' FROM chunks WHERE symbols IS NOT NULL
    UNION ALL
    SELECT id, substr(rest, 1, instr(rest, ' ') - 1), substr(rest, instr(rest, ' ') + 1) FROM split WHERE rest <> ''
  )
  INSERT OR IGNORE INTO chunk_names (key, chunk_id) SELECT lower(name), id FROM split WHERE name <> '';
  DROP INDEX IF EXISTS chunks_symbols;
  -- C/C++ files are re-chunked on the next run so their #defines are recorded (cached
  -- embeddings are keyed by content hash: nothing is re-embedded).
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('c', 'cpp');
  `,
  /* 8 */ `
  -- Size (issue 12): a chunk's signature and doc are read from its file's text like its
  -- content. sig_span / doc_span: where in file_text they were read from, as
  -- (start - text_start) * 65536 + length (UTF-16 code units; store.ts encodeSpan); the
  -- signature / doc column is then NULL and the store remakes the text with
  -- text/decl-text.ts signatureText / docText. Rows written before keep their text (a
  -- rebuild drops it: 33 of the kernel subset's 255 MB).
  ALTER TABLE chunks ADD COLUMN sig_span INTEGER;
  ALTER TABLE chunks ADD COLUMN doc_span INTEGER;
  -- A file's chunks are written together and take consecutive ids: files.chunk_lo..chunk_hi
  -- finds them, and the index on chunks.path (9.5 of the kernel subset's 222 MB) goes. A file
  -- whose rows are not one run of ids (none is written so, but the range would take other
  -- files' rows) loses them and is re-chunked on the next run, as are rows of no file.
  ALTER TABLE files ADD COLUMN chunk_lo INTEGER;
  ALTER TABLE files ADD COLUMN chunk_hi INTEGER;
  UPDATE files SET chunk_lo = r.lo, chunk_hi = r.hi
    FROM (SELECT path, min(id) AS lo, max(id) AS hi, count(*) AS n FROM chunks GROUP BY path) AS r
    WHERE r.path = files.path AND r.n = r.hi - r.lo + 1;
  CREATE TEMP TABLE migrate_astray AS SELECT c.id AS id FROM chunks c LEFT JOIN files f ON f.path = c.path WHERE f.chunk_lo IS NULL;
  DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM migrate_astray);
  DELETE FROM chunk_names WHERE chunk_id IN (SELECT id FROM migrate_astray);
  UPDATE files SET hash = '', mtime = -1 WHERE path IN (SELECT c.path FROM chunks c WHERE c.id IN (SELECT id FROM migrate_astray));
  DELETE FROM chunks WHERE id IN (SELECT id FROM migrate_astray);
  DROP TABLE migrate_astray;
  DROP INDEX IF EXISTS chunks_path;
  -- Enumerators and Go / Rust consts became constants a chunk defines (chunk/languages.ts
  -- constantQueries): files in those languages are re-chunked on the next run (their rows then
  -- keep signatures and docs as spans too; cached embeddings are keyed by content hash).
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('c', 'cpp', 'go', 'rust', 'java', 'csharp', 'typescript', 'tsx');
  -- The embedding order (code, then data, each by id) reads code rows from the table itself;
  -- only data rows need an index (the one over every row was 3.9 MB of the kernel index).
  DROP INDEX IF EXISTS chunks_embed_order;
  CREATE INDEX chunks_data ON chunks(id) WHERE is_data;
  `,
  // 9: module-level JavaScript / TypeScript consts, Python UPPER_CASE names, Go package-level
  // vars, Java static final and C# const fields became constants a chunk defines
  // (chunk/languages.ts constantQueries): files in those languages are re-chunked on the next
  // run (cached embeddings are keyed by content hash and stay).
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('javascript', 'typescript', 'tsx', 'python', 'go', 'java', 'csharp');
  `,
  // 10: UPPER_CASE names in the body of a module-level Python class (enum members, class
  // constants), Java `final static` fields and C# `static readonly` fields became constants a
  // chunk defines: files in those languages are re-chunked on the next run.
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('python', 'java', 'csharp');
  `,
  // 11: a kind per file (text/file-kind.ts: code, test, docs, config, generated, example) on
  // each chunk, for the `--kind` filter and the ranking's kind signal; filled from the path and
  // language by the function Store.open registers. Languages that gained a grammar or
  // definitions inside containers (Rust impl methods), and C headers that may be C++, are
  // re-chunked on the next run (cached embeddings are keyed by content hash and stay).
  `
  ALTER TABLE chunks ADD COLUMN kind TEXT NOT NULL DEFAULT 'code';
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE sift_file_kind(path, language) <> 'code';
  UPDATE files SET hash = '', mtime = -1 WHERE language IN (${sqlList(RECHUNK_AT_11)});
  `,
  // 12 (issue 35): C/C++ definitions behind a project's own macros are named (`class
  // PROTOBUF_EXPORT Message`, a class after `NLOHMANN_JSON_NAMESPACE_BEGIN`) and Ruby modules
  // are names a chunk defines: C, C++ and Ruby files are re-chunked on the next run.
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('c', 'cpp', 'ruby');
  `,
  // 13: the chunker's parse limit counts parse work instead of wall time, and a file whose
  // syntax errors cover most of it keeps its tree when a fifth of it is definitions read with
  // no error (chunk/chunker.ts): files of a language with a grammar that were chunked wholly as
  // text (a timed-out parse, or such errors) are re-chunked on the next run. And (issue 35) Lua
  // type annotations (`---@class LazyPlugin`, `---@alias`, `---@enum`) are names a chunk
  // defines: Lua files are re-chunked too.
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language IN (${sqlList(GRAMMAR_LANGUAGES_AT_13)})
    AND path IN (SELECT path FROM chunks GROUP BY path HAVING min(chunk_type) = 'text' AND max(chunk_type) = 'text');
  UPDATE files SET hash = '', mtime = -1 WHERE language = 'lua';
  `,
  // 14 (issue 35): C/C++ upper-case macros that open a declaration (`FMT_CONSTEXPR auto …`,
  // `FMT_API void …`, the same words before a constructor) and `if FMT_CONSTEXPR20 (` are
  // blanked in the parse input (chunk/languages.ts maskCTypeMacros): a file full of them parsed
  // as one ERROR node, and definitions such as fmt's `join_view` were no chunks of their own.
  // C and C++ files are re-chunked on the next run.
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('c', 'cpp');
  `,
  // 15 (issue 35): file kinds judged again (text/file-kind.ts): source files named like a
  // project's prose (`history.ts`, `Security.tsx`) and Go packages in `doc/` folders are code, not
  // docs; `testing/` packages (Go's `testing`, `numpy.testing`) and Python's `unittest/` are code,
  // not tests. The rows stay; only their kind changes.
  `
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  `,
  // 16 (issue 35): TypeScript declaration files (`.d.ts`, `.d.cts`, `.d.mts`) and vendored copies
  // in `bundled/` or `_vendor/` folders (spdlog's `fmt/bundled/`, pip's `_vendor/`) are of kind
  // generated (text/file-kind.ts): tsc writes the former, or they describe code defined elsewhere
  // (a JavaScript library's `index.d.ts`). The rows stay; only their kind changes.
  `
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  `,
  // 17 (issue 35): in JavaScript and TypeScript a function or class assigned to a member
  // (`app.use = function use(fn) {…}`, `AxiosError.from = (…) => {…}`, `X.prototype.m = …`) is a
  // definition of that name (chunk/language-hooks.ts readJs); such files were one top-level
  // piece per run of statements with no name. Their files are re-chunked on the next run.
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('javascript', 'typescript', 'tsx', 'svelte', 'vue');
  `,
  // 18 (issue 35): a `bundled/` folder is code again (text/file-kind.ts): javalin's
  // `plugin/bundled/` holds its own plugins, written there, as spdlog's `fmt/bundled/` holds a
  // copy of fmt; the name tells them apart no more than `lib/` would. `_vendor/` stays generated.
  // Lua's `testes/` (Portuguese for tests) is a folder of tests.
  // Those rows stay; only their kind changes. And in Haskell an infix type is named for its
  // operator (`data a :<|> b` defines `:<|>`), and a pattern binding through a constructor
  // operator (`getA :<|> getB = client api`) is no definition of it (chunk/language-hooks.ts
  // readHaskell): Haskell files are re-chunked on the next run. So are Kotlin, TypeScript and Rust
  // files: a file the grammar reads as mostly errors is read again with the grammar's gaps
  // blanked (chunk/languages.ts maskKotlinGaps, maskTsGaps, maskTsxGaps, maskRustGaps; javalin's
  // `http/Context.kt`, hono's `context.ts` and `types.ts`, xstate's `createActor.ts`, Rust's
  // `alloc/boxed.rs` were all text).
  // And FTS5's totals are recounted from its row sizes: deletes never lowered them (fts-totals.ts).
  `
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('haskell', 'kotlin', 'typescript', 'tsx', 'rust');
  ${RECOUNT_FTS_TOTALS}
  `,
  // 19 (issue 35): a JavaScript tool's `<tool>.config.ts` / `.config.js` / `.conf.js` (tsdown,
  // vitest, next, jest, babel, playwright …) is of kind config, as vite's and webpack's were
  // (text/file-kind.ts CONFIG_NAME). The rows stay; only their kind changes.
  `
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  `,
  // 20 (issue 35): a JavaScript or CSS bundle in a `dist/` folder (`dist/axios.js`, socket.io's
  // `client-dist/socket.io.js`) is of kind generated (text/file-kind.ts BUILT_BUNDLE). The rows
  // stay; only their kind changes.
  `
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  `,
  // 21 (issue 35): a module-level Python name declared with a type is defined where it is declared
  // (chunk/languages.ts python constantQueries: Flask's `current_app: FlaskProxy = LocalProxy(…)`),
  // as UPPER_CASE ones were. Python files are re-chunked on the next run.
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language = 'python';
  `,
  // 22 (issue 35): a `docs_src/` folder (FastAPI's, Typer's: the programs the documentation
  // shows) holds examples (text/file-kind.ts EXAMPLE_DIR). The rows stay; only their kind changes.
  `
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  `,
  // 23 (issue 35): Gradle's and Kotlin Multiplatform's test source sets (`src/testFixtures/`,
  // `src/jmh/`, `src/jvmTest/`…) and `regress/` hold tests (text/file-kind.ts TEST_SOURCE_SET).
  `
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  `,
  // 24 (issue 35): `perftests/` (fastparse's performance tests and their input files) holds tests;
  // Gradle's and Maven's wrapper scripts (`gradlew`, `mvnw`), Phoenix's `priv/static/` and bundles
  // named for their module format (`*.cjs.js`, `*.esm.js`, `*.umd.js`) are generated; a file in a
  // main source set (`src/main/`, `src/commonMain/`) is code whatever its name (JavaPoet's `MethodSpec.java`).
  `
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  `,
  // 25 (issue 35): a Haskell pattern synonym (`pattern T_SimpleCommand id vars cmds = …`) defines
  // its name (chunk/language-hooks.ts readHaskell); Python's and Ruby's definitions inside a
  // top-level `if`, `try` or `begin` (`if sys.platform == "win32": def spawn…`, `if
  // defined?(ActionMailer) class Devise::Mailer…`) are pieces of their own (chunk/languages.ts
  // `conditional`): Haskell, Python and Ruby files are re-chunked on the next run. A folder named
  // as a web domain (`apps/rxjs.dev/`) is the project's website (text/file-kind.ts DOCS_DIR): the
  // rows stay, their kind changes.
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language IN ('haskell', 'python', 'ruby');
  UPDATE chunks SET kind = sift_file_kind(path, language) WHERE kind <> sift_file_kind(path, language);
  `,
  // 26 (issue 35): a Ruby constant assigned at a module's or class's level (`Worker = Job`,
  // `Point = Struct.new(:x, :y)`) defines its name, qualified by its modules (chunk/languages.ts
  // rubyModules): Ruby files are re-chunked on the next run.
  `
  UPDATE files SET hash = '', mtime = -1 WHERE language = 'ruby';
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The schema MIGRATIONS[0..SNAPSHOT_VERSION) build, as one script for a NEW database (as Rails
 * loads schema.rb instead of replaying every migration). Replaying them cost ~100–190 ms of CPU
 * (ALTER TABLE … DROP COLUMN rewrites and re-checks the schema) and 11 commits of a one-file
 * `sift index`. schema.test.ts checks that it builds exactly what the migrations build, the
 * rows of every table included. The migrations after the last that changed the schema (11) only
 * rewrite rows (files to chunk again, kinds judged again, FTS5's totals recounted), which a new
 * database does not have: the snapshot stands for them too, so a new index runs this one script
 * and no migration (14 scripts fewer when measured: a new file's Store.open 27–30 → 18–23 ms in a cold `sift
 * index`, docs/performance.md "Session 29"). A new migration needs no change here: it runs after the snapshot (SNAPSHOT_VERSION is
 * the version the snapshot stands for, not SCHEMA_VERSION).
 */
export const SNAPSHOT_VERSION = 26;
export const SNAPSHOT = `
  CREATE TABLE files (
    path TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    size INTEGER NOT NULL DEFAULT 0,
    mtime INTEGER NOT NULL DEFAULT 0,
    language TEXT NOT NULL DEFAULT '',
    indexed_at TEXT NOT NULL,
    chunk_lo INTEGER,
    chunk_hi INTEGER
  );
  CREATE INDEX files_hash ON files(hash);

  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    language TEXT NOT NULL,
    chunk_type TEXT NOT NULL,
    symbol TEXT,
    parent TEXT,
    signature TEXT,
    doc TEXT,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    sig_doc TEXT GENERATED ALWAYS AS (coalesce(signature, '') || ' ' || coalesce(doc, '')) VIRTUAL,
    is_data INTEGER GENERATED ALWAYS AS (language IN (${sqlList(DATA_LANGUAGES)})) VIRTUAL,
    context TEXT,
    def_line INTEGER,
    symbols TEXT,
    text_start INTEGER,
    text_len INTEGER,
    defines TEXT,
    sig_span INTEGER,
    doc_span INTEGER,
    kind TEXT NOT NULL DEFAULT 'code'
  );
  CREATE INDEX chunks_symbol ON chunks(symbol COLLATE NOCASE);
  CREATE INDEX chunks_data ON chunks(id) WHERE is_data;

  CREATE TABLE embeddings (
    content_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (content_hash, model)
  ) WITHOUT ROWID;

  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE VIRTUAL TABLE chunks_fts USING fts5(${FTS_COLUMNS}, ${FTS_OPTIONS_V5});

  CREATE TABLE file_text (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    data BLOB NOT NULL
  );
  CREATE TABLE trigram_postings (
    seg INTEGER NOT NULL,
    gram INTEGER NOT NULL,
    ids BLOB NOT NULL
  );
  CREATE UNIQUE INDEX trigram_postings_key ON trigram_postings(seg, gram);
  CREATE TABLE trigram_pending (id INTEGER PRIMARY KEY, token INTEGER NOT NULL DEFAULT 0);

  CREATE TABLE chunk_names (
    key TEXT NOT NULL,
    chunk_id INTEGER NOT NULL,
    PRIMARY KEY (key, chunk_id)
  ) WITHOUT ROWID;

  -- Migration 18's recount (the later ones change only rows a new database does not have yet).
  ${RECOUNT_FTS_TOTALS}
`;

/**
 * Bring `db` to SCHEMA_VERSION, every pending migration in ONE transaction (a crash leaves the
 * database at the version found or at SCHEMA_VERSION). A new database (version 0, no tables)
 * gets SNAPSHOT, then the migrations after it. Returns the version found before migrating.
 */
export async function migrate(db: Db, o: { snapshot?: boolean } = {}): Promise<number> {
  const row = await db.get<{ user_version: number }>('PRAGMA user_version');
  const from = row?.user_version ?? 0;
  if (from > SCHEMA_VERSION) {
    throw new Error(`index schema version ${from} is newer than this Sift (${SCHEMA_VERSION}); rebuild the index or update Sift`);
  }
  if (from === SCHEMA_VERSION) return from;
  await db.transaction(async (tx) => {
    let v = from;
    if (v === 0 && o.snapshot !== false && !(await tx.get('SELECT 1 FROM sqlite_schema LIMIT 1'))) {
      await tx.exec(SNAPSHOT);
      v = SNAPSHOT_VERSION;
    }
    for (; v < SCHEMA_VERSION; v++) await tx.exec(MIGRATIONS[v]!);
    await tx.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    await tx.run(`INSERT INTO meta(key, value) VALUES ('${META.schemaVersion}', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, [String(SCHEMA_VERSION)]);
    await tx.run(`INSERT OR IGNORE INTO meta(key, value) VALUES ('created_at', ?)`, [new Date().toISOString()]);
  });
  return from;
}
