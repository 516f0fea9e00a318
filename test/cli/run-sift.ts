/** Runs the real `bin/sift` in a child process, with its home in a test folder and no network. */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
const SIFT = join(ROOT, 'bin/sift');

export interface SiftRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runSift(args: string[], opts: { home: string; input?: string }): SiftRun {
  const r = spawnSync(process.execPath, [SIFT, ...args], {
    encoding: 'utf8',
    input: opts.input,
    env: { ...process.env, SIFT_HOME: opts.home, SIFT_OFFLINE: '1' },
    timeout: 120_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
