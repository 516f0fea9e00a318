/**
 * Where a command's output goes: `out` (results: stdout) and `err` (notes, progress, errors:
 * stderr). A one-shot `sift` writes to its own process's streams (processIo); the warm server
 * (serve.ts) runs the same command with an Io that sends each write to the client that asked,
 * which writes it to its streams — so a command never touches process.stdout/stderr or
 * process.exitCode itself, and its output is the same bytes either way.
 */
import type { WarmIndexes } from './warm-indexes.ts';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /**
   * A passing progress line (`sift index`), shown only on a terminal and replaced by the next;
   * '' clears it. Never part of the output: a pipe or a file gets none.
   */
  progress(line: string): void;
}

/** A progress line as a terminal shows it: back to the line's start, erase it, write. */
export function progressBytes(line: string): string {
  return `\r\x1b[K${line}`;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  progress: (line) => {
    if (process.stderr.isTTY) process.stderr.write(progressBytes(line));
  },
};

/** What one run of a command gets besides its arguments. */
export interface Invocation {
  io: CliIo;
  /** Indexes kept open between commands (the warm server); null in a one-shot process. */
  warm: WarmIndexes | null;
  /**
   * `index`/`rebuild`: bin/sift counted at most 1,000 entries in the folder (its isSmallFolder;
   * the server serves only such an index). A new small index is built whole and renamed into
   * place (main.ts rebuild); a bigger one is built in place, so a killed first run resumes.
   */
  smallFolder?: boolean;
}

/** main.ts `run`: a command line in, its exit code out (passed to the server so it need not import main). */
export type RunCommand = (argv: string[], inv: Invocation) => Promise<number>;

/**
 * Thrown by a command the warm server runs when it would hold the server's queue (an index
 * whose writer lock another process holds): `run` passes it on, and the server answers "run it
 * yourself", so the client waits in its own process, as without a server.
 */
export class RunInClient extends Error {}
