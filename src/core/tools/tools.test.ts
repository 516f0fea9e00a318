// The agent tool contract (issue 26) over the real store, indexer and searcher: every tool,
// budgets, cursors, argument errors. The MCP adapter is driven end to end in test/cli/mcp.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { indexCodebase } from '../index/indexer.ts';
import { MemoryFileSource } from '../source/memory-source.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import { Searcher } from '../search/search.ts';
import { TextCache } from '../search/grep.ts';
import { callTool, type ToolCodebase, type ToolHost } from './run.ts';
import { answerTokens, decodeCursor, encodeCursor, estimateTokens, fingerprint } from './budget.ts';
import { TOOL_DEFINITIONS, TOOL_NAMES } from './contract.ts';
import { relativePath } from './args.ts';
import { ownEnd } from './declarations.ts';

function pyModule(n: number): string {
  const out = ['"""Payments module."""', 'import os', ''];
  for (let i = 0; i < n; i++) {
    out.push('', `def charge_card_${i}(amount, currency="EUR"):`, `    """Charge ${i}: retry on timeout."""`, '    if amount <= 0:', '        raise ValueError("amount must be positive")', `    return {"id": ${i}, "amount": amount}`);
  }
  return out.join('\n') + '\n';
}

const FILES: Record<string, string> = {
  'src/payments.py': pyModule(60),
  'src/server.ts': [
    'export class PaymentServer {',
    '  constructor(private port: number) {}',
    '  listen(): void {',
    '    console.log("listening on", this.port);',
    '  }',
    '  retryPolicy(): number {',
    '    return 3; // retries before giving up',
    '  }',
    '}',
    '',
    'export function startServer(port = 8080): PaymentServer {',
    '  const s = new PaymentServer(port);',
    '  s.listen();',
    '  return s;',
    '}',
    '',
  ].join('\n'),
  'src/util.go': 'package util\n\n// Retry runs f until it succeeds.\nfunc Retry(n int, f func() error) error {\n\tvar err error\n\tfor i := 0; i < n; i++ {\n\t\tif err = f(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn err\n}\n',
  'tests/test_payments.py': 'from src.payments import charge_card_1\n\n\ndef test_charge_card():\n    assert charge_card_1(5)["amount"] == 5\n',
  'tests/server.test.ts': "import { startServer } from '../src/server';\n\nit('starts', () => {\n  expect(startServer(9000)).toBeTruthy();\n});\n",
  'docs/retries.md': '# Retries\n\nThe server retries three times (see retryPolicy).\n',
  'config/app.yaml': 'server:\n  port: 8080\n  retries: 3\n',
};

let store: Store;
let host: ToolHost;

beforeAll(async () => {
  const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  store = await openMemoryStore();
  await indexCodebase({ source: new MemoryFileSource(FILES), store, chunker });
  const cb: ToolCodebase = {
    name: 'demo',
    root: '/work/demo',
    store,
    searcher: new Searcher(store),
    texts: new TextCache(1 << 20),
    progress: () => ({ state: 'ready', indexedShare: 1 }),
  };
  host = { codebases: () => [cb] };
});

const call = (name: string, args: Record<string, unknown>) => callTool(host, name, args);
type S = Record<string, unknown> & { next_cursor: string | null };

describe('tool contract', () => {
  it('defines five read-only tools with object schemas', () => {
    expect(TOOL_DEFINITIONS.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    for (const t of TOOL_DEFINITIONS) {
      expect(t.annotations.readOnlyHint).toBe(true);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema.type).toBe('object');
      expect(t.description.length).toBeGreaterThan(40);
    }
  });

  it('counts tokens conservatively and round-trips cursors', () => {
    expect(estimateTokens('abc')).toBe(1);
    expect(estimateTokens('é')).toBe(1);
    expect(estimateTokens('"\n')).toBe(2);
    const fp = fingerprint('grep', { p: 'x' });
    expect(decodeCursor(encodeCursor(fp, 40), fp)).toEqual({ offset: 40 });
    expect(decodeCursor(encodeCursor(fp, 40), 'other')).toHaveProperty('error');
    expect(decodeCursor('garbage!!', fp)).toHaveProperty('error');
  });

  it('keeps paths inside the root', () => {
    expect(relativePath('./src//a.ts', '/r')).toBe('src/a.ts');
    expect(relativePath('/r/src/a.ts', '/r')).toBe('src/a.ts');
    expect(() => relativePath('../etc/passwd', '/r')).toThrow(/leaves the codebase root/);
    expect(() => relativePath('src/../../x', '/r')).toThrow(/leaves/);
    expect(() => relativePath('/etc/passwd', '/r')).toThrow(/outside the codebase root/);
    expect(() => relativePath('/rx/a', '/r')).toThrow(/outside/);
  });
});

describe('search', () => {
  it('finds a definition first, with counts up front, inside the budget', async () => {
    const a = await call('search', { query: 'startServer' });
    expect(a.isError).toBe(false);
    const s = a.structuredContent as S & { results: Array<Record<string, unknown>> };
    expect(s.results[0]).toMatchObject({ path: 'src/server.ts', kind: 'function', symbol: 'startServer', detail: 'full' });
    expect(a.text.split('\n')[0]).toMatch(/^search "startServer" · \d+\+? found/);
    expect(answerTokens(a.text, s)).toBeLessThanOrEqual(4000);
  });

  it('degrades to brief and location entries under a small budget, and the cursor continues', async () => {
    const a = await call('search', { query: 'charge card amount', limit: 20, max_tokens: 600 });
    const s = a.structuredContent as S & { results: Array<{ detail: string; rank: number }>; shown: number };
    expect(answerTokens(a.text, s)).toBeLessThanOrEqual(600);
    const details = s.results.map((r) => r.detail);
    expect(details).toContain('location');
    // Monotone: never a fuller entry after a thinner one.
    const order = { full: 0, brief: 1, location: 2 } as Record<string, number>;
    for (let i = 1; i < details.length; i++) expect(order[details[i]]).toBeGreaterThanOrEqual(order[details[i - 1]]);
    expect(s.next_cursor).toBeTypeOf('string');
    const b = await call('search', { query: 'charge card amount', limit: 20, max_tokens: 600, cursor: s.next_cursor });
    const t = b.structuredContent as S & { results: Array<{ rank: number }>; offset: number };
    const withText = s.results.filter((r) => r.detail !== 'location').length;
    expect(t.offset).toBe(withText || s.results.length);
    expect(t.results[0].rank).toBe(t.offset + 1);
  });

  it('says where the folded definitions of a file are (also_in_file), in the structured and the text answer', async () => {
    const a = await call('search', { query: 'charge card amount', limit: 5 });
    type R = { path: string; more_in_file?: number; also_in_file?: Array<{ start_line: number; end_line: number; kind: string; symbol?: string }> };
    const results = (a.structuredContent as { results: R[] }).results;
    const withFolded = results.filter((r) => r.also_in_file?.length);
    expect(withFolded.length).toBeGreaterThan(0);
    for (const r of withFolded) {
      expect(r.also_in_file!.length).toBeLessThanOrEqual(r.more_in_file ?? 0);
      const lines = FILES[r.path].split('\n');
      for (const f of r.also_in_file!) {
        expect(f.start_line).toBeLessThanOrEqual(f.end_line);
        const text = lines.slice(f.start_line - 1, f.end_line).join('\n');
        // Each is a piece of the file that matched: a definition named as it is written there,
        // or a module-level piece (an import of charge_card_1) without a name.
        if (f.symbol) expect(text).toContain(`def ${f.symbol}(`);
        else expect(text).toMatch(/charge/);
      }
    }
    expect(a.text).toMatch(/\n {3}also in this file: \d+-\d+ function charge_card_\d+/);
  });

  it('passes intent and file kind through: tests rise for intent test, kind filters files', async () => {
    const rank = async (args: Record<string, unknown>) => {
      const r = ((await call('search', args)).structuredContent as { results: Array<{ path: string }> }).results;
      return r.findIndex((x) => x.path === 'tests/server.test.ts');
    };
    const plain = await rank({ query: 'start the payment server' });
    const test = await rank({ query: 'start the payment server', intent: 'test' });
    expect(test).toBeGreaterThanOrEqual(0);
    expect(plain === -1 || test <= plain, `plain ${plain} test ${test}`).toBe(true);
    const tests = (await call('search', { query: 'server', kind: 'test' })).structuredContent as { results: Array<{ path: string }> };
    expect(tests.results.map((r) => r.path)).toEqual(['tests/server.test.ts']);
    const only = (await call('search', { query: 'server', kind: 'config' })).structuredContent as { results: Array<{ path: string }> };
    expect(only.results.map((r) => r.path)).toEqual(['config/app.yaml']);
  });

  it('refuses bad arguments with clear messages', async () => {
    expect((await call('search', {})).text).toMatch(/missing required argument "query"/);
    expect((await call('search', { query: 'x', mode: 'fuzzy' })).text).toMatch(/"mode" must be one of auto, keyword, semantic, hybrid/);
    expect((await call('search', { query: 'x', langauge: 'go' })).text).toMatch(/unknown argument "langauge"/);
    expect((await call('search', { query: 'x', language: 'cobol' })).text).toMatch(/no indexed files of language "cobol"; indexed languages: .*python/);
    expect((await call('search', { query: 'x', cursor: 'nope' })).isError).toBe(true);
    const sem = await call('search', { query: 'retry', mode: 'semantic' });
    expect(sem.isError).toBe(false);
    expect((sem.structuredContent as { notes: string[] }).notes.join()).toMatch(/semantic search is unavailable/);
    expect((await call('nope', {})).text).toMatch(/unknown tool "nope"/);
  });
});

describe('grep', () => {
  it('lists every matching line with total_matches first and pages through them', async () => {
    const a = await call('grep', { pattern: 'raise ValueError', limit: 25 });
    const s = a.structuredContent as S & { lines: Array<{ path: string; line: number; text: string }>; total_matches: number };
    expect(s.total_matches).toBe(60);
    expect(a.text.split('\n')[0]).toMatch(/60 matching lines in 1 files/);
    const all: string[] = [];
    let cur: S = s;
    let guard = 0;
    for (;;) {
      const page = cur as typeof s;
      all.push(...page.lines.filter((l) => l.text !== undefined).map((l) => `${l.path}:${l.line}`));
      if (!page.next_cursor || ++guard > 20) break;
      cur = (await call('grep', { pattern: 'raise ValueError', limit: 25, cursor: page.next_cursor })).structuredContent as S;
    }
    expect(all.length).toBe(60);
    expect(new Set(all).size).toBe(60);
  });

  it('stays within small budgets: text lines first, then path:line only', async () => {
    const a = await call('grep', { pattern: 'amount', max_tokens: 400, limit: 200 });
    const s = a.structuredContent as S & { lines: Array<{ text?: string }>; with_text: number; shown: number };
    expect(answerTokens(a.text, s)).toBeLessThanOrEqual(400);
    expect(s.with_text).toBeGreaterThan(0);
    expect(s.lines.slice(s.with_text).every((l) => l.text === undefined)).toBe(true);
  });

  it('an exact pattern written as a regex that finds nothing says what it finds as a regex', async () => {
    const a = await call('grep', { pattern: 'raise ValueError\\(' });
    const s = a.structuredContent as S & { total_matches: number; notes: string[] };
    expect(s.total_matches).toBe(0);
    expect(s.notes.join()).toMatch(/as a regex \(regex: true\) it matches 60 lines in 1 file\b/);
    expect(a.text).toMatch(/regex: true/);
    // Plain text that finds nothing, or an escape that matches nothing as a regex either: no note.
    expect(((await call('grep', { pattern: 'no such text here' })).structuredContent as { notes: string[] }).notes).toEqual([]);
    expect(((await call('grep', { pattern: 'nothing\\(like this' })).structuredContent as { notes: string[] }).notes).toEqual([]);
  });

  it('an invalid regex is a tool error with what and where', async () => {
    const a = await call('grep', { pattern: 'foo(', regex: true });
    expect(a.isError).toBe(true);
    expect(a.text).toMatch(/invalid pattern/);
  });
});

describe('read', () => {
  it('serves an indexed file with line numbers, and continues past the budget', async () => {
    const a = await call('read', { path: 'src/server.ts', start_line: 11, end_line: 13 });
    const s = a.structuredContent as S & { content: string; end_line: number };
    expect(s.content).toBe('export function startServer(port = 8080): PaymentServer {\n  const s = new PaymentServer(port);\n  s.listen();');
    expect(a.text).toContain('11  export function startServer');
    const big = await call('read', { path: '/work/demo/src/payments.py', max_tokens: 500 });
    const b = big.structuredContent as S & { end_line: number; next_start_line: number; truncated: boolean };
    expect(answerTokens(big.text, b)).toBeLessThanOrEqual(500);
    expect(b.truncated).toBe(true);
    const c = (await call('read', { path: 'src/payments.py', max_tokens: 500, cursor: b.next_cursor })).structuredContent as { start_line: number };
    expect(c.start_line).toBe(b.end_line + 1);
  });

  it('refuses traversal, absolute paths outside the root and files not in the index', async () => {
    expect((await call('read', { path: '../etc/passwd' })).text).toMatch(/leaves the codebase root/);
    expect((await call('read', { path: '/etc/passwd' })).text).toMatch(/outside the codebase root/);
    const miss = await call('read', { path: 'server.ts' });
    expect(miss.isError).toBe(true);
    expect(miss.text).toMatch(/not in the index.*did you mean "src\/server.ts"/);
    expect((await call('read', { path: 'src/server.ts', start_line: 99 })).text).toMatch(/past the end/);
  });
});

describe('symbols', () => {
  it('finds definitions by name, with container', async () => {
    const s = (await call('symbols', { name: 'retryPolicy' })).structuredContent as { symbols: Array<Record<string, unknown>>; total: number };
    expect(s.total).toBe(1);
    expect(s.symbols[0]).toMatchObject({ name: 'retryPolicy', kind: 'method', container: 'PaymentServer', path: 'src/server.ts', start_line: 6 });
    expect(String(s.symbols[0].signature)).toMatch(/retryPolicy\(\): number/);
    const q = (await call('symbols', { name: 'PaymentServer.listen' })).structuredContent as { symbols: Array<Record<string, unknown>> };
    expect(q.symbols[0]).toMatchObject({ name: 'listen', container: 'PaymentServer' });
  });

  it('outlines a file by path', async () => {
    const s = (await call('symbols', { path: 'src/util.go' })).structuredContent as { symbols: Array<Record<string, unknown>> };
    expect(s.symbols.map((x) => x.name)).toContain('Retry');
    const ts = (await call('symbols', { path: 'src/server.ts' })).structuredContent as { symbols: Array<Record<string, unknown>> };
    expect(ts.symbols.map((x) => `${x.kind} ${x.name} ${x.start_line}-${x.end_line}`)).toEqual([
      'class PaymentServer 1-9', 'method constructor 2-2', 'method listen 3-5', 'method retryPolicy 6-8', 'function startServer 11-15',
    ]);
    expect((await call('symbols', {})).text).toMatch(/give "name"/);
  });
});

describe('status', () => {
  it('reports files, chunks and languages', async () => {
    const a = await call('status', {});
    const s = a.structuredContent as { codebases: Array<Record<string, unknown>> };
    expect(s.codebases[0]).toMatchObject({ name: 'demo', state: 'ready', files: 7, embedded_share: 0 });
    expect(a.text).toMatch(/files 7/);
  });
});

describe('grep on a shared index (remote: read only as far as the lines asked for)', () => {
  it('stops reading at the page, says its totals are lower bounds, and pages to the same lines as a full scan', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`m/f${String(i).padStart(3, '0')}.py`] = `def f${i}():\n    return "needle ${i}"\n`;
    const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
    const big = await openMemoryStore();
    await indexCodebase({ source: new MemoryFileSource(files), store: big, chunker });
    const served = (remote: boolean): ToolHost => ({
      codebases: () => [{ name: 'big', root: null, store: big, searcher: new Searcher(big), texts: new TextCache(1 << 20), remote, progress: () => ({ state: 'ready', indexedShare: 1 }) }],
    });
    type G = S & { total_matches: number; notes: string[]; lines: Array<{ path: string; line: number; text?: string }> };
    const all = async (host: ToolHost) => {
      const got: string[] = [];
      let page = (await callTool(host, 'grep', { pattern: 'needle', limit: 30 })).structuredContent as G;
      const first = page;
      for (let guard = 0; guard < 20; guard++) {
        got.push(...page.lines.filter((l) => l.text !== undefined).map((l) => `${l.path}:${l.line}`));
        if (!page.next_cursor) break;
        page = (await callTool(host, 'grep', { pattern: 'needle', limit: 30, cursor: page.next_cursor })).structuredContent as G;
      }
      return { first, got };
    };
    const local = await all(served(false));
    const remote = await all(served(true));
    expect(local.first.total_matches).toBe(200);
    expect(local.first.notes.join()).not.toMatch(/lower bounds/);
    // One batch of files read (64), not all 200; the note says the totals are lower bounds.
    expect(remote.first.total_matches).toBeLessThan(200);
    expect(remote.first.notes.join()).toMatch(/lower bounds/);
    expect(remote.got).toEqual(local.got);
    expect(new Set(remote.got).size).toBe(200);
    await big.close();
  });
});

describe('ownEnd (the outline and symbols path= leave out a container\'s closing line)', () => {
  const ex = ['defmodule Conn do', '  def a(x) do', '    x', '  end', '', '  def b(x) do', '    x', '  end', 'end'];
  it('drops the enclosing module\'s `end` and blank lines, keeps the definition\'s own `end`', () => {
    expect(ownEnd(ex, 6, 9)).toBe(8);
    expect(ownEnd(ex, 2, 5)).toBe(4);
    expect(ownEnd(ex, 1, 9)).toBe(9);
  });
  it('keeps a body line that is less indented but not only a closing token', () => {
    const py = ['class A:', '    def f(self):', '        return """', 'text', '"""'];
    expect(ownEnd(py, 2, 5)).toBe(5);
    const js = ['class A {', '  f() {', '    return 1;', '  }', '};'];
    expect(ownEnd(js, 2, 5)).toBe(4);
  });
});
