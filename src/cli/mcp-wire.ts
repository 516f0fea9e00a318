/**
 * The Model Context Protocol's stdio wire for `sift mcp`: JSON-RPC 2.0, one message per line on
 * stdin and stdout, and the requests a tools-only server answers — `initialize` (the version
 * negotiated as the SDK's Server does: the client's when supported, else the latest), `ping`,
 * `tools/list` and `tools/call`; any other request is "Method not found" (-32601), a line that
 * is not JSON a parse error (-32700), a message that is not a JSON-RPC request an invalid
 * request (-32600), `tools/call` without a tool name invalid params (-32602). Notifications are
 * read and dropped, except `notifications/cancelled`: a cancelled call gets no answer (the
 * spec's rule; the call itself runs to its end, as a tool call cannot be stopped halfway).
 *
 * Why not the SDK's Server: importing it evaluates its zod schemas of the whole protocol
 * (~126 KB minified with zod) at every start, ~60 ms of the ~1 s an agent waits for its first
 * answer (docs/performance.md). The SDK's client drives this wire in the tests
 * (test/cli/mcp.test.ts), and mcp-wire.test.ts checks the versions against the SDK's.
 */
import type { Readable, Writable } from 'node:stream';

/** Protocol versions this server speaks, newest first (the SDK's SUPPORTED_PROTOCOL_VERSIONS at 1.32). */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

type Id = string | number;

/** A tool call's answer as MCP's `tools/call` result carries it. */
export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface WireServer {
  serverInfo: { name: string; version: string };
  instructions?: string;
  tools(): unknown[];
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** Called once the reply to `initialize` is written: the client's next message is a moment away. */
  initialized?(): void;
}

/** JSON-RPC error codes. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

class WireError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Serves `server` over `input` / `output` until close() or the end of `input` (then after the
 * calls read so far are answered). `closed` resolves when it is done.
 */
export class StdioWire {
  readonly closed: Promise<void>;
  #resolveClosed!: () => void;
  #buffer = '';
  #open = true;
  /** Calls not answered yet, by id; a cancelled one is answered by nobody. */
  readonly #pending = new Map<Id, { cancelled: boolean }>();
  #inFlight: Promise<unknown> = Promise.resolve();

  constructor(private readonly input: Readable, private readonly output: Writable, private readonly server: WireServer) {
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => this.#read(chunk));
    input.once('end', () => this.#drainThenClose());
    input.once('error', () => this.close());
    output.on('error', () => this.close());
  }

  /** Stops reading and answering. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.input.removeAllListeners('data');
    this.input.pause();
    this.#resolveClosed();
  }

  /** The client closed stdin: answer what it sent (then a short pause lets the last answer be written), then close. */
  #drainThenClose(): void {
    if (this.#buffer.trim()) this.#line(this.#buffer);
    this.#buffer = '';
    const settle = (): void => {
      const pending = this.#inFlight;
      const next = (): void => void setTimeout(() => (pending === this.#inFlight ? this.close() : settle()), 50);
      void pending.then(next, next);
    };
    settle();
  }

  #read(chunk: string): void {
    this.#buffer += chunk;
    for (let nl = this.#buffer.indexOf('\n'); nl >= 0; nl = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, nl);
      this.#buffer = this.#buffer.slice(nl + 1);
      if (line.trim()) this.#line(line);
    }
  }

  #send(message: Record<string, unknown>): void {
    if (this.#open) this.output.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  }

  #line(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.#send({ id: null, error: { code: PARSE_ERROR, message: 'Parse error' } });
      return;
    }
    if (!isObject(msg) || msg.jsonrpc !== '2.0') {
      this.#send({ id: isObject(msg) && (typeof msg.id === 'string' || typeof msg.id === 'number') ? msg.id : null, error: { code: INVALID_REQUEST, message: 'Invalid Request' } });
      return;
    }
    if (typeof msg.method !== 'string') return; // a response: this server sends no requests
    const id = msg.id;
    if (id === undefined) {
      if (msg.method === 'notifications/cancelled' && isObject(msg.params)) {
        const p = this.#pending.get(msg.params.requestId as Id);
        if (p) p.cancelled = true;
      }
      return;
    }
    if (typeof id !== 'string' && typeof id !== 'number') {
      this.#send({ id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: id must be a string or a number' } });
      return;
    }
    const state = { cancelled: false };
    this.#pending.set(id, state);
    const answer = this.#answer(msg.method, msg.params).then(
      (result) => ({ result }),
      (e: unknown) => ({ error: e instanceof WireError ? { code: e.code, message: e.message } : { code: INTERNAL_ERROR, message: e instanceof Error ? e.message : String(e) } }),
    ).then((reply) => {
      this.#pending.delete(id);
      if (!state.cancelled) this.#send({ id, ...reply });
      if (msg.method === 'initialize' && 'result' in reply) this.server.initialized?.();
    });
    this.#inFlight = Promise.all([this.#inFlight, answer]);
  }

  async #answer(method: string, params: unknown): Promise<unknown> {
    switch (method) {
      case 'initialize': {
        const asked = isObject(params) ? params.protocolVersion : undefined;
        const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(asked as never) ? asked : SUPPORTED_PROTOCOL_VERSIONS[0];
        return { protocolVersion, capabilities: { tools: {} }, serverInfo: this.server.serverInfo, ...(this.server.instructions ? { instructions: this.server.instructions } : {}) };
      }
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: this.server.tools() };
      case 'tools/call': {
        if (!isObject(params) || typeof params.name !== 'string') throw new WireError(INVALID_PARAMS, 'Invalid params: tools/call needs a tool name');
        if (params.arguments !== undefined && !isObject(params.arguments)) throw new WireError(INVALID_PARAMS, 'Invalid params: arguments must be an object');
        return this.server.call(params.name, (params.arguments as Record<string, unknown> | undefined) ?? {});
      }
      default:
        throw new WireError(METHOD_NOT_FOUND, 'Method not found');
    }
  }
}
