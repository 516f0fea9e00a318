/**
 * A small typed wrapper over wa-sqlite's low-level API, environment-neutral (Node and
 * browser workers). It owns one connection.
 *
 * Invariants:
 * - Every statement is finalized: cached statements on `close()`, evicted ones at once.
 * - Calls on one Db run one at a time (an internal queue): wa-sqlite statements are not
 *   re-entrant and a transaction must not interleave with other callers. Inside
 *   `transaction(fn)`, `fn` gets a `tx` handle that runs directly on the held connection.
 * - Errors are `StoreError`s carrying SQLite's result `code`; a full disk / exceeded quota
 *   becomes `StorageFullError` whose message says storage is full.
 * - Blobs returned from queries are copies, never views into WASM memory.
 * - Positional parameters are bound straight through the module's exports (RawBinder): a
 *   bulk index binds millions of values, and wa-sqlite's per-value path (a TextEncoder
 *   allocation, a sqlite3_malloc and several wrapped calls per string) was ~12% of the
 *   store thread's time on the kernel subset.
 */
import * as SQLite from '@journeyapps/wa-sqlite';

/** Prepared statements kept for reuse (hot inserts, lookups); least recently used evicted. */
export const STATEMENT_CACHE_SIZE = 64;

export type SqlValue = number | string | Uint8Array | bigint | null;
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;
export type Row = Record<string, SqlValue>;

export class StoreError extends Error {
  readonly code: number;
  constructor(message: string, code: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

/** The disk (Node) or the origin's storage quota (browser) is full. */
export class StorageFullError extends StoreError {
  constructor(detail: string, code: number, options?: { cause?: unknown }) {
    super(`Storage is full: the disk or browser storage quota has no room left (${detail})`, code, options);
    this.name = 'StorageFullError';
  }
}

/**
 * The raw exports of wa-sqlite's SYNC Emscripten module that RawBinder calls (every build of
 * it exports them: wa-sqlite's own API wraps the same functions with cwrap).
 */
export interface SqliteModule {
  HEAPU8: Uint8Array;
  _sqlite3_malloc(n: number): number;
  _sqlite3_free(ptr: number): void;
  _sqlite3_bind_parameter_count(stmt: number): number;
  _sqlite3_bind_text(stmt: number, i: number, ptr: number, n: number, destructor: number): number;
  _sqlite3_bind_blob(stmt: number, i: number, ptr: number, n: number, destructor: number): number;
  _sqlite3_bind_int(stmt: number, i: number, v: number): number;
  _sqlite3_bind_double(stmt: number, i: number, v: number): number;
  _sqlite3_bind_null(stmt: number, i: number): number;
  _sqlite3_clear_bindings(stmt: number): number;
  _sqlite3_step(stmt: number): number;
  _sqlite3_data_count(stmt: number): number;
  _sqlite3_column_count(stmt: number): number;
  _sqlite3_column_name(stmt: number, i: number): number;
  _sqlite3_column_type(stmt: number, i: number): number;
  /** The low 32 bits (signed); the high ones are getTempRet0(). */
  _sqlite3_column_int64(stmt: number, i: number): number;
  _sqlite3_column_double(stmt: number, i: number): number;
  _sqlite3_column_text(stmt: number, i: number): number;
  _sqlite3_column_blob(stmt: number, i: number): number;
  _sqlite3_column_bytes(stmt: number, i: number): number;
  getTempRet0(): number;
  UTF8ToString(ptr: number): string;
  _sqlite3_errmsg(db: number): number;
  /** sqlite-api.js: operations a VFS queued for a call to be retried (a step is retried after them). */
  retryOps: Array<Promise<unknown>>;
  /** sqlite-api.js: operations a VFS queued that a call waits for before it returns. */
  pendingOps: Array<Promise<unknown>>;
}

const BIND_ERRORS: Record<number, string> = { 7: 'out of memory', 18: 'string or blob too big', 21: 'misuse', 25: 'parameter index out of range' };
/** SQLITE_TRANSIENT as a destructor argument: SQLite copies the bytes before bind returns. */
const SQLITE_TRANSIENT = -1;
/** Strings up to this length are tried as ASCII by a plain loop (TextEncoder's call costs more). */
const ASCII_LOOP_MAX = 64;

/**
 * Binds positional parameters with the module's exports: values are written into one
 * reusable scratch area of WASM memory and bound SQLITE_TRANSIENT (SQLite copies them), so a
 * string costs one copy and one call instead of an encode allocation, a malloc and checks.
 * Same types as wa-sqlite's `bind`: an int32 number binds as INTEGER, any other number as
 * REAL, a string as TEXT (UTF-8), a Uint8Array as BLOB, null as NULL; anything else (bigint,
 * arrays) goes through wa-sqlite's own `bind`.
 */
class RawBinder {
  readonly #encoder = new TextEncoder();
  #scratch = 0;
  #capacity = 0;

  constructor(
    private readonly m: SqliteModule,
    private readonly sqlite3: SQLiteAPI,
  ) {}

  /** A scratch area of at least `n` bytes (grown, never shrunk, freed on close). */
  #area(n: number): number {
    if (n > this.#capacity) {
      if (this.#scratch) this.m._sqlite3_free(this.#scratch);
      const size = Math.max(n, 4096, this.#capacity * 2);
      this.#scratch = this.m._sqlite3_malloc(size);
      if (!this.#scratch) throw new StoreError(`out of memory binding ${n} bytes`, SQLite.SQLITE_NOMEM);
      this.#capacity = size;
    }
    return this.#scratch;
  }

  #text(stmt: number, i: number, s: string): number {
    const len = s.length;
    if (len <= ASCII_LOOP_MAX) {
      const p = this.#area(len + 1);
      const heap = this.m.HEAPU8;
      let j = 0;
      for (; j < len; j++) {
        const c = s.charCodeAt(j);
        if (c > 0x7f) break;
        heap[p + j] = c;
      }
      if (j === len) return this.m._sqlite3_bind_text(stmt, i, p, len, SQLITE_TRANSIENT);
    }
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const p = this.#area(len * 3 + 1);
    const { written } = this.#encoder.encodeInto(s, this.m.HEAPU8.subarray(p, p + len * 3));
    return this.m._sqlite3_bind_text(stmt, i, p, written, SQLITE_TRANSIENT);
  }

  #blob(stmt: number, i: number, b: Uint8Array): number {
    const p = this.#area(b.byteLength + 1);
    this.m.HEAPU8.set(b, p);
    return this.m._sqlite3_bind_blob(stmt, i, p, b.byteLength, SQLITE_TRANSIENT);
  }

  /** Bind `values[k]` to parameter k + 1 for every parameter the statement has (missing: NULL). */
  bind(stmt: number, values: readonly SqlValue[]): void {
    const n = this.m._sqlite3_bind_parameter_count(stmt);
    for (let i = 1; i <= n; i++) {
      const v = values[i - 1];
      let rc: number;
      if (typeof v === 'string') rc = this.#text(stmt, i, v);
      else if (typeof v === 'number') rc = v === (v | 0) ? this.m._sqlite3_bind_int(stmt, i, v) : this.m._sqlite3_bind_double(stmt, i, v);
      else if (v === null) rc = this.m._sqlite3_bind_null(stmt, i);
      else if (v instanceof Uint8Array) rc = this.#blob(stmt, i, v);
      else if (v === undefined) continue; // as wa-sqlite: the parameter keeps its binding (NULL after a clear)
      else rc = this.sqlite3.bind(stmt, i, v as never);
      if (rc !== SQLite.SQLITE_OK) throw new StoreError(`cannot bind parameter ${i}: ${BIND_ERRORS[rc] ?? `SQLite error ${rc}`}`, rc);
    }
  }

  clear(stmt: number): void {
    this.m._sqlite3_clear_bindings(stmt);
  }

  close(): void {
    if (this.#scratch) this.m._sqlite3_free(this.#scratch);
    this.#scratch = 0;
    this.#capacity = 0;
  }
}

/** High 32 bits of the integers a JS number holds exactly (as sqlite-api.js cvt32x2AsSafe). */
const SAFE_HI_MAX = Math.floor(Number.MAX_SAFE_INTEGER / 0x100000000);
const SAFE_HI_MIN = Math.floor(Number.MIN_SAFE_INTEGER / 0x100000000);

/**
 * Reads result rows with the module's exports: the values wa-sqlite's `row` gives (INTEGER as a
 * number, as a bigint past 2^53; FLOAT; TEXT up to its first NUL, as UTF8ToString decodes it;
 * BLOB copied out of WASM memory; NULL), without its per-call wrappers (ccall's lookups and
 * conversions, a statement check per column), and each statement's column names read once.
 * The keyword leg reads ~100–300 rows of up to 20 columns per search.
 */
class RawReader {
  readonly #names = new Map<number, string[]>();
  readonly #decoder = new TextDecoder();

  constructor(
    private readonly m: SqliteModule,
    private readonly sqlite3: SQLiteAPI,
  ) {}

  /** The statement's column names (kept until `forget`). */
  names(stmt: number): string[] {
    let names = this.#names.get(stmt);
    if (!names) {
      names = [];
      const n = this.m._sqlite3_column_count(stmt);
      for (let i = 0; i < n; i++) names.push(this.m.UTF8ToString(this.m._sqlite3_column_name(stmt, i)));
      this.#names.set(stmt, names);
    }
    return names;
  }

  /** Drop what is kept for a statement about to be finalized. */
  forget(stmt: number): void {
    this.#names.delete(stmt);
  }

  /** The current row of `stmt` as an object keyed by column name (`names`: this.names(stmt)). */
  row(stmt: number, names: readonly string[]): Row {
    const m = this.m;
    const row: Row = {};
    const n = m._sqlite3_data_count(stmt);
    for (let i = 0; i < n; i++) {
      let v: SqlValue | bigint;
      switch (m._sqlite3_column_type(stmt, i)) {
        case SQLite.SQLITE_INTEGER: {
          const lo = m._sqlite3_column_int64(stmt, i);
          const hi = m.getTempRet0();
          v = hi > SAFE_HI_MAX || hi < SAFE_HI_MIN ? this.sqlite3.column_int64(stmt, i) : hi * 0x100000000 + (lo & 0x7fffffff) - (lo & 0x80000000);
          break;
        }
        case SQLite.SQLITE_FLOAT:
          v = m._sqlite3_column_double(stmt, i);
          break;
        case SQLite.SQLITE_TEXT:
          v = this.#text(stmt, i);
          break;
        case SQLite.SQLITE_BLOB: {
          const len = m._sqlite3_column_bytes(stmt, i);
          const p = m._sqlite3_column_blob(stmt, i);
          v = m.HEAPU8.slice(p, p + len);
          break;
        }
        default:
          v = null;
      }
      row[names[i]] = v as SqlValue;
    }
    return row;
  }

  #text(stmt: number, i: number): string {
    const m = this.m;
    const p = m._sqlite3_column_text(stmt, i);
    if (!p) return '';
    const len = m._sqlite3_column_bytes(stmt, i);
    const heap = m.HEAPU8; // after the calls: memory may have grown
    if (len <= ASCII_LOOP_MAX) {
      let s = '';
      let j = 0;
      for (; j < len; j++) {
        const c = heap[p + j];
        if (c === 0 || c > 0x7f) break;
        s += String.fromCharCode(c);
      }
      if (j === len || heap[p + j] === 0) return s;
    }
    const bytes = heap.subarray(p, p + len);
    const nul = bytes.indexOf(0);
    return this.#decoder.decode(nul < 0 ? bytes : bytes.subarray(0, nul));
  }
}

export interface DbOptions {
  /** The VFS's last caught exception (OPFS VFSes keep one); used to detect quota errors. */
  lastVfsError?: () => unknown;
  /** Called after the connection closes (e.g. to delete a memory database). */
  onClose?: () => void | Promise<void>;
  /** Open with SQLITE_OPEN_READONLY (a published pack): never created, never written. */
  readOnly?: boolean;
  /** Fetch ahead the pages holding these rows (a pack read over HTTP: one round trip for many rows). */
  prefetchRows?: (table: string, rowids: readonly number[]) => Promise<void>;
  /**
   * Fetch ahead the doclists of these FTS5 phrases (as written in a MATCH expression) and the
   * index leaves of these lookups (a pack read over HTTP). Statements it needs go through `q`:
   * the Db itself, or inside `Db.read` that read's handle (the Db would wait for the read).
   */
  prefetchTerms?: (terms: readonly string[], lookups: readonly KeyLookup[] | undefined, q: Queryable) => Promise<void>;
}

/** A seek a statement is about to make: `key` (text or integers) in the index (or WITHOUT ROWID table) `index`, by its leading columns. */
export interface KeyLookup {
  index: string;
  key: ReadonlyArray<string | number>;
  /** The index compares text with COLLATE NOCASE. */
  nocase?: boolean;
  /** The table the index belongs to, when the statement then reads the entries' rows from it (fetched too). */
  table?: string;
}

/** Query methods shared by Db and the handle a transaction gets. */
export interface Queryable {
  exec(sql: string): Promise<void>;
  run(sql: string, params?: SqlParams): Promise<{ changes: number; lastInsertId: number }>;
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  get<T = Row>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /**
   * A hint that the next statements read these rows of `table` by rowid: a database read over
   * the network fetches their pages at once. Absent or a no-op for local databases.
   */
  prefetchRows?(table: string, rowids: readonly number[]): Promise<void>;
  /** A hint that the next keyword statements read these phrases' doclists and seek these index keys (see prefetchRows). */
  prefetchTerms?(terms: readonly string[], lookups?: readonly KeyLookup[]): Promise<void>;
}

/**
 * Insert `rows` with `insert` (a one-row `INSERT … VALUES (?, …)`): `per` rows per statement,
 * the rest one by one, so only two statement texts are ever prepared. A statement's overhead
 * through wa-sqlite (bind, step, reset) is ~5 µs in Node and more in the browser, and a cold
 * kernel index writes ~490k chunk and FTS rows.
 */
export async function insertRows(q: Queryable, insert: string, per: number, rows: ReadonlyArray<readonly SqlValue[]>): Promise<void> {
  let i = 0;
  if (rows.length >= per) {
    const values = insert.slice(insert.lastIndexOf('('));
    const many = `${insert}${`, ${values}`.repeat(per - 1)}`;
    for (; i + per <= rows.length; i += per) await q.run(many, flatRows(rows, i, per));
  }
  for (; i < rows.length; i++) await q.run(insert, rows[i]!);
}

/**
 * The values of rows[from] … rows[from + count - 1], one after another. A plain loop:
 * `rows.slice(…).flat()` took ~3 µs a 21-value chunk row in Node 20 (V8's generic flat), ~30×
 * this, and a kernel index writes ~270k chunk rows and as many FTS rows on the store's thread.
 */
function flatRows(rows: ReadonlyArray<readonly SqlValue[]>, from: number, count: number): SqlValue[] {
  const out: SqlValue[] = [];
  for (let r = from; r < from + count; r++) {
    const row = rows[r]!;
    for (let j = 0; j < row.length; j++) out.push(row[j] as SqlValue);
  }
  return out;
}

const SQLITE_FULL = 13;
const SQLITE_IOERR = 10;

function isQuotaError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'name' in e && (e as { name: unknown }).name === 'QuotaExceededError';
}

/** The connection itself, unlocked. Db serialises access to it. */
class Connection implements Queryable {
  readonly #cache = new Map<string, number>();
  readonly #binder: RawBinder;
  readonly #reader: RawReader;
  #closed = false;

  constructor(
    readonly sqlite3: SQLiteAPI,
    readonly module: SqliteModule,
    readonly handle: number,
    private readonly options: DbOptions,
  ) {
    this.#binder = new RawBinder(module, sqlite3);
    this.#reader = new RawReader(module, sqlite3);
  }

  wrapError(e: unknown): StoreError {
    if (e instanceof StoreError) return e;
    const code = typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'number'
      ? (e as { code: number }).code
      : SQLite.SQLITE_ERROR;
    const message = e instanceof Error ? e.message : String(e);
    const vfsError = this.options.lastVfsError?.();
    if ((code & 0xff) === SQLITE_FULL || ((code & 0xff) === SQLITE_IOERR && isQuotaError(vfsError)) || isQuotaError(e)) {
      return new StorageFullError(message, code, { cause: vfsError ?? e });
    }
    // A VFS that knows why a read failed (a pack over HTTP: PackReadError) says it in its words.
    if ((code & 0xff) === SQLITE_IOERR && vfsError instanceof Error && typeof (vfsError as { kind?: unknown }).kind === 'string') {
      return new StoreError(vfsError.message, code, { cause: vfsError });
    }
    return new StoreError(message, code, { cause: e });
  }

  async exec(sql: string): Promise<void> {
    this.#assertOpen();
    try {
      await this.sqlite3.exec(this.handle, sql);
    } catch (e) {
      throw this.wrapError(e);
    }
  }

  async #prepare(sql: string): Promise<number> {
    const cached = this.#cache.get(sql);
    if (cached !== undefined) {
      this.#cache.delete(sql); // re-insert: most recently used last
      this.#cache.set(sql, cached);
      return cached;
    }
    const it = this.sqlite3.statements(this.handle, sql, { unscoped: true })[Symbol.asyncIterator]();
    let stmt: number | undefined;
    try {
      const first = await it.next();
      if (!first.done) stmt = first.value;
    } finally {
      await it.return?.();
    }
    if (stmt === undefined) throw new StoreError(`empty statement: ${sql.slice(0, 80)}`, SQLite.SQLITE_MISUSE);
    this.#cache.set(sql, stmt);
    if (this.#cache.size > STATEMENT_CACHE_SIZE) {
      const [oldSql, oldStmt] = this.#cache.entries().next().value as [string, number];
      this.#cache.delete(oldSql);
      this.#reader.forget(oldStmt);
      await this.sqlite3.finalize(oldStmt);
    }
    return stmt;
  }

  /** Run one statement; collect rows when `collect` is set. */
  async #step(sql: string, params: SqlParams | undefined, collect: boolean, max = Infinity): Promise<Row[]> {
    this.#assertOpen();
    const rows: Row[] = [];
    let stmt = 0;
    try {
      stmt = await this.#prepare(sql);
      if (Array.isArray(params)) this.#binder.bind(stmt, params as readonly SqlValue[]);
      else if (params !== undefined) this.sqlite3.bind_collection(stmt, params as never);
      let columns: string[] | null = null;
      // The first step through wa-sqlite (it takes the locks, where a VFS may ask for a retry),
      // the next ones straight through the module while no VFS operation is queued.
      for (let rc = await this.sqlite3.step(stmt); rc === SQLite.SQLITE_ROW; rc = this.#next(stmt) ?? await this.#nextQueued(stmt)) {
        if (!collect) continue;
        columns ??= this.#reader.names(stmt);
        rows.push(this.#reader.row(stmt, columns));
        if (rows.length >= max) break;
      }
      return rows;
    } catch (e) {
      throw this.wrapError(e);
    } finally {
      if (stmt) {
        await this.sqlite3.reset(stmt).catch(() => undefined);
        this.#binder.clear(stmt);
      }
    }
  }

  /**
   * sqlite3_step after a statement's first step, straight through the module's export: what
   * wa-sqlite's `step` does (sqlite-api.js `retry`, then its check), without its wrappers or a
   * promise per row. null: a VFS operation is queued (#nextQueued waits for it).
   */
  #next(stmt: number): number | null {
    const m = this.module;
    if (m.retryOps.length || m.pendingOps.length) return null;
    const rc = m._sqlite3_step(stmt);
    // A VFS queued operations: #nextQueued waits for them as `retry` does.
    if (m.retryOps.length || m.pendingOps.length) {
      this.#queuedRc = rc;
      return null;
    }
    return this.#checked(rc);
  }

  /** The step's result `rc`, or wa-sqlite's error for it. */
  #checked(rc: number): number {
    if (rc === SQLite.SQLITE_ROW || rc === SQLite.SQLITE_DONE) return rc;
    throw new SQLite.SQLiteError(this.module.UTF8ToString(this.module._sqlite3_errmsg(this.handle)), rc);
  }

  /** The result of a step #next made that queued VFS operations; null: none made. */
  #queuedRc: number | null = null;

  /** #next's step when a VFS operation was queued: before it (wa-sqlite's own step), or after (retry's rules). */
  async #nextQueued(stmt: number): Promise<number> {
    const rc = this.#queuedRc;
    this.#queuedRc = null;
    if (rc === null) return this.sqlite3.step(stmt);
    return this.#checked(await this.#afterOps(stmt, rc));
  }

  /** sqlite-api.js `retry` from its first call's result `rc` on. */
  async #afterOps(stmt: number, rc: number): Promise<number> {
    const m = this.module;
    for (let attempt = 0; ; attempt++) {
      if (rc === SQLite.SQLITE_OK || m.retryOps.length === 0) {
        if (m.pendingOps.length) {
          try {
            await Promise.all(m.pendingOps);
          } catch (e) {
            return (e as { code?: number }).code || SQLite.SQLITE_ERROR;
          } finally {
            m.pendingOps = [];
          }
        }
        return rc;
      }
      if (attempt === 1) return rc;
      try {
        await Promise.all(m.retryOps);
      } finally {
        m.retryOps = [];
      }
      rc = m._sqlite3_step(stmt);
    }
  }

  async run(sql: string, params?: SqlParams): Promise<{ changes: number; lastInsertId: number }> {
    await this.#step(sql, params, false);
    return { changes: this.sqlite3.changes(this.handle), lastInsertId: this.sqlite3.last_insert_id(this.handle) };
  }

  async all<T = Row>(sql: string, params?: SqlParams): Promise<T[]> {
    return (await this.#step(sql, params, true)) as T[];
  }

  async get<T = Row>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.#step(sql, params, true, 1))[0] as T | undefined;
  }

  get inTransaction(): boolean {
    return this.sqlite3.get_autocommit(this.handle) === 0;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stmt of this.#cache.values()) await this.sqlite3.finalize(stmt);
    this.#cache.clear();
    this.#binder.close();
    try {
      await this.sqlite3.close(this.handle);
    } catch (e) {
      throw this.wrapError(e);
    } finally {
      await this.options.onClose?.();
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreError('database is closed', SQLite.SQLITE_MISUSE);
  }
}

/** The open in progress on each API (openOneAtATime). */
const opening = new WeakMap<SQLiteAPI, Promise<unknown>>();

/**
 * wa-sqlite's open_v2 writes the new connection's handle into ONE scratch word of its module
 * (sqlite-api.js `tmpPtr`) and reads it back after an await: two opens at once on one module
 * both read the second one's handle, so two Db objects shared one connection and the second's
 * BEGIN failed ("cannot start a transaction within a transaction": two new indexes opened at
 * once by `sift mcp a b`). Opens on one API therefore run one at a time.
 */
function openOneAtATime(sqlite3: SQLiteAPI, open: () => Promise<number>): Promise<number> {
  const turn = (opening.get(sqlite3) ?? Promise.resolve()).then(open, open);
  opening.set(sqlite3, turn.catch(() => undefined));
  return turn;
}

export class Db implements Queryable {
  readonly #conn: Connection;
  /** Set only for a database read over the network (Queryable.prefetchRows). */
  readonly prefetchRows?: (table: string, rowids: readonly number[]) => Promise<void>;
  readonly prefetchTerms?: (terms: readonly string[], lookups?: readonly KeyLookup[]) => Promise<void>;
  #queue: Promise<unknown> = Promise.resolve();
  /** DbOptions.prefetchTerms, for a read's handle (Db.read). */
  readonly #prefetchTermsOn?: DbOptions['prefetchTerms'];

  /** Wrap an already-open connection (`sqlite3.open_v2` result) of `module` (the API's module). */
  constructor(sqlite3: SQLiteAPI, module: SqliteModule, handle: number, options: DbOptions = {}) {
    this.#conn = new Connection(sqlite3, module, handle, options);
    const prefetch = options.prefetchRows;
    if (prefetch) this.prefetchRows = (table, rowids) => (rowids.length ? prefetch(table, rowids) : Promise.resolve());
    const terms = options.prefetchTerms;
    if (terms) {
      this.prefetchTerms = (t, lookups) => terms(t, lookups, this);
      this.#prefetchTermsOn = terms;
    }
  }

  /**
   * Open `filename` on a registered VFS (by name) and wrap it; `sqlite3` is the API made from `module`.
   * Opens on one API run one at a time (openOneAtATime).
   */
  static async open(sqlite3: SQLiteAPI, module: SqliteModule, filename: string, vfsName?: string, options: DbOptions = {}): Promise<Db> {
    let handle: number;
    try {
      const flags = options.readOnly ? SQLite.SQLITE_OPEN_READONLY : SQLite.SQLITE_OPEN_CREATE | SQLite.SQLITE_OPEN_READWRITE;
      handle = await openOneAtATime(sqlite3, () => sqlite3.open_v2(filename, flags, vfsName));
    } catch (e) {
      const code = typeof (e as { code?: unknown })?.code === 'number' ? (e as { code: number }).code : SQLite.SQLITE_CANTOPEN;
      throw new StoreError(`cannot open database ${filename}: ${e instanceof Error ? e.message : String(e)}`, code, { cause: e });
    }
    return new Db(sqlite3, module, handle, options);
  }

  get sqlite3(): SQLiteAPI {
    return this.#conn.sqlite3;
  }

  get handle(): number {
    return this.#conn.handle;
  }

  #locked<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(fn);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  exec(sql: string): Promise<void> {
    return this.#locked(() => this.#conn.exec(sql));
  }

  run(sql: string, params?: SqlParams): Promise<{ changes: number; lastInsertId: number }> {
    return this.#locked(() => this.#conn.run(sql, params));
  }

  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.#locked(() => this.#conn.all<T>(sql, params));
  }

  get<T = Row>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.#locked(() => this.#conn.get<T>(sql, params));
  }

  /**
   * BEGIN IMMEDIATE … COMMIT around `fn`; ROLLBACK when it throws (the error is rethrown).
   * Use the `tx` handle inside `fn` — calling the Db itself there would wait forever.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#locked(async () => {
      const conn = this.#conn;
      await conn.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(conn);
        await conn.exec('COMMIT');
        return result;
      } catch (e) {
        if (conn.inTransaction) {
          try {
            await conn.exec('ROLLBACK');
          } catch {
            // SQLite may already have rolled back (e.g. after SQLITE_FULL); keep the first error.
          }
        }
        throw e;
      }
    });
  }

  /**
   * BEGIN (deferred) … COMMIT around `fn`, for a run of reads that belong together (one
   * search): SQLite then takes its SHARED lock and checks the file's change counter once for
   * all of them instead of once per statement. Through the Node VFS that check is a lock file
   * made and removed plus a page read: ~0.3–1.4 ms a statement against ~6 µs inside a
   * transaction (`SELECT max(id) FROM chunks`, medium corpus). The reads see one snapshot.
   * Use the `tx` handle inside `fn` (it keeps this Db's prefetch hints); calling the Db itself
   * there would wait forever. Writes belong in `transaction`.
   */
  read<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#locked(async () => {
      const conn = this.#conn;
      const terms = this.#prefetchTermsOn;
      const tx: Queryable = {
        exec: (sql: string) => conn.exec(sql),
        run: (sql: string, params?: SqlParams) => conn.run(sql, params),
        all: <R = Row>(sql: string, params?: SqlParams) => conn.all<R>(sql, params),
        get: <R = Row>(sql: string, params?: SqlParams) => conn.get<R>(sql, params),
        ...(this.prefetchRows ? { prefetchRows: this.prefetchRows } : {}),
        ...(terms ? { prefetchTerms: (t: readonly string[], lookups?: readonly KeyLookup[]) => terms(t, lookups, tx) } : {}),
      };
      if (conn.inTransaction) return fn(tx);
      await conn.exec('BEGIN');
      try {
        return await fn(tx);
      } finally {
        // A read transaction holds no change: ending it either way only releases the lock.
        if (conn.inTransaction) await conn.exec('COMMIT').catch(() => conn.exec('ROLLBACK').catch(() => undefined));
      }
    });
  }

  /**
   * Register a deterministic scalar SQL function implemented in JS. A throwing `fn` yields
   * NULL (SQL must not see JS exceptions).
   */
  createFunction(name: string, nArg: number, fn: (...args: SqlValue[]) => SqlValue): void {
    const sqlite3 = this.#conn.sqlite3;
    // wa-sqlite keeps one callback per function NAME for the whole module: registering a name
    // on a second connection deletes the first one's callback, whose next call then fails
    // ("reading 'xFunc' of undefined": two codebases in one process, `sift mcp a b`). Nothing
    // is deleted while this registers, so every connection keeps its own.
    const m = this.#conn.module as unknown as { deleteCallback?: (key: number) => void };
    const keep = m.deleteCallback;
    m.deleteCallback = () => undefined;
    try {
      this.#register(sqlite3, name, nArg, fn);
    } finally {
      m.deleteCallback = keep;
    }
  }

  #register(sqlite3: SQLiteAPI, name: string, nArg: number, fn: (...args: SqlValue[]) => SqlValue): void {
    sqlite3.create_function(this.#conn.handle, name, nArg, SQLite.SQLITE_UTF8 | SQLite.SQLITE_DETERMINISTIC, 0, (ctx, values) => {
      let result: SqlValue = null;
      try {
        result = fn(...Array.from(values, (p) => sqlite3.value(p) as SqlValue));
      } catch {
        result = null;
      }
      sqlite3.result(ctx, result as SQLiteCompatibleType);
    });
  }

  close(): Promise<void> {
    return this.#locked(() => this.#conn.close());
  }
}
