import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { StdioWire, SUPPORTED_PROTOCOL_VERSIONS, type ToolResult, type WireServer } from './mcp-wire.ts';

/** A wire over in-memory streams; `send` writes lines, `replies` collects what came back. */
function wire(call: WireServer['call'] = async (name, args) => ({ content: [{ type: 'text', text: `${name} ${JSON.stringify(args)}` }] }), initialized?: () => void) {
  const input = new PassThrough();
  const output = new PassThrough();
  const replies: Array<Record<string, unknown>> = [];
  let buf = '';
  output.setEncoding('utf8');
  output.on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      replies.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      buf = buf.slice(nl + 1);
    }
  });
  const w = new StdioWire(input, output, { serverInfo: { name: 'sift', version: '9' }, instructions: 'use it', tools: () => [{ name: 'search' }], call, initialized });
  const send = (m: unknown): void => void input.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  const settle = () => new Promise((r) => setTimeout(r, 20));
  return { w, input, send, replies, settle };
}

describe('StdioWire: MCP over stdio without the SDK server', () => {
  it('speaks the protocol versions the SDK does, and negotiates as its Server does', async () => {
    expect([...SUPPORTED_PROTOCOL_VERSIONS]).toEqual(SDK_VERSIONS);
    expect(SUPPORTED_PROTOCOL_VERSIONS[0]).toBe(LATEST_PROTOCOL_VERSION);
    const { send, replies, settle } = wire();
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    await settle();
    expect(replies[0]).toEqual({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'sift', version: '9' }, instructions: 'use it' } });
    expect((replies[1].result as { protocolVersion: string }).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
  });

  it('tells the server once the reply to initialize is written, not before', async () => {
    const seen: number[] = [];
    const { send, replies, settle } = wire(undefined, () => seen.push(replies.length));
    send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await settle();
    expect(seen).toEqual([]);
    send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    await settle();
    // (replies counts what the output stream has delivered: the ping's reply, then initialize's.)
    expect(seen.length).toBe(1);
    expect(replies.map((r) => r.id)).toEqual([1, 2]);
  });

  it('answers ping, tools/list and tools/call; drops notifications', async () => {
    const { send, replies, settle } = wire();
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 'a', method: 'ping' });
    send({ jsonrpc: '2.0', id: 'b', method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'search', arguments: { query: 'x' } } });
    send({ jsonrpc: '2.0', id: 'd', method: 'tools/call', params: { name: 'status' } });
    await settle();
    expect(replies).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 'b', result: { tools: [{ name: 'search' }] } },
      { jsonrpc: '2.0', id: 'c', result: { content: [{ type: 'text', text: 'search {"query":"x"}' }] } },
      { jsonrpc: '2.0', id: 'd', result: { content: [{ type: 'text', text: 'status {}' }] } },
    ]);
  });

  it('bad messages get JSON-RPC errors, and the wire keeps serving', async () => {
    const { send, replies, settle } = wire(async () => {
      throw new Error('boom');
    });
    send('{not json');
    send({ jsonrpc: '1.0', id: 1, method: 'ping' });
    send([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
    send({ jsonrpc: '2.0', id: 3, method: 'resources/list' });
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: {} } });
    send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'search', arguments: [1] } });
    send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'search' } });
    send({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' });
    send({ jsonrpc: '2.0', id: 7, method: 'ping' });
    await settle();
    // (Answers come as they are ready: a tool's error after a ping sent later.)
    const inOrder = (pairs: ReadonlyArray<readonly [unknown, unknown]>) => [...pairs].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1])));
    const got = replies.map((r) => [r.id, (r.error as { code: number } | undefined)?.code ?? 'ok'] as const);
    expect(inOrder(got)).toEqual(inOrder([[1, -32600], [3, -32601], [4, -32602], [5, -32602], [6, -32603], [7, 'ok'], [null, -32700], [null, -32600], [null, -32600]]));
    expect((replies.find((r) => r.id === 6)!.error as { message: string }).message).toBe('boom');
  });

  it('a call cancelled before its answer gets none; the others do', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { send, replies, settle } = wire(async (name): Promise<ToolResult> => {
      if (name === 'slow') await gate;
      return { content: [{ type: 'text', text: name }] };
    });
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'fast' } });
    send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'user' } });
    await settle();
    release();
    await settle();
    expect(replies.map((r) => r.id)).toEqual([2]);
  });

  it('at the end of its input it answers what was sent, then closes; a line split across reads is one message', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { w, input, replies } = wire(async (name): Promise<ToolResult> => {
      await gate;
      return { content: [{ type: 'text', text: name }] };
    });
    const line = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'search' } });
    input.write(line.slice(0, 10));
    input.write(`${line.slice(10)}\n`);
    input.end(JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'ping' })); // no final newline
    let closed = false;
    void w.closed.then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    release();
    await w.closed;
    expect(replies.map((r) => r.id).sort()).toEqual([10, 9].sort());
  });
});
