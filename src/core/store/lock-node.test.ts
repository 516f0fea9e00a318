import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireSessionLock, clearIfStale, liveOwner, liveSharedOwners, lockNames, ownerTarget, tryCreate } from './lock-node.ts';

/** The pid of a process that has exited (its entries are stale). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('lock entries', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sift-lock-'));
  const db = join(dir, 'index.db');
  const names = lockNames(db);

  it('an entry is taken once; its live owner is this process', () => {
    expect(tryCreate(names.reserved, 'a')).toBe(true);
    expect(tryCreate(names.reserved, 'b')).toBe(false);
    expect(liveOwner(names.reserved)).toMatchObject({ pid: process.pid, token: 'a' });
    expect(lstatSync(names.reserved).isSymbolicLink()).toBe(true); // no data block: works on a full disk
  });

  it('a dead owner\'s entries are stale: exclusive ones are cleared through a guard, shared ones directly', () => {
    const pid = deadPid();
    symlinkSync(`${pid}::dead`, names.pending);
    symlinkSync(`${pid}::dead2`, join(dir, `${names.sharedPrefix}${pid}-dead2`));
    expect(liveOwner(names.pending)).toBeNull();
    expect(existsSync(names.pending)).toBe(false);
    expect(existsSync(`${names.pending}.stale-dead`)).toBe(false); // the guard is gone too
    expect(liveSharedOwners(db, null)).toEqual([]);
    expect(existsSync(join(dir, `${names.sharedPrefix}${pid}-dead2`))).toBe(false);
  });

  it('never clears an entry a live process holds, and a cleaner that died leaves a guard that is cleared in turn', () => {
    const pid = deadPid();
    symlinkSync(`${pid}::gone`, names.session);
    symlinkSync(`${pid}::cleaner`, `${names.session}.stale-gone`); // a cleaner killed mid-way
    expect(clearIfStale(names.session)).toBe(false); // it cleared the dead cleaner's guard first
    expect(clearIfStale(names.session)).toBe(true);
    expect(existsSync(names.session)).toBe(false);
    symlinkSync(ownerTarget('live'), names.session);
    expect(clearIfStale(names.session)).toBe(false);
    expect(liveOwner(names.session)?.token).toBe('live');
  });

  it('the session lock waits for its holder, then fails with the holder\'s pid', async () => {
    const other = join(dir, 'other.db');
    const held = await acquireSessionLock(other, { timeoutMs: 0, busy: () => new Error('free lock reported busy') });
    const waited: number[] = [];
    const err = await acquireSessionLock(other, { timeoutMs: 150, pollMs: 20, onWait: (p) => waited.push(p), busy: (p) => new Error(`busy ${p}`) }).catch((e: Error) => e);
    expect((err as Error).message).toBe(`busy ${process.pid}`);
    expect(waited).toEqual([process.pid]);
    held.release();
    (await acquireSessionLock(other, { timeoutMs: 0, busy: () => new Error('still held') })).release();
  });
});
