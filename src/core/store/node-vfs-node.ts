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
 * - Locking is IN-PROCESS ONLY: connections of this process to the same path follow SQLite's
 *   SHARED/RESERVED/PENDING/EXCLUSIVE rules; other processes are NOT excluded. Sift's CLI is
 *   the only writer of its index; do not point two processes at one database.
 * - I/O errors become SQLite codes; ENOSPC/EDQUOT become SQLITE_FULL.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FacadeVFS } from '@journeyapps/wa-sqlite/src/FacadeVFS.js';
import * as VFS from '@journeyapps/wa-sqlite/src/VFS.js';

/** Longest absolute path SQLite may hand us (the FacadeVFS default of 64 is too short). */
export const NODE_VFS_MAX_PATHNAME = 1024;

const LOCK_NONE = 0;
const LOCK_SHARED = 1;
const LOCK_RESERVED = 2;
const LOCK_PENDING = 3;

interface OpenFile {
  path: string;
  fd: number;
  flags: number;
  lock: number;
}

function errorCode(e: unknown, fallback: number): number {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' ? VFS.SQLITE_FULL : fallback;
}

export class NodeFsVFS extends FacadeVFS {
  readonly #files = new Map<number, OpenFile>();
  /** path → (fileId → lock level) for the in-process lock table. */
  readonly #locks = new Map<string, Map<number, number>>();
  lastError: unknown = null;

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
      const fd = fs.openSync(file, mode, 0o644);
      this.#files.set(fileId, { path: file, fd, flags, lock: LOCK_NONE });
      pOutFlags.setInt32(0, flags, true);
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
    this.#setLock(file, fileId, LOCK_NONE);
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
    const others = [...(this.#locks.get(file.path) ?? new Map<number, number>()).entries()]
      .filter(([id]) => id !== fileId)
      .map(([, level]) => level);
    const maxOther = others.length ? Math.max(...others) : LOCK_NONE;
    if (lockType === LOCK_SHARED) {
      if (maxOther >= LOCK_PENDING) return VFS.SQLITE_BUSY;
    } else if (lockType === LOCK_RESERVED) {
      if (maxOther >= LOCK_RESERVED) return VFS.SQLITE_BUSY;
    } else {
      // PENDING/EXCLUSIVE: no other connection may hold any lock. Take PENDING meanwhile so
      // no new reader starts while we wait.
      if (maxOther >= LOCK_RESERVED) return VFS.SQLITE_BUSY;
      if (maxOther >= LOCK_SHARED) {
        this.#setLock(file, fileId, LOCK_PENDING);
        return VFS.SQLITE_BUSY;
      }
    }
    this.#setLock(file, fileId, lockType);
    return VFS.SQLITE_OK;
  }

  override jUnlock(fileId: number, lockType: number): number {
    const file = this.#files.get(fileId);
    if (file && file.lock > lockType) this.#setLock(file, fileId, lockType);
    return VFS.SQLITE_OK;
  }

  override jCheckReservedLock(fileId: number, pResOut: DataView): number {
    const file = this.#files.get(fileId);
    const levels = file ? [...(this.#locks.get(file.path)?.values() ?? [])] : [];
    pResOut.setInt32(0, levels.some((l) => l >= LOCK_RESERVED) ? 1 : 0, true);
    return VFS.SQLITE_OK;
  }

  #setLock(file: OpenFile, fileId: number, level: number): void {
    file.lock = level;
    let table = this.#locks.get(file.path);
    if (!table) {
      table = new Map();
      this.#locks.set(file.path, table);
    }
    if (level === LOCK_NONE) table.delete(fileId);
    else table.set(fileId, level);
    if (table.size === 0) this.#locks.delete(file.path);
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

