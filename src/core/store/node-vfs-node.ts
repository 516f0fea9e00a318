/**
 * NodeFsVFS: a synchronous, fs-backed SQLite VFS for wa-sqlite in Node (the package ships
 * none). Built on FacadeVFS like wa-sqlite's MemoryVFS; every method maps to one fs.*Sync
 * call, so it works with the SYNC wasm build.
 *
 * Invariants and limits:
 * - Files are real files: the main database, its `-journal` (rollback journal), and temp
 *   files (unnamed, created in os.tmpdir(), deleted on close). A database written here opens
 *   in /usr/bin/sqlite3 and vice versa.
 * - xSync is fsync, so a committed transaction survives a crash (journal_mode DELETE/TRUNCATE
 *   rolls back a torn one on the next open).
 * - Locking works ACROSS PROCESSES (lock-node.ts): SQLite's SHARED/RESERVED/PENDING/EXCLUSIVE
 *   levels are symlink entries next to the database (`<db>.lk-shared-<pid>-<token>` per reader,
 *   `<db>.lk-reserved`, `<db>.lk-pending`). Readers always see the last committed state; a
 *   writer's commit waits for running readers (PENDING keeps new ones out). A SIGKILLed holder's
 *   entries are stale at once (its pid is gone) and are cleared by whoever meets them, so hot-
 *   journal rollback stays correct. A lock that is taken returns SQLITE_BUSY at once; SQLite's
 *   busy handler (sqlite3_busy_timeout = `busyTimeoutMs`) sleeps in xSleep and retries.
 *   Other SQLite programs (sqlite3, fcntl locks) do not see these locks.
 * - I/O errors become SQLite codes; ENOSPC/EDQUOT become SQLITE_FULL.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { liveOwner, liveSharedOwners, lockNames, newToken, removeEntry, sleepSync, tryCreate } from './lock-node.ts';
import { FacadeVFS } from '@journeyapps/wa-sqlite/src/FacadeVFS.js';
import * as VFS from '@journeyapps/wa-sqlite/src/VFS.js';

/** Longest absolute path SQLite may hand us (the FacadeVFS default of 64 is too short). */
export const NODE_VFS_MAX_PATHNAME = 1024;

const LOCK_NONE = 0;
const LOCK_SHARED = 1;
const LOCK_RESERVED = 2;
const LOCK_PENDING = 3;
const LOCK_EXCLUSIVE = 4;

/** Default longest wait for a lock (a writer's commit, readers draining) before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 30_000;


interface OpenFile {
  path: string;
  fd: number;
  flags: number;
  lock: number;
  /** Names this connection in its lock entries. */
  token: string;
  /** This connection's reader entry while it holds SHARED or more. */
  sharedEntry: string | null;
  /** Holds the RESERVED entry (a normal write; hot-journal rollback skips it). */
  reserved: boolean;
}

function errorCode(e: unknown, fallback: number): number {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' ? VFS.SQLITE_FULL : fallback;
}

export class NodeFsVFS extends FacadeVFS {
  readonly #files = new Map<number, OpenFile>();
  /** Databases whose hot journal a connection of this VFS rolled back (until taken). */
  readonly #recovered = new Set<string>();
  lastError: unknown = null;
  /** The process that held the lock this VFS last answered SQLITE_BUSY for. */
  lastBusyPid: number | null = null;
  busyTimeoutMs = BUSY_TIMEOUT_MS;

  static async create(name: string, module: object): Promise<NodeFsVFS> {
    const vfs = new NodeFsVFS(name, module);
    await vfs.isReady();
    return vfs;
  }

  constructor(name: string, module: object) {
    super(name, module);
    this.mxPathname = NODE_VFS_MAX_PATHNAME;
  }

  override close(): void {
    for (const id of [...this.#files.keys()]) this.jClose(id);
  }

  override jFullPathname(filename: string, zOut: Uint8Array): number {
    return super.jFullPathname(path.resolve(filename), zOut);
  }

  override jOpen(filename: string | null, fileId: number, flags: number, pOutFlags: DataView): number {
    try {
      const file = filename ? path.resolve(filename) : path.join(os.tmpdir(), `sift-tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
      const readWrite = (flags & VFS.SQLITE_OPEN_READWRITE) !== 0;
      let mode = readWrite ? fs.constants.O_RDWR : fs.constants.O_RDONLY;
      if (flags & VFS.SQLITE_OPEN_CREATE) mode |= fs.constants.O_CREAT;
      if (flags & VFS.SQLITE_OPEN_EXCLUSIVE) mode |= fs.constants.O_EXCL;
      let fd: number;
      let outFlags = flags;
      try {
        fd = fs.openSync(file, mode, 0o644);
      } catch (e) {
        // Like SQLite's unix VFS: a file this process may only read opens read-only.
        const code = (e as NodeJS.ErrnoException).code;
        if (!readWrite || !(code === 'EACCES' || code === 'EROFS' || code === 'EPERM') || !fs.existsSync(file)) throw e;
        fd = fs.openSync(file, fs.constants.O_RDONLY);
        outFlags = (flags & ~(VFS.SQLITE_OPEN_READWRITE | VFS.SQLITE_OPEN_CREATE)) | VFS.SQLITE_OPEN_READONLY;
      }
      this.#files.set(fileId, { path: file, fd, flags: outFlags, lock: LOCK_NONE, token: newToken(), sharedEntry: null, reserved: false });
      pOutFlags.setInt32(0, outFlags, true);
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return VFS.SQLITE_CANTOPEN;
    }
  }

  override jDelete(filename: string, syncDir: number): number {
    try {
      fs.unlinkSync(path.resolve(filename));
      if (syncDir) this.#syncDir(path.dirname(path.resolve(filename)));
      return VFS.SQLITE_OK;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return VFS.SQLITE_IOERR_DELETE_NOENT;
      this.lastError = e;
      return VFS.SQLITE_IOERR_DELETE;
    }
  }

  override jAccess(filename: string, _flags: number, pResOut: DataView): number {
    try {
      pResOut.setInt32(0, fs.existsSync(path.resolve(filename)) ? 1 : 0, true);
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return VFS.SQLITE_IOERR_ACCESS;
    }
  }

  override jClose(fileId: number): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_OK;
    this.#files.delete(fileId);
    try {
      if (file.lock > LOCK_NONE) this.#release(file, LOCK_NONE);
    } catch {
      // Entries left behind are stale once this process exits.
    }
    try {
      fs.closeSync(file.fd);
      if (file.flags & VFS.SQLITE_OPEN_DELETEONCLOSE) fs.rmSync(file.path, { force: true });
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return VFS.SQLITE_IOERR_CLOSE;
    }
  }

  override jRead(fileId: number, pData: Uint8Array, iOffset: number): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_IOERR_READ;
    try {
      // pData is a proxy over WASM memory; subarray() yields a real Uint8Array view.
      const buf = pData.subarray();
      let done = 0;
      while (done < buf.byteLength) {
        const n = fs.readSync(file.fd, buf, done, buf.byteLength - done, iOffset + done);
        if (n === 0) break;
        done += n;
      }
      if (done < buf.byteLength) {
        buf.fill(0, done);
        return VFS.SQLITE_IOERR_SHORT_READ;
      }
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return VFS.SQLITE_IOERR_READ;
    }
  }

  override jWrite(fileId: number, pData: Uint8Array, iOffset: number): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_IOERR_WRITE;
    try {
      const buf = pData.subarray();
      let done = 0;
      while (done < buf.byteLength) {
        done += fs.writeSync(file.fd, buf, done, buf.byteLength - done, iOffset + done);
      }
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return errorCode(e, VFS.SQLITE_IOERR_WRITE);
    }
  }

  override jTruncate(fileId: number, size: number): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_IOERR_TRUNCATE;
    try {
      fs.ftruncateSync(file.fd, size);
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return errorCode(e, VFS.SQLITE_IOERR_TRUNCATE);
    }
  }

  override jSync(fileId: number, _flags: number): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_IOERR_FSYNC;
    try {
      fs.fsyncSync(file.fd);
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return errorCode(e, VFS.SQLITE_IOERR_FSYNC);
    }
  }

  override jFileSize(fileId: number, pSize64: DataView): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_IOERR_FSTAT;
    try {
      pSize64.setBigInt64(0, BigInt(fs.fstatSync(file.fd).size), true);
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return VFS.SQLITE_IOERR_FSTAT;
    }
  }

  override jLock(fileId: number, lockType: number): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_IOERR_LOCK;
    if (file.lock >= lockType) return VFS.SQLITE_OK;
    try {
      if (lockType === LOCK_SHARED) return this.#lockShared(file);
      if (lockType === LOCK_RESERVED) return this.#lockReserved(file);
      return this.#lockExclusive(file);
    } catch (e) {
      this.lastError = e;
      return errorCode(e, VFS.SQLITE_IOERR_LOCK);
    }
  }

  override jUnlock(fileId: number, lockType: number): number {
    const file = this.#files.get(fileId);
    if (!file || file.lock <= lockType) return VFS.SQLITE_OK;
    try {
      this.#release(file, lockType);
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return VFS.SQLITE_IOERR_UNLOCK;
    }
  }

  override jCheckReservedLock(fileId: number, pResOut: DataView): number {
    const file = this.#files.get(fileId);
    if (!file) return VFS.SQLITE_IOERR_CHECKRESERVEDLOCK;
    try {
      const names = lockNames(file.path);
      const held = file.lock >= LOCK_RESERVED || liveOwner(names.reserved) !== null || liveOwner(names.pending) !== null;
      pResOut.setInt32(0, held ? 1 : 0, true);
      return VFS.SQLITE_OK;
    } catch (e) {
      this.lastError = e;
      return VFS.SQLITE_IOERR_CHECKRESERVEDLOCK;
    }
  }

  /** SQLite's busy handler sleeps through here (FacadeVFS has no xSleep). */
  xSleep(_pVfs: number, microseconds: number): number {
    sleepSync(Math.ceil(microseconds / 1000));
    return microseconds;
  }

  /** True once after a connection of this VFS rolled back a hot journal of `file`. */
  takeHotJournalRecovery(file: string): boolean {
    return this.#recovered.delete(path.resolve(file));
  }

  /**
   * SHARED: announce this reader with its own entry, then back off while a writer holds
   * PENDING/EXCLUSIVE. Entry first, check second: a writer creates PENDING first and lists
   * readers second, so one of the two always sees the other. Never waits here: SQLite's busy
   * handler (busy_timeout, sleeping in xSleep) retries, so the total wait is the timeout.
   */
  #lockShared(file: OpenFile): number {
    const names = lockNames(file.path);
    let entry: string | null = path.join(names.dir, `${names.sharedPrefix}${process.pid}-${file.token}`);
    try {
      tryCreate(entry, file.token);
    } catch (e) {
      // A folder this process may not write (a read-only or another user's index): read
      // without announcing — nothing here can write it either, and failing every read is worse.
      if (!['EACCES', 'EPERM', 'EROFS'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
      entry = null;
    }
    const writer = liveOwner(names.pending);
    if (writer) {
      if (entry) removeEntry(entry);
      return this.#busy(writer.pid);
    }
    file.sharedEntry = entry;
    file.lock = LOCK_SHARED;
    return VFS.SQLITE_OK;
  }

  /** RESERVED: one writer. Never waits here (it holds SHARED; see SQLite's busy handler). */
  #lockReserved(file: OpenFile): number {
    const names = lockNames(file.path);
    for (let i = 0; i < 3; i++) {
      if (tryCreate(names.reserved, file.token)) {
        file.lock = LOCK_RESERVED;
        file.reserved = true;
        return VFS.SQLITE_OK;
      }
      const writer = liveOwner(names.reserved);
      if (writer) return this.#busy(writer.pid);
    }
    return VFS.SQLITE_BUSY;
  }

  /**
   * EXCLUSIVE: take PENDING (no new readers), then wait for the other readers to finish. A
   * second PENDING claimant gets BUSY at once — it holds SHARED, which the first one waits for.
   * (SQLite itself releases SHARED before it waits for a lock it could deadlock on.)
   */
  #lockExclusive(file: OpenFile): number {
    const names = lockNames(file.path);
    if (file.lock < LOCK_PENDING) {
      let got = false;
      for (let i = 0; i < 3 && !got; i++) {
        got = tryCreate(names.pending, file.token);
        const other = got ? null : liveOwner(names.pending);
        if (other) return this.#busy(other.pid);
      }
      if (!got) return VFS.SQLITE_BUSY;
      file.lock = LOCK_PENDING;
    }
    // Running readers finish on their own; PENDING keeps new ones out meanwhile. BUSY keeps
    // PENDING, and SQLite's busy handler retries.
    const readers = liveSharedOwners(file.path, file.token);
    if (readers.length > 0) return this.#busy(readers[0].pid);
    // SQLite goes SHARED → EXCLUSIVE without RESERVED only to roll back a hot journal.
    if (!file.reserved) this.#recovered.add(file.path);
    file.lock = LOCK_EXCLUSIVE;
    return VFS.SQLITE_OK;
  }

  /** SQLITE_BUSY, remembering who held the lock (failure messages name the process). */
  #busy(pid: number): number {
    this.lastBusyPid = pid;
    return VFS.SQLITE_BUSY;
  }

  #release(file: OpenFile, to: number): void {
    const names = lockNames(file.path);
    if (to < LOCK_PENDING && file.lock >= LOCK_PENDING) removeEntry(names.pending);
    if (to < LOCK_RESERVED && (file.lock >= LOCK_RESERVED && file.reserved)) removeEntry(names.reserved);
    if (to < LOCK_SHARED && file.sharedEntry) {
      removeEntry(file.sharedEntry);
      file.sharedEntry = null;
    }
    file.lock = to;
    if (to < LOCK_RESERVED) file.reserved = false;
  }

  #syncDir(dir: string): void {
    let fd: number | null = null;
    try {
      fd = fs.openSync(dir, 'r');
      fs.fsyncSync(fd);
    } catch {
      // Directory fsync is best effort (not supported everywhere).
    } finally {
      if (fd !== null) fs.closeSync(fd);
    }
  }
}

