/**
 * One classification of Sift's failures, shared by the CLI, the workers and the app's notices:
 * `classify(e)` maps any thrown value to an ErrorKind, and each kind has one piece of advice.
 *
 * Invariants:
 * - Only `corrupt` (SQLite said the file is damaged, or an integrity check failed) ever
 *   suggests rebuilding. A full disk, a busy index, a lost permission or an I/O error keep
 *   the index and say so; a newer schema says to update Sift.
 * - Classification reads `name`, `code`, `errno` and `kind` (and the cause chain), never
 *   `instanceof` alone, so errors that crossed a worker (name/code kept) classify the same.
 */

export const ERROR_KIND = {
  noIndex: 'no-index',
  corrupt: 'corrupt',
  newerSchema: 'newer-schema',
  storageFull: 'storage-full',
  permissionLost: 'permission-lost',
  modelMissing: 'model-missing',
  cancelled: 'cancelled',
  busy: 'busy',
  invalidQuery: 'invalid-query',
  /** The folder or a file is gone (moved, deleted). */
  notFound: 'not-found',
  io: 'io',
  unknown: 'unknown',
} as const;

export type ErrorKind = (typeof ERROR_KIND)[keyof typeof ERROR_KIND];

/** CLI exit status per kind (README "Exit codes"). 2 is also usage; 1 is anything else. */
export const EXIT_CODE: Readonly<Record<ErrorKind, number>> = {
  'no-index': 3,
  corrupt: 4,
  busy: 5,
  'storage-full': 6,
  'newer-schema': 1,
  'permission-lost': 1,
  'model-missing': 1,
  'invalid-query': 2,
  'not-found': 1,
  io: 1,
  unknown: 1,
  cancelled: 130,
};

/** An error that already knows its kind. `name` is 'SiftError' and `kind` travels with it. */
export class SiftError extends Error {
  readonly kind: ErrorKind;
  readonly code: number | undefined;
  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown; code?: number }) {
    super(message, options);
    this.name = 'SiftError';
    this.kind = kind;
    this.code = options?.code;
  }
}

export interface Classified {
  kind: ErrorKind;
  /** The underlying message, one line. */
  message: string;
  /** Bytes a storage-full failure was trying to write, when known. */
  neededBytes?: number;
}

// SQLite primary result codes (extended codes keep them in the low byte).
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
const SQLITE_IOERR = 10;
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_CANTOPEN = 14;
const SQLITE_PERM = 3;
const SQLITE_READONLY = 8;
const SQLITE_NOTADB = 26;

/** Messages SQLite/FTS5 use for a damaged database, whatever code carried them. */
const CORRUPT_MESSAGE = /database disk image is malformed|file is not a database|invalid fts5 file format|fts5: corrupt|malformed database schema|rowid \d+ out of order|database corruption|SQLITE_CORRUPT|SQLITE_NOTADB/i;
const FULL_MESSAGE = /ENOSPC|EDQUOT|no space left|disk quota|storage is full|database or disk is full|QuotaExceeded/i;

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  neededBytes?: unknown;
}

function chain(e: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 6 && typeof cur === 'object' && cur !== null && !out.includes(cur as ErrorLike); i++) {
    out.push(cur as ErrorLike);
    cur = (cur as ErrorLike).cause;
  }
  return out;
}

const KINDS = new Set<string>(Object.values(ERROR_KIND));

export function messageOf(e: unknown): string {
  const m = e instanceof Error ? e.message : typeof e === 'object' && e !== null && typeof (e as ErrorLike).message === 'string' ? String((e as ErrorLike).message) : String(e);
  return m.split('\n')[0];
}

/** The kind of any thrown value. */
export function classify(e: unknown): Classified {
  const message = messageOf(e);
  const links = chain(e);
  const found = (kind: ErrorKind): Classified => {
    const needed = links.map((l) => l.neededBytes).find((n) => typeof n === 'number');
    return { kind, message, ...(typeof needed === 'number' ? { neededBytes: needed } : {}) };
  };
  for (const l of links) if (typeof l.kind === 'string' && KINDS.has(l.kind)) return found(l.kind as ErrorKind);
  const names = links.map((l) => (typeof l.name === 'string' ? l.name : ''));
  const codes = links.map((l) => (typeof l.code === 'number' ? l.code & 0xff : null));
  const errnos = links.map((l) => (typeof l.code === 'string' ? l.code : ''));
  const messages = links.map((l) => (typeof l.message === 'string' ? l.message : '')).concat(message);
  if (names.includes('AbortError')) return found('cancelled');
  // Full storage first: SQLite may report a failed write as IOERR, and a torn write must never read as corruption.
  if (names.includes('StorageFullError') || names.includes('QuotaExceededError') || codes.includes(SQLITE_FULL) || errnos.some((c) => c === 'ENOSPC' || c === 'EDQUOT')) return found('storage-full');
  if (codes.includes(SQLITE_CORRUPT) || codes.includes(SQLITE_NOTADB) || messages.some((m) => CORRUPT_MESSAGE.test(m))) return found('corrupt');
  if (names.includes('NoModificationAllowedError') || codes.includes(SQLITE_BUSY) || codes.includes(SQLITE_LOCKED) || messages.some((m) => /database is locked|database table is locked/i.test(m))) return found('busy');
  if (names.some((n) => n === 'NotAllowedError' || n === 'SecurityError') || errnos.some((c) => c === 'EACCES' || c === 'EPERM' || c === 'EROFS') || codes.includes(SQLITE_PERM) || codes.includes(SQLITE_READONLY)) return found('permission-lost');
  if (messages.some((m) => FULL_MESSAGE.test(m))) return found('storage-full');
  if (names.includes('NotFoundError') || errnos.includes('ENOENT')) return found('not-found');
  if (messages.some((m) => /schema version \d+ is newer than this Sift/i.test(m))) return found('newer-schema');
  if (codes.includes(SQLITE_IOERR) || codes.includes(SQLITE_CANTOPEN) || errnos.some((c) => /^E[A-Z]+$/.test(c))) return found('io');
  return found('unknown');
}

/** "512 B", "2.0 KB", "62 MB", "3.0 GB": one decimal below 10 (binary units). Every message and screen uses it. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/**
 * The fields classify() reads besides name/message, as plain data: a worker adds them to
 * the error it sends (Comlink sends only name, message and stack) so the page classifies
 * the same error the same way.
 */
export function errorFields(e: unknown): { code?: number | string; kind?: string } {
  if (typeof e !== 'object' || e === null) return {};
  const { code, kind } = e as ErrorLike;
  return {
    ...(typeof code === 'number' || typeof code === 'string' ? { code } : {}),
    ...(typeof kind === 'string' ? { kind } : {}),
  };
}
