/**
 * `sift serve`: the warm server. One per Sift home, on the Unix socket of serve-protocol.ts; it
 * runs served commands (one-shot `sift search`, exact and regex included) for clients
 * (serve-client.ts) with the same `run` a one-shot process runs, writing through an Io that sends
 * each write back to the client. What it keeps between commands is what a one-shot process pays
 * for every time: Node's start, the bundle's modules, WebAssembly compiled (SQLite), and opened
 * indexes (warm-indexes.ts: reopened whenever their files change).
 *
 * Invariants:
 * - Commands run one at a time, in arrival order: a command sees the client's working folder
 *   and forwarded environment (process-wide state) for its whole run, and nothing else runs then.
 * - Binding the socket is the lock: a second server finds the first answering and exits; a socket
 *   nobody answers on (a server that died) is removed and bound again.
 * - A command's failure is its exit code and stderr, as in-process; the server goes on. A client
 *   of another version makes it stop accepting (a new one can bind) and exit when idle.
 * - It exits after SIFT_SERVER_IDLE_S seconds without a command (default 600), and when its
 *   socket file is no longer its own (removed, or bound by another server).
 * - Only the user reaches it: the socket's folder is 0700 and must be the user's; the socket is 0600.
 */
import { chmodSync, lstatSync, mkdirSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { CliError } from './context.ts';
import type { CliIo, RunCommand } from './io.ts';
import { bundleInputs, bundleSourcesChanged, bundleVersion, forwardedEnv, FRAME, frame, isForwardedEnv, runDir, runDirState, isServedCommand, socketPath, type ServeRequest, type ServeStatus } from './serve-protocol.ts';
import { WarmIndexes } from './warm-indexes.ts';
import { nodeRuntime, useEnvBusyTimeout } from '../core/store/open-node.ts';

/** Seconds without a command before the server exits (SIFT_SERVER_IDLE_S overrides). */
const DEFAULT_IDLE_EXIT_S = 600;
/** How often the server checks that the socket file is still its own. */
const SOCKET_CHECK_MS = 5_000;
/** Longest wait, once stopping, for the commands queued before: then it exits anyway. */
const STOP_GRACE_MS = 30_000;
/** Longest wait for a connection's request line. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Longest request line accepted (argv, cwd, environment). */
const MAX_REQUEST_BYTES = 1 << 20;

function idleExitS(): number {
  const n = Number(process.env.SIFT_SERVER_IDLE_S);
  return process.env.SIFT_SERVER_IDLE_S && Number.isFinite(n) && n > 0 ? n : DEFAULT_IDLE_EXIT_S;
}

/** True when something answers on `sock` (a live server). */
function answers(sock: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(sock);
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

function listen(server: Server, sock: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const onError = (e: NodeJS.ErrnoException): void => resolve(e);
    server.once('error', onError);
    server.listen(sock, () => {
      server.off('error', onError);
      resolve(null);
    });
  });
}

/** The socket file's inode, or null when it is missing or not a socket. */
function socketIno(sock: string): bigint | null {
  try {
    const s = lstatSync(sock, { bigint: true });
    return s.isSocket() ? s.ino : null;
  } catch {
    return null;
  }
}

/** Make the socket's folder 0700 and check that it is this user's alone (serve-protocol.ts runDirState). */
function prepareRunDir(): void {
  const dir = runDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const s = lstatSync(dir);
  if (s.isDirectory() && s.uid === process.getuid?.()) chmodSync(dir, 0o700);
  if (runDirState() !== 'private') throw new CliError(`${dir} is not a folder of this user's alone; the server will not listen there`, 1);
}

/**
 * Serve until idle, stopped, or replaced. Returns the exit code: 0 also when another server
 * already listens (nothing to do). `run` is main.ts's (passed in: serve.ts does not import main).
 */
export async function runServe(run: RunCommand, io: CliIo): Promise<number> {
  const version = bundleVersion();
  const inputs = bundleInputs();
  if (!version) throw new CliError('sift serve runs from the bundled CLI only (`npm run build:cli`)', 2);
  const sock = socketPath();
  if (!sock) throw new CliError(`the path of the server's socket under ${runDir()} is too long for a Unix socket; set SIFT_HOME to a shorter folder`, 2);
  prepareRunDir();

  const warm = new WarmIndexes();
  const startedAt = new Date().toISOString();
  const idleMs = idleExitS() * 1000;
  let commands = 0;
  let queue: Promise<void> = Promise.resolve();
  let pending = 0;
  let stopping = false;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));

  const status = (): ServeStatus => ({ pid: process.pid, version, socket: sock, startedAt, commands, idleExitS: idleMs / 1000, indexes: warm.stats });

  const server = createServer({ allowHalfOpen: true }, (socket) => accept(socket));
  let bound = await listen(server, sock);
  if (bound?.code === 'EADDRINUSE') {
    if (await answers(sock)) {
      io.err(`sift: a server already listens on ${sock}\n`);
      return 0;
    }
    // Left by a server that died: remove it (only a socket) and bind again.
    if (socketIno(sock) !== null) unlinkSync(sock);
    bound = await listen(server, sock);
  }
  if (bound) {
    if (bound.code === 'EADDRINUSE') return 0; // another server bound it in between
    throw bound;
  }
  chmodSync(sock, 0o600);
  const ino = socketIno(sock);

  // ---- stopping ----
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const armIdle = (): void => {
    clearTimeout(idleTimer);
    if (!stopping) idleTimer = setTimeout(() => stop(), idleMs);
  };
  /** Stop accepting; exit when the commands queued so far are done. `ours`: the socket file is still this server's. */
  const stop = (ours = socketIno(sock) === ino): void => {
    if (stopping) return;
    stopping = true;
    clearTimeout(idleTimer);
    clearInterval(checkTimer);
    // Closing unlinks the socket file: only when it is still ours (never another server's).
    if (ours) server.close();
    // A command that never finishes (a fault outside its promise) does not keep the process.
    setTimeout(() => done(), STOP_GRACE_MS);
    void queue.then(async () => {
      await warm.closeAll();
      done();
    });
  };
  const checkTimer = setInterval(() => {
    if (socketIno(sock) !== ino) stop(false);
  }, SOCKET_CHECK_MS);
  checkTimer.unref();

  // ---- one command ----
  const execute = async (req: ServeRequest, socket: Socket | null): Promise<void> => {
    if (socket && (socket.destroyed || !socket.writable)) return; // the client gave up waiting
    const send = (kind: number, payload?: string): void => {
      if (socket && !socket.destroyed) socket.write(frame(kind, payload));
    };
    try {
      process.chdir(req.cwd);
    } catch (e) {
      send(FRAME.fallback, JSON.stringify({ why: `working folder: ${(e as Error).message}`, restart: false }));
      socket?.end();
      return;
    }
    // The client's environment, as far as it changes what a command does.
    for (const k of Object.keys(process.env)) if (isForwardedEnv(k) && !(k in req.env)) delete process.env[k];
    Object.assign(process.env, req.env);
    const t0 = performance.now();
    try {
      await useEnvBusyTimeout();
      const code = await run(req.argv, {
        io: {
          out: (t) => send(FRAME.out, t),
          err: (t) => send(FRAME.err, t),
          progress: (line) => {
            if (req.tty?.stderr) send(FRAME.progress, line);
          },
        },
        warm,
        // Only a small folder's index is served (the client counted it: isServedCommand).
        smallFolder: req.argv[0] === 'index',
      });
      send(FRAME.exit, JSON.stringify({ code, ms: performance.now() - t0 }));
    } catch (e) {
      // `run` answers every failure of a command itself; this is the server's own: run it yourself.
      send(FRAME.fallback, JSON.stringify({ why: `server: ${(e as Error).message}`, restart: false }));
    } finally {
      socket?.end();
      commands++;
      try {
        process.chdir('/'); // hold no folder between commands
      } catch {
        // stays where it was
      }
    }
  };

  const enqueue = (req: ServeRequest, socket: Socket | null): void => {
    pending++;
    queue = queue.then(() => execute(req, socket)).catch(() => undefined).then(() => {
      pending--;
      if (pending === 0) armIdle();
    });
  };

  // ---- one connection ----
  function accept(socket: Socket): void {
    socket.on('error', () => undefined); // a client that went away
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
    let line = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      line = Buffer.concat([line, chunk]);
      const nl = line.indexOf(0x0a);
      if (nl < 0) {
        if (line.length > MAX_REQUEST_BYTES) socket.destroy();
        return;
      }
      socket.off('data', onData);
      socket.setTimeout(0);
      let req: ServeRequest;
      try {
        req = JSON.parse(line.subarray(0, nl).toString('utf8')) as ServeRequest;
      } catch {
        socket.destroy();
        return;
      }
      answer(req, socket);
    };
    socket.on('data', onData);
  }

  function answer(req: ServeRequest, socket: Socket): void {
    const refuse = (why: string, restart: boolean): void => void socket.end(frame(FRAME.fallback, JSON.stringify({ why, restart })));
    if (req.op === 'status' || req.op === 'stop') {
      socket.end(frame(FRAME.status, JSON.stringify(status())));
      if (req.op === 'stop') stop();
      return;
    }
    if (req.version !== version) {
      // The CLI was rebuilt or updated: its client starts a server of its own version.
      refuse('another version', true);
      stop();
      return;
    }
    if (bundleSourcesChanged(inputs)) {
      // Edited since the build: bin/sift runs the sources now, and starts no server.
      refuse('the sources changed since the bundle was built', false);
      stop();
      return;
    }
    if (stopping) return refuse('stopping', false);
    // The client judged the folder of an `index` small (serve-protocol.ts isServedCommand).
    if (!isServedCommand(req.argv, true)) return refuse('not served', false);
    socket.write(frame(FRAME.accepted));
    clearTimeout(idleTimer);
    enqueue(req, socket);
  }

  // A fault outside any command's promise (a stray callback): finish what is queued, then exit;
  // the next client starts a fresh server. A stray rejection is left alone.
  process.on('uncaughtException', () => stop());
  process.on('unhandledRejection', () => undefined);

  // ---- warm up: WebAssembly compiled, and the command that started the server run once ----
  // The grep command's chunk now: a rebuild replaces the bundle's files under a running server.
  void nodeRuntime().catch(() => undefined);
  void import('./cmd-grep.ts').catch(() => undefined);
  void import('../core/search/grep.ts').then((g) => g.loadRegexEngine()).catch(() => undefined);
  void import('./cmd-index.ts').catch(() => undefined);
  const warmup = process.env.SIFT_SERVER_WARMUP;
  delete process.env.SIFT_SERVER_WARMUP;
  let warmArgv: unknown = null;
  try {
    warmArgv = warmup ? JSON.parse(warmup) : null;
  } catch {
    // no warm-up
  }
  if (Array.isArray(warmArgv) && warmArgv.every((a) => typeof a === 'string') && warmArgv[0] === 'search' && isServedCommand(warmArgv as string[], false)) {
    // A search that started the server runs again (its index opened, its output discarded); an
    // index is not run twice: the compiles above are its warm-up.
    enqueue({ op: 'run', version, argv: warmArgv as string[], cwd: process.cwd(), env: forwardedEnv(), tty: { stdout: false, stderr: false, columns: null } }, null);
  } else {
    process.chdir('/');
    armIdle();
  }

  await finished;
  return 0;
}
