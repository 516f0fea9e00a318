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
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** What one run of a command gets besides its arguments. */
export interface Invocation {
  io: CliIo;
  /** Indexes kept open between commands (the warm server); null in a one-shot process. */
  warm: WarmIndexes | null;
}

/** main.ts `run`: a command line in, its exit code out (passed to the server so it need not import main). */
export type RunCommand = (argv: string[], inv: Invocation) => Promise<number>;
