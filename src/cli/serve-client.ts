/**
 * The warm server's client: bin/sift runs it before it loads the CLI's bundle (its own entry,
 * dist-cli/client.mjs; Node built-ins only, so it adds a few ms to Node's start). For a served
 * command (serve-protocol.ts SERVED_COMMANDS) it asks the server of this Sift home to run the
 * command and writes back what the server's run wrote, byte for byte, then exits with its code.
 *
 * Invariant: nothing is written before the server's "done" frame. Any other outcome — no server,
 * a refusal (another version, a command it does not serve), a lost connection, a timeout — leaves
 * the streams untouched, and bin/sift runs the command in-process exactly as without a server.
 *
 * SIFT_SERVER=0: never use or start a server. SIFT_SERVER=use: use a running one, never start one.
 * SIFT_SERVER=1: also start one under CI.
 * Otherwise a command that found none starts one after its own answer is written (detached,
 * stdio ignored, so no caller waits for it), except under CI (the CI variable: a build
 * machine's jobs should not leave a process behind). The test suite sets SIFT_SERVER=0.
 */
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { bundleVersion, forwardedEnv, FRAME, FrameReader, isServedCommand, runDirState, socketPath, type ServeRequest, type ServeStatus } from './serve-protocol.ts';
import { progressBytes } from './io.ts';
import { trace } from './trace.ts';

export { trace };

/** Longest wait for the server to read the request and say it will run it. */
const ACCEPT_TIMEOUT_MS = 1000;
/**
 * Longest wait for an accepted search's answer; past it the search runs in-process. An accepted
 * `index` has none: it holds the index's writer lock, so a second run here would only wait for
 * it; the client waits for its answer or for the connection to close (the server gone).
 */
const ANSWER_TIMEOUT_MS = 120_000;

type Answer =
  | { kind: 'done'; code: number; ms: number; writes: Array<{ fd: 1 | 2; bytes: Buffer }> }
  | { kind: 'fallback'; why: string; restart: boolean }
  | { kind: 'status'; status: ServeStatus }
  | { kind: 'none'; why: string }
  | { kind: 'failed'; why: string };

/** One request, one answer; resolves (never rejects) when the answer is complete or cannot come. */
export function ask(sock: string, req: ServeRequest, o: { onConnect?: () => void; onProgress?: (line: string) => void } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const writes: Array<{ fd: 1 | 2; bytes: Buffer }> = [];
    const reader = new FrameReader();
    let settled = false;
    let timer: ReturnType<typeof setTimeout>;
    const finish = (a: Answer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(a);
    };
    const socket = createConnection(sock);
    timer = setTimeout(() => finish({ kind: 'failed', why: 'the server did not accept the command in time' }), ACCEPT_TIMEOUT_MS);
    socket.on('connect', () => {
      o.onConnect?.();
      socket.write(JSON.stringify(req) + '\n');
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      // No socket file, or one nobody listens on (a server that died): there is no server.
      if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED') finish({ kind: 'none', why: e.code });
      else finish({ kind: 'failed', why: e.message });
    });
    socket.on('close', () => finish({ kind: 'failed', why: 'the server closed the connection before the answer' }));
    socket.on('data', (chunk: Buffer) => {
      for (const f of reader.push(chunk)) {
        if (f.kind === FRAME.accepted) {
          clearTimeout(timer);
          if (req.argv[0] !== 'index') timer = setTimeout(() => finish({ kind: 'failed', why: 'no answer in time' }), ANSWER_TIMEOUT_MS);
        } else if (f.kind === FRAME.progress) {
          o.onProgress?.(f.payload.toString('utf8'));
        } else if (f.kind === FRAME.out || f.kind === FRAME.err) {
          writes.push({ fd: f.kind === FRAME.out ? 1 : 2, bytes: Buffer.from(f.payload) });
        } else if (f.kind === FRAME.exit) {
          const { code, ms } = JSON.parse(f.payload.toString('utf8')) as { code: number; ms: number };
          finish({ kind: 'done', code, ms, writes });
        } else if (f.kind === FRAME.fallback) {
          const { why, restart } = JSON.parse(f.payload.toString('utf8')) as { why: string; restart: boolean };
          finish({ kind: 'fallback', why, restart });
        } else if (f.kind === FRAME.status) {
          finish({ kind: 'status', status: JSON.parse(f.payload.toString('utf8')) as ServeStatus });
        } else {
          finish({ kind: 'failed', why: `unknown frame ${f.kind}` });
        }
      }
    });
  });
}

export function request(op: ServeRequest['op'], version: string, argv: string[]): ServeRequest {
  return {
    op, version, argv, cwd: process.cwd(), env: forwardedEnv(),
    tty: { stdout: !!process.stdout.isTTY, stderr: !!process.stderr.isTTY, columns: process.stdout.columns ?? null },
  };
}

/** What bin/sift does next: exit with `code` (the server ran it), or run in-process and maybe start a server. */
export type ServerOutcome = { code: number } | { code: null; startServer: boolean; why: string };

/**
 * Run `argv` (without node and the script) through this home's server when there is one and the
 * command is served. With SIFT_TRACE=1 prints the client's phases (node started, connected,
 * answered with the server's own ms).
 */
export async function runThroughServer(argv: string[], started: { ms: number; cpu: NodeJS.CpuUsage }, o: { smallFolder?: boolean } = {}): Promise<ServerOutcome> {
  if (process.env.SIFT_SERVER === '0') return { code: null, startServer: false, why: 'SIFT_SERVER=0' };
  // Served: one-shot searches and small indexes; a debug run prints its stack from the process itself.
  if (!isServedCommand(argv, !!o.smallFolder) || process.env.SIFT_DEBUG) return { code: null, startServer: false, why: 'not served' };
  const version = bundleVersion();
  const sock = socketPath();
  if (!version || !sock) return { code: null, startServer: false, why: version ? 'socket path too long' : 'not the bundle' };
  // No server yet (start one), or a socket folder others may enter (never used).
  const dir = runDirState();
  if (dir !== 'private') return { code: null, startServer: dir === 'missing', why: `socket folder ${dir}` };
  let connected: { ms: number; cpu: NodeJS.CpuUsage } | undefined;
  // Progress lines come only when this stderr is a terminal (the request says so); the command clears its last.
  let showing = false;
  const a = await ask(sock, request('run', version, argv), {
    onConnect: () => (connected = { ms: performance.now(), cpu: process.cpuUsage() }),
    onProgress: (line) => {
      showing = line !== '';
      process.stderr.write(progressBytes(line));
    },
  });
  if (showing && a.kind !== 'done') process.stderr.write(progressBytes(''));
  if (a.kind === 'done') {
    // Printed only when served: otherwise the in-process run prints its own phases from the start.
    trace('node started', started);
    if (connected) trace('server connected', connected);
    trace(`server answered (its run: ${a.ms.toFixed(1)} ms)`);
    for (const w of a.writes) (w.fd === 1 ? process.stdout : process.stderr).write(w.bytes);
    return { code: a.code };
  }
  const startServer = a.kind === 'none' || (a.kind === 'fallback' && a.restart);
  return { code: null, startServer, why: a.kind === 'fallback' || a.kind === 'none' || a.kind === 'failed' ? a.why : a.kind };
}

/** `sift serve --status` / `--stop`: the running server's status (it stops after `stop`), or null when none answers. */
export async function askServer(op: 'status' | 'stop'): Promise<ServeStatus | null> {
  const sock = socketPath();
  if (!sock || runDirState() !== 'private') return null;
  const a = await ask(sock, request(op, bundleVersion() ?? '', []));
  return a.kind === 'status' ? a.status : null;
}

/** Whether a command that found no server may start one (see the header). */
export function mayStartServer(): boolean {
  const s = process.env.SIFT_SERVER;
  if (s === '0' || s === 'use') return false;
  return s === '1' || !process.env.CI;
}

/**
 * Start `sift serve` for this home, detached: its stdio ignored and the child unreferenced, so
 * neither this process's exit nor a caller reading its output waits for it. It warms up with
 * `argv` (opens that index, runs that search, output discarded). A second server started at the
 * same moment finds the first listening and exits (serve.ts).
 */
export async function startServer(argv: string[]): Promise<void> {
  const bin = fileURLToPath(new URL('../bin/sift', import.meta.url));
  try {
    const { spawn } = await import('node:child_process'); // here: ~7 ms of every client's start otherwise
    const child = spawn(process.execPath, [bin, 'serve'], {
      detached: true, stdio: 'ignore', cwd: process.cwd(),
      env: { ...process.env, SIFT_SERVER_WARMUP: JSON.stringify(argv) },
    });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No server this time: the next command tries again.
  }
}
