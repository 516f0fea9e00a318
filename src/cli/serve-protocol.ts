/**
 * The warm server's rules and wire format, shared by its client (serve-client.ts, which bin/sift
 * loads before the CLI's bundle) and the server (serve.ts). Node built-ins only.
 *
 * One server per Sift home, on a Unix socket at $SIFT_HOME/run/server.sock: the folder is made
 * 0700 and must belong to this user, the socket is 0600, nothing listens on TCP. One connection
 * per command. The client sends one JSON line (ServeRequest); the server answers in frames of
 * [kind: 1 byte][length: uint32 big-endian][payload]:
 *   A  accepted: the server read the request and will run it (payload empty)
 *   O  bytes the command wrote to stdout;  E  bytes it wrote to stderr (in the order written)
 *   P  a progress line (`index` on a terminal): the client shows it at once; never output
 *   X  done: JSON { code, ms } (the exit code; the server's ms for the command)
 *   F  not run, run it yourself: JSON { why, restart } (e.g. another version: the server exits)
 *   S  JSON status (op "status" and "stop")
 * The client writes nothing until X, so after any failure before it (no server, a refusal, a
 * lost connection, a timeout) it runs the command in-process as if there were no server.
 */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { siftHome } from './home.ts';

/**
 * Commands a client sends to the server: a one-shot search (ranked, and grep as `search --mode
 * exact|regex`; not `--stdin`), and `index` of a small folder (bin/sift's isSmallFolder: at most
 * 1,000 entries, the rule that also picks Liftoff-only code), whose fixed costs (Node, the bundle, SQLite's and the grammars'
 * WebAssembly) outweigh its work. A bigger index runs in its own process: it shows its progress
 * as it goes and does not hold the server's queue for minutes.
 */
export const SERVED_COMMANDS: readonly string[] = ['search', 'index'];

/** Whether `argv` is served; `smallFolder`: the index command's folder is small (bin/sift counts). */
export function isServedCommand(argv: readonly string[], smallFolder: boolean): boolean {
  if (argv.includes('--stdin')) return false;
  if (argv[0] === 'search') return true;
  return argv[0] === 'index' && smallFolder;
}

/**
 * Longest socket path used: sun_path holds 108 bytes on Linux, 104 on macOS (with the NUL). A
 * longer Sift home gets no server (every command runs in-process), never a socket elsewhere.
 */
const SOCKET_PATH_MAX = 100;

/** The folder of the socket. */
export function runDir(): string {
  return join(siftHome(), 'run');
}

export function socketPath(): string | null {
  const p = join(runDir(), 'server.sock');
  return Buffer.byteLength(p) <= SOCKET_PATH_MAX ? p : null;
}

/**
 * Environment variables that change what a command does or prints: every SIFT_* (home, offline,
 * busy timeout, …), the colour switches, HOME (the default home) and the model caches. The client
 * sends exactly these; the server sets exactly these for the command (and unsets the others).
 * SIFT_SERVER* configure the server itself, read once when it starts.
 */
const FORWARDED_ENV = /^(SIFT_.*|NO_COLOR|FORCE_COLOR|HOME|HF_.*|TRANSFORMERS_.*)$/;

export function isForwardedEnv(name: string): boolean {
  return FORWARDED_ENV.test(name) && !name.startsWith('SIFT_SERVER');
}

export function forwardedEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && isForwardedEnv(k)) out[k] = v;
  return out;
}

/** dist-cli/inputs.json: written by scripts/build-cli.mjs beside every chunk of the bundle, this one's included. */
const INPUTS = new URL('./inputs.json', import.meta.url);

/**
 * The running CLI's identity: its bundle's inputs list (that file: a new one each build) and
 * Node's version; null when not running from the bundle (sources through tsx), which never uses
 * or runs a server. One stat: a client does not check the sources itself (bin/sift's
 * bundleIsFresh, ~4 ms of 93 stats); the server checks them for it (bundleSourcesChanged).
 */
export function bundleVersion(): string | null {
  try {
    const s = statSync(INPUTS, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs} node ${process.version}`;
  } catch {
    return null;
  }
}

/**
 * The bundle's sources, as bin/sift's bundleIsFresh checks them: a source whose size or mtime is
 * not what the bundle was built from means the bundle is stale (bin/sift then runs the sources).
 */
export function bundleInputs(): Array<{ path: string; size: number; mtimeMs: number }> {
  try {
    return (JSON.parse(readFileSync(INPUTS, 'utf8')) as { inputs: Array<{ path: string; size: number; mtimeMs: number }> }).inputs;
  } catch {
    return [];
  }
}

/** True when a source of `inputs` changed since the build (or cannot be read). */
export function bundleSourcesChanged(inputs: ReadonlyArray<{ path: string; size: number; mtimeMs: number }>): boolean {
  const root = new URL('../', INPUTS);
  for (const f of inputs) {
    try {
      const s = statSync(new URL(f.path, root));
      if (s.size !== f.size || s.mtimeMs !== f.mtimeMs) return true;
    } catch {
      return true;
    }
  }
  return inputs.length === 0;
}

/**
 * The socket's folder: `private` when it is a folder (not a link) of this user that no one else
 * may enter (0700 or tighter), `missing`, or `unsafe`. The server listens and the client connects
 * only when it is private, so another user can neither reach this user's server nor answer this
 * user's commands with a socket of their own (a SIFT_HOME under a shared folder such as /tmp).
 */
export function runDirState(): 'private' | 'missing' | 'unsafe' {
  try {
    const s = lstatSync(runDir());
    return s.isDirectory() && s.uid === process.getuid?.() && (s.mode & 0o077) === 0 ? 'private' : 'unsafe';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unsafe';
  }
}

export interface ServeRequest {
  op: 'run' | 'status' | 'stop';
  version: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The client's streams: only `index`'s progress lines depend on them (sent when stderr is a terminal). */
  tty: { stdout: boolean; stderr: boolean; columns: number | null };
}

export interface ServeStatus {
  pid: number;
  version: string;
  socket: string;
  startedAt: string;
  commands: number;
  idleExitS: number;
  indexes: { open: number; opened: number; reused: number };
}

/** P: a passing progress line (CliIo.progress), shown at once on the client's terminal; not output. */
export const FRAME = { accepted: 0x41, out: 0x4f, err: 0x45, progress: 0x50, exit: 0x58, fallback: 0x46, status: 0x53 } as const;

export function frame(kind: number, payload: string | Uint8Array = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const head = Buffer.allocUnsafe(5);
  head[0] = kind;
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Splits a byte stream into frames. */
export class FrameReader {
  #buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Array<{ kind: number; payload: Buffer }> {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    const out: Array<{ kind: number; payload: Buffer }> = [];
    while (this.#buf.length >= 5) {
      const len = this.#buf.readUInt32BE(1);
      if (this.#buf.length < 5 + len) break;
      out.push({ kind: this.#buf[0], payload: this.#buf.subarray(5, 5 + len) });
      this.#buf = this.#buf.subarray(5 + len);
    }
    return out;
  }
}
