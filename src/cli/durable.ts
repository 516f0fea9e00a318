/**
 * fsync for files the CLI writes whole and then renames into place (a rebuilt or new index, a
 * pack, its manifest): the bytes reach the disk before the rename makes them the file readers see.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';

export function fsyncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The folder's entry list (a rename in it); best effort: not every file system lets a folder be fsynced. */
export function fsyncDir(dir: string): void {
  try {
    fsyncFile(dir);
  } catch {
    // the rename is still atomic
  }
}
