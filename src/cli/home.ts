/**
 * Sift's home folder: $SIFT_HOME, else ~/.sift. Indexes live under indexes/, models under
 * models/, the warm server's socket under run/. Node built-ins only: the warm server's client
 * (serve-client.ts) needs it before any of the CLI's bundle is loaded.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function siftHome(): string {
  return process.env.SIFT_HOME ? resolve(process.env.SIFT_HOME) : join(homedir(), '.sift');
}
