/**
 * Cross-process locks for Node, built only from operations the kernel makes atomic: creating a
 * symlink fails with EEXIST when the name exists, and unlink/readlink see one state. Node 20 has
 * no fcntl/flock, so NodeFsVFS implements SQLite's SHARED/RESERVED/PENDING/EXCLUSIVE levels with
 * these entries next to the database, and `sift index` holds a session lock with them.
 *
 * Why symlinks: the owner ("pid:start-time:token") is the link's target, stored in the inode, so
 * taking a lock needs no data block — locks work on a full disk (a 0-byte-free disk made every
 * write-based lock file fail with ENOSPC).
 *
 * Invariants:
 * - An entry's owner is alive when its pid exists and (where /proc tells) that pid's start time
 *   is the recorded one: a SIGKILLed holder never blocks anyone for longer than one poll.
 * - A stale exclusive entry is removed only by the one process that wins its guard entry
 *   (`<entry>.stale-<token>`), and only if it still names the dead owner, so two cleaners can
 *   never delete a lock a live process has just taken.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SiftError } from './errors.ts';

/** Microsecond-free blocking sleep (the VFS is synchronous). */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(SLEEPER, 0, 0, ms);
}

function procStart(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime) counted after the ")" that closes the command name.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

const SELF_START = procStart(process.pid);

export interface LockOwner {
  pid: number;
  start: string;
  token: string;
}

export function newToken(): string {
  return randomBytes(6).toString('hex');
}

export function ownerTarget(token: string): string {
  return `${process.pid}:${SELF_START}:${token}`;
}

export function parseOwner(target: string): LockOwner | null {
  const [pid, start, token] = target.split(':');
  const n = Number(pid);
  return Number.isInteger(n) && n > 0 && token ? { pid: n, start: start ?? '', token } : null;
}

/** Is the process that wrote this entry still running? Unparseable entries count as dead. */
export function ownerAlive(o: LockOwner | null): boolean {
  if (!o) return false;
  if (o.pid === process.pid) return o.start === SELF_START || !o.start || !SELF_START;
  try {
    process.kill(o.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (o.start) {
    const now = procStart(o.pid);
    if (now && now !== o.start) return false; // the pid was reused by another process
  }
  return true;
}

export function readOwner(entry: string): { target: string; owner: LockOwner | null } | null {
  // The common case (no writer) without an exception: a thrown ENOENT cost ~0.2 ms per read lock.
  if (!fs.lstatSync(entry, { throwIfNoEntry: false })) return null;
  try {
    const target = fs.readlinkSync(entry);
    return { target, owner: parseOwner(target) };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'EINVAL') return { target: '', owner: null }; // not a symlink: not ours, treat as dead
    throw e;
  }
}

/** Create `entry` naming this process (and `token`); false when it exists. */
export function tryCreate(entry: string, token: string): boolean {
  try {
    fs.symlinkSync(ownerTarget(token), entry);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

export function removeEntry(entry: string): void {
  try {
    fs.unlinkSync(entry);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * Remove `entry` if its owner is dead. Returns true when the entry is gone (it was stale, or
 * had already been released), false while a live process holds it.
 */
export function clearIfStale(entry: string, depth = 0): boolean {
  const cur = readOwner(entry);
  if (!cur) return true;
  if (ownerAlive(cur.owner)) return false;
  const guard = `${entry}.stale-${cur.owner?.token ?? 'x'}`;
  const mine = newToken();
  if (!tryCreate(guard, mine)) {
    // Another process is clearing it; if that cleaner died too, clear its guard.
    if (depth < 4) clearIfStale(guard, depth + 1);
    return false;
  }
  try {
    const again = readOwner(entry);
    if (again && again.target === cur.target) removeEntry(entry);
  } finally {
    removeEntry(guard);
  }
  return true;
}

/** Live owner of an exclusive entry after clearing a stale one; null when free. */
export function liveOwner(entry: string): LockOwner | null {
  for (let i = 0; i < 3; i++) {
    const cur = readOwner(entry);
    if (!cur) return null;
    if (ownerAlive(cur.owner)) return cur.owner;
    clearIfStale(entry);
  }
  return readOwner(entry)?.owner ?? null;
}

/** Names of the lock entries of database `db`: all sit in its folder, prefixed by its name. */
export function lockNames(db: string): { dir: string; base: string; reserved: string; pending: string; session: string; sharedPrefix: string } {
  const dir = path.dirname(db);
  const base = path.basename(db);
  return {
    dir,
    base,
    reserved: path.join(dir, `${base}.lk-reserved`),
    pending: path.join(dir, `${base}.lk-pending`),
    session: path.join(dir, `${base}.lk-writer`),
    sharedPrefix: `${base}.lk-shared-`,
  };
}

/** Shared entries of `db` held by live processes other than `exceptToken`'s; stale ones are removed. */
export function liveSharedOwners(db: string, exceptToken: string | null): LockOwner[] {
  const { dir, sharedPrefix } = lockNames(db);
  const out: LockOwner[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (!name.startsWith(sharedPrefix) || name.includes('.stale-')) continue;
    const entry = path.join(dir, name);
    const cur = readOwner(entry);
    if (!cur) continue;
    if (cur.owner?.token === exceptToken) continue;
    if (ownerAlive(cur.owner)) out.push(cur.owner as LockOwner);
    else removeEntry(entry); // a shared entry's name is unique to its owner: nobody re-creates it
  }
  return out;
}

export interface SessionLock {
  release(): void;
}

/**
 * The writer session lock of `db` (`sift index`/`rebuild`): one writer at a time for a whole
 * run. Waits up to `timeoutMs` (polling), calling `onWait(pid)` once when it has to wait; throws
 * `busy(pid)` when the holder does not finish in time.
 */
export async function acquireSessionLock(
  db: string,
  o: { timeoutMs: number; pollMs?: number; onWait?: (pid: number) => void; busy: (pid: number, waitedMs: number) => Error },
): Promise<SessionLock> {
  const { session } = lockNames(db);
  const token = newToken();
  const t0 = Date.now();
  let told = false;
  for (;;) {
    if (tryCreate(session, token)) break;
    const owner = liveOwner(session);
    if (!owner) continue;
    if (Date.now() - t0 >= o.timeoutMs) throw o.busy(owner.pid, Date.now() - t0);
    if (!told) {
      told = true;
      o.onWait?.(owner.pid);
    }
    await new Promise((r) => setTimeout(r, o.pollMs ?? 100));
  }
  const onExit = (): void => {
    const cur = readOwner(session);
    if (cur?.owner?.token === token) removeEntry(session);
  };
  process.once('exit', onExit);
  return {
    release: () => {
      process.off('exit', onExit);
      onExit();
    },
  };
}

/**
 * Run `fn` (e.g. renaming a rebuilt database over `db`) while no reader of `db` is inside a
 * query: PENDING keeps new readers out, then running ones are waited for (at most `timeoutMs`).
 */
export function swapUnderLock(db: string, fn: () => void, timeoutMs = 30_000): void {
  const { pending } = lockNames(db);
  const token = newToken();
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; !tryCreate(pending, token); attempt++) {
    const owner = liveOwner(pending);
    if (owner && Date.now() >= deadline) throw new SiftError('busy', `pid ${owner.pid} kept ${db} locked for ${timeoutMs / 1000}s`);
    sleepSync(Math.min(25, 2 ** attempt));
  }
  try {
    for (let attempt = 0; ; attempt++) {
      const readers = liveSharedOwners(db, null);
      if (readers.length === 0) break;
      if (Date.now() >= deadline) throw new SiftError('busy', `a reader (pid ${readers[0].pid}) kept ${db} busy for ${timeoutMs / 1000}s`);
      sleepSync(Math.min(25, 2 ** attempt));
    }
    fn();
  } finally {
    const cur = readOwner(pending);
    if (cur?.owner?.token === token) removeEntry(pending);
  }
}
