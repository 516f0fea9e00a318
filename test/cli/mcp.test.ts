/**
 * `sift mcp` (issue 26) driven like an agent drives it: the MCP SDK's own Client over
 * StdioClientTransport, spawning the real bin/sift on a real tree written here (several
 * languages, an ignored file, a secret, a link out of the root). Every tool, answers within
 * their budgets, cursors, grep lines equal to ripgrep's, an edit/add/rename/delete reflected
 * in the next answer, traversal refused, a bad regex, concurrent calls. During a first index
 * (issue 34): grep equal to ripgrep over the walker's files and read of files not stored yet,
 * a file written or edited then found by search and grep within 2 s, two new folders indexed
 * at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ROOT } from './run-sift.ts';
import { isProbablyBinary, walk } from '../../src/core/walk/walker.ts';
import { NodeFileSource } from '../../src/core/source/node-source-node.ts';

/** How long a test waits for an edit made during the first index to be found (the 2 s budget is bench/mcp.ts's). */
const EDIT_FOUND_MS = 10_000;

let work: string;
let repo: string;
let client: Client;
let stderr = '';

function pyModule(n: number): string {
  const out = ['"""Billing: invoices and retries."""', 'import time', '', 'MAX_RETRIES = 3', ''];
  for (let i = 0; i < n; i++) {
    out.push('', `def invoice_total_${i}(items, tax=0.2):`, `    """Total of invoice ${i}."""`, '    total = sum(item.price for item in items)', `    return round(total * (1 + tax), 2)  # invoice ${i}`);
  }
  out.push('', '', 'class RetryPolicy:', '    def __init__(self, attempts=MAX_RETRIES):', '        self.attempts = attempts', '', '    def should_retry(self, n):', '        return n < self.attempts', '');
  return out.join('\n');
}

const FILES: Record<string, string> = {
  'billing/invoice.py': pyModule(80),
  'web/server.ts': [
    "import { createServer } from 'node:http';",
    '',
    'export class HttpServer {',
    '  constructor(private port: number) {}',
    '  listen(): void {',
    "    createServer((req, res) => res.end('ok')).listen(this.port);",
    '  }',
    '  shutdown(): void {}',
    '}',
    '',
    'export function startHttpServer(port = 8080): HttpServer {',
    '  const s = new HttpServer(port);',
    '  s.listen();',
    '  return s;',
    '}',
    '',
  ].join('\n'),
  'cmd/main.go': 'package main\n\nimport "fmt"\n\n// ParseConfig reads the config file.\nfunc ParseConfig(path string) (map[string]string, error) {\n\treturn map[string]string{"path": path}, nil\n}\n\nfunc main() {\n\tcfg, err := ParseConfig("app.yaml")\n\tfmt.Println(cfg, err)\n}\n',
  'src/lib.rs': 'pub struct Cache {\n    size: usize,\n}\n\nimpl Cache {\n    pub fn new(size: usize) -> Self {\n        Cache { size }\n    }\n}\n\npub fn evict(c: &mut Cache) {\n    c.size = 0;\n}\n',
  'docs/guide.md': '# Guide\n\nRetries: the RetryPolicy retries an invoice three times.\n\nUnicode: café, naïve, 😀 emoji.\n',
  'config/app.yaml': 'server:\n  port: 8080\n  retries: 3\n',
  '.gitignore': 'generated/\n',
  'generated/out.py': 'def generated_thing():\n    return 1\n',
  '.env': 'API_KEY=supersecret\n',
};

/** Files the index holds (the tree minus the ignored folder, the secret and the link out). */
const INDEXED = ['.gitignore', 'billing/invoice.py', 'cmd/main.go', 'config/app.yaml', 'docs/guide.md', 'src/lib.rs', 'web/server.ts'];

type Result = Awaited<ReturnType<Client['callTool']>>;
type Structured = Record<string, unknown> & { next_cursor: string | null };

async function call(name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return client.callTool({ name, arguments: args });
}

const text = (r: Result) => (r.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads of the structured answers
const data = (r: Result): any => r.structuredContent as Structured;
/** Bytes of the whole result as it travels (JSON), over 3: at least the tokens any tokenizer counts for code. */
const tokensOf = (r: Result) => Math.ceil(Buffer.byteLength(JSON.stringify({ content: r.content, structuredContent: r.structuredContent }), 'utf8') / 3);

async function until(check: () => Promise<boolean>, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms; server stderr:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - t0;
}

/** Every line of `pattern` over all pages: `path:line:text`. */
async function grepAll(args: Record<string, unknown>): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 200; page++) {
    const r = await call('grep', { ...args, ...(cursor ? { cursor } : {}) });
    expect(r.isError, text(r)).toBeFalsy();
    const s = data(r) as Structured & { lines: Array<{ path: string; line: number; text?: string }>; with_text: number };
    out.push(...s.lines.slice(0, s.with_text).map((l) => `${l.path}:${l.line}:${l.text}`));
    cursor = s.next_cursor;
    if (!cursor) return out;
  }
  throw new Error('too many pages');
}

function rg(pattern: string, o: { regex?: boolean; ignoreCase?: boolean } = {}): string[] {
  const r = spawnSync('rg', ['--no-config', '--sort', 'path', '-n', '--no-heading', '-H', ...(o.regex ? [] : ['-F']), ...(o.ignoreCase ? ['-i'] : []), '-e', pattern, '--', ...INDEXED], { cwd: repo, encoding: 'utf8' });
  if (r.status === 1) return [];
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sift-mcp-'));
  repo = join(work, 'repo');
  for (const [p, t] of Object.entries(FILES)) {
    mkdirSync(join(repo, p, '..'), { recursive: true });
    writeFileSync(join(repo, p), t);
  }
  writeFileSync(join(work, 'outside.txt'), 'SECRET OUTSIDE THE ROOT\n');
  symlinkSync(join(work, 'outside.txt'), join(repo, 'docs', 'link-out.md'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin/sift'), 'mcp', repo],
    env: { ...process.env, SIFT_HOME: join(work, 'home'), SIFT_OFFLINE: '1' } as Record<string, string>,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  client = new Client({ name: 'sift-test', version: '1.0.0' });
  await client.connect(transport);
  await until(async () => (data(await call('status')) as { codebases: Array<{ state: string }> }).codebases[0].state === 'ready', 60_000);
}, 120_000);

afterAll(async () => {
  await client?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('sift mcp', () => {
  it('lists the five read-only tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['grep', 'read', 'search', 'status', 'symbols']);
    for (const t of tools) {
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(t.description?.length).toBeGreaterThan(40);
    }
    const grep = tools.find((t) => t.name === 'grep')!;
    expect(Object.keys(grep.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['pattern', 'regex', 'ignore_case', 'path', 'language', 'limit', 'max_tokens', 'cursor']));
  });

  it('status: files, chunks, languages, skipped by reason', async () => {
    const r = await call('status');
    const c = (data(r) as { codebases: Array<Record<string, unknown>> }).codebases[0];
    expect(c).toMatchObject({ name: 'repo', root: repo, state: 'ready', indexed_share: 1, files: INDEXED.length, embedded_share: 0, pending_changes: 0 });
    expect(Object.keys(c.languages as object)).toEqual(expect.arrayContaining(['python', 'typescript', 'go', 'rust', 'markdown']));
    expect(Object.keys(c.skipped as object)).toEqual(expect.arrayContaining(['secret']));
    expect(text(r)).toMatch(/^repo \(.*\): ready/);
  });

  it('search: the defining file first, within the default budget', async () => {
    for (const [query, path] of [['startHttpServer', 'web/server.ts'], ['ParseConfig', 'cmd/main.go'], ['evict cache entries', 'src/lib.rs'], ['RetryPolicy should_retry', 'billing/invoice.py']]) {
      const r = await call('search', { query });
      expect(r.isError, text(r)).toBeFalsy();
      expect((data(r).results as Array<{ path: string }>)[0].path, query).toBe(path);
      expect(tokensOf(r)).toBeLessThanOrEqual(4000);
    }
  });

  it('answers stay within max_tokens, degrading to locations, with counts first', async () => {
    for (const max of [300, 600, 1500, 4000, 20_000]) {
      for (const [tool, args] of [
        ['search', { query: 'invoice total tax', limit: 50 }],
        ['grep', { pattern: 'invoice', limit: 2000 }],
        ['read', { path: 'billing/invoice.py' }],
        ['symbols', { path: 'billing/invoice.py', limit: 500 }],
      ] as const) {
        const r = await call(tool, { ...args, max_tokens: max });
        expect(r.isError, text(r)).toBeFalsy();
        expect(tokensOf(r), `${tool} at ${max}`).toBeLessThanOrEqual(max);
      }
    }
    const g = await call('grep', { pattern: 'invoice', limit: 2000, max_tokens: 1000 });
    expect(text(g).split('\n')[0]).toMatch(/^grep "invoice" \(exact\) · \d+ matching lines in 2 files/);
    const s = data(g) as Structured & { total_matches: number; shown: number; with_text: number };
    expect(s.total_matches).toBeGreaterThan(s.with_text);
    expect(s.next_cursor).toBeTypeOf('string');
  });

  it('grep: every line equals ripgrep, across cursor pages', async () => {
    const cases: Array<[string, { regex?: boolean; ignoreCase?: boolean }]> = [
      ['invoice', {}], ['retr', { ignoreCase: true }], ['def \\w+\\(', { regex: true }], ['^\\s*$', { regex: true }], ['😀', {}],
      ['port', {}], ['(?i)CACHE', { regex: true }], ['[0-9]{4}', { regex: true }],
    ];
    for (const [pattern, o] of cases) {
      const mine = await grepAll({ pattern, regex: !!o.regex, ignore_case: !!o.ignoreCase, limit: 37, max_tokens: 2000 });
      expect(mine, pattern).toEqual(rg(pattern, o));
    }
  });

  it('read: numbered lines of an indexed file; traversal, absolute paths, links out, secrets and ignored files refused', async () => {
    const r = await call('read', { path: 'web/server.ts', start_line: 11, end_line: 12 });
    expect(data(r)).toMatchObject({ path: 'web/server.ts', start_line: 11, end_line: 12, total_lines: 15, content: 'export function startHttpServer(port = 8080): HttpServer {\n  const s = new HttpServer(port);' });
    expect(text(r)).toContain('11  export function startHttpServer');
    expect(data(await call('read', { path: join(repo, 'web/server.ts'), end_line: 1 }))).toMatchObject({ content: "import { createServer } from 'node:http';" });
    for (const [path, why] of [
      ['../outside.txt', /leaves the codebase root/],
      ['web/../../outside.txt', /leaves the codebase root/],
      [join(work, 'outside.txt'), /outside the codebase root/],
      ['/etc/passwd', /outside the codebase root/],
      ['docs/link-out.md', /not in the index/],
      ['.env', /not in the index/],
      ['generated/out.py', /not in the index/],
      ['nope/missing.ts', /not in the index/],
    ] as const) {
      const e = await call('read', { path });
      expect(e.isError, path).toBe(true);
      expect(text(e), path).toMatch(why);
      expect(text(e)).not.toContain('SECRET');
      expect(text(e)).not.toContain('supersecret');
    }
    // Not through grep either.
    expect(data(await call('grep', { pattern: 'SECRET OUTSIDE' })).total_matches).toBe(0);
    expect(data(await call('grep', { pattern: 'supersecret' })).total_matches).toBe(0);
  });

  it('read: continues past the budget with next_start_line and the cursor', async () => {
    const a = data(await call('read', { path: 'billing/invoice.py', max_tokens: 600 })) as Structured & { end_line: number; next_start_line: number; content: string };
    expect(a.next_start_line).toBe(a.end_line + 1);
    const b = data(await call('read', { path: 'billing/invoice.py', max_tokens: 600, cursor: a.next_cursor })) as Structured & { start_line: number };
    expect(b.start_line).toBe(a.end_line + 1);
  });

  it('symbols: definitions by name (with container) and a file outline', async () => {
    const s = data(await call('symbols', { name: 'should_retry' })) as { symbols: Array<Record<string, unknown>> };
    expect(s.symbols[0]).toMatchObject({ name: 'should_retry', container: 'RetryPolicy', path: 'billing/invoice.py' });
    const h = data(await call('symbols', { name: 'HttpServer.listen' })) as { symbols: Array<Record<string, unknown>> };
    expect(h.symbols[0]).toMatchObject({ name: 'listen', kind: 'method', container: 'HttpServer', path: 'web/server.ts', start_line: 5, end_line: 7 });
    const o = data(await call('symbols', { path: 'src/lib.rs' })) as { symbols: Array<{ name: string; kind: string }> };
    expect(o.symbols.map((x) => x.name)).toEqual(expect.arrayContaining(['Cache', 'new', 'evict']));
    const page1 = data(await call('symbols', { path: 'billing/invoice.py', limit: 30 })) as Structured & { total: number; symbols: unknown[] };
    expect(page1.total).toBeGreaterThan(80);
    const page2 = data(await call('symbols', { path: 'billing/invoice.py', limit: 30, cursor: page1.next_cursor })) as { offset: number };
    expect(page2.offset).toBe(page1.symbols.length);
  });

  it('bad arguments are tool errors with clear messages, and the server keeps serving', async () => {
    const bad = await call('grep', { pattern: 'foo(', regex: true });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/invalid pattern.*missing closing \)/);
    expect(text(await call('search', { query: 'x', mode: 'fast' }))).toMatch(/"mode" must be one of/);
    expect(text(await call('grep', { pattern: 'x', case_insensitive: true }))).toMatch(/unknown argument "case_insensitive"/);
    expect(text(await call('search', { query: 'x', cursor: 'bogus' }))).toMatch(/invalid cursor/);
    expect(text(await call('symbols', {}))).toMatch(/give "name"/);
    expect(text(await call('search', { query: 'x', codebase: 'other' }))).toMatch(/no codebase "other"; served: repo/);
    expect((await call('status')).isError).toBeFalsy();
  });

  it('concurrent calls all answer, the same as one at a time', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [];
    for (let i = 0; i < 6; i++) {
      calls.push(['grep', { pattern: `invoice ${i}`, max_tokens: 800 }], ['search', { query: `invoice_total_${i}` }], ['symbols', { name: `invoice_total_${i}` }], ['read', { path: 'cmd/main.go', start_line: i + 1 }]);
    }
    const together = await Promise.all(calls.map(([n, a]) => call(n, a)));
    for (let i = 0; i < calls.length; i++) {
      expect(together[i].isError, text(together[i])).toBeFalsy();
      const alone = await call(calls[i][0], calls[i][1]);
      expect(data(together[i])).toEqual(data(alone));
    }
  });

  it('an edit, a new file, a rename and a delete are in the next answer', async () => {
    writeFileSync(join(repo, 'web/server.ts'), FILES['web/server.ts'].replace('shutdown(): void {}', 'shutdownGracefully(): void {}'));
    let t0 = Date.now();
    const edited = await call('grep', { pattern: 'shutdownGracefully' });
    const editMs = Date.now() - t0;
    expect(data(edited).total_matches).toBe(1);
    expect(editMs).toBeLessThan(2000);
    expect((data(await call('symbols', { name: 'shutdownGracefully' })) as { total: number }).total).toBe(1);

    mkdirSync(join(repo, 'jobs'));
    writeFileSync(join(repo, 'jobs/cron.py'), 'def nightly_reconcile():\n    return "reconciled"\n');
    t0 = Date.now();
    const added = data(await call('search', { query: 'nightly_reconcile' })) as { results: Array<{ path: string }> };
    expect(added.results[0]?.path).toBe('jobs/cron.py');
    expect(Date.now() - t0).toBeLessThan(2000);

    renameSync(join(repo, 'src/lib.rs'), join(repo, 'src/cache.rs'));
    const renamed = data(await call('grep', { pattern: 'pub fn evict' })) as { lines: Array<{ path: string }> };
    expect(renamed.lines.map((l) => l.path)).toEqual(['src/cache.rs']);
    expect(text(await call('read', { path: 'src/lib.rs' }))).toMatch(/not in the index/);

    unlinkSync(join(repo, 'config/app.yaml'));
    expect(data(await call('grep', { pattern: 'retries: 3' })).total_matches).toBe(0);
    expect((data(await call('status')) as { codebases: Array<{ files: number; pending_changes: number }> }).codebases[0]).toMatchObject({ files: INDEXED.length, pending_changes: 0 });

    // status asks no run: a file written since is pending until a call indexes it.
    writeFileSync(join(repo, 'jobs/weekly.py'), 'def weekly_rollup():\n    return "rolled"\n');
    const pending = async () => (data(await call('status')) as { codebases: Array<{ pending_changes: number }> }).codebases[0].pending_changes;
    await until(async () => (await pending()) === 1, 10_000);
    expect((data(await call('search', { query: 'weekly_rollup' })) as { results: Array<{ path: string }> }).results[0]?.path).toBe('jobs/weekly.py');
    expect(await pending()).toBe(0);
  });

  it('an edit and a delete of indexed files are in the next answer (the run states only them); a changed ignore file walks again', async () => {
    appendFileSync(join(repo, 'billing/invoice.py'), '\n\ndef refund_ledger_zq(amount):\n    return -amount\n');
    const found = data(await call('search', { query: 'refund_ledger_zq' })) as { results: Array<{ path: string }> };
    expect(found.results[0]?.path).toBe('billing/invoice.py');
    unlinkSync(join(repo, 'cmd/main.go'));
    expect(data(await call('grep', { pattern: 'func ParseConfig' })).total_matches).toBe(0);
    expect((data(await call('symbols', { name: 'ParseConfig' })) as { total: number }).total).toBe(0);
    expect(stderr).toMatch(/edited files stated again, no walk/);
    // The runs that stated the two files changed nothing else: every other file is still there.
    expect(data(await call('grep', { pattern: 'Unicode: café' })).total_matches).toBe(1);
    // An ignore file's change: the folder it now ignores leaves the index.
    appendFileSync(join(repo, '.gitignore'), 'docs/\n');
    expect(data(await call('grep', { pattern: 'Unicode: café' })).total_matches).toBe(0);
    expect(data(await call('grep', { pattern: 'refund_ledger_zq' })).total_matches).toBe(1);
  });
});

describe('sift mcp on an existing index', () => {
  it('catches up with changes made while no server ran, and without watchers finds edits by a stat walk', async () => {
    await client.close();
    writeFileSync(join(repo, 'cmd/main.go'), FILES['cmd/main.go'].replace('ParseConfig reads', 'ParseConfig loads'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(ROOT, 'bin/sift'), 'mcp', repo, '--no-watch'],
      env: { ...process.env, SIFT_HOME: join(work, 'home'), SIFT_OFFLINE: '1' } as Record<string, string>,
      stderr: 'pipe',
    });
    client = new Client({ name: 'sift-test', version: '1.0.0' });
    await client.connect(transport);
    // The first call waits for the catch-up run: the index existed, so it is not "indexing".
    expect(data(await call('grep', { pattern: 'ParseConfig loads' })).total_matches).toBe(1);
    writeFileSync(join(repo, 'cmd/main.go'), FILES['cmd/main.go'].replace('ParseConfig reads', 'ParseConfig parses'));
    await new Promise((r) => setTimeout(r, 1600));
    expect(data(await call('grep', { pattern: 'ParseConfig parses' })).total_matches).toBe(1);
  });
});

describe('sift mcp over a plain pipe', () => {
  it('answers every request sent before stdin closes, then exits', () => {
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'grep', arguments: { pattern: 'HttpServer' } } },
    ];
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/sift'), 'mcp', repo, '--quiet'], {
      input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n', encoding: 'utf8', timeout: 60_000,
      env: { ...process.env, SIFT_HOME: join(work, 'home'), SIFT_OFFLINE: '1' },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: number; result: Record<string, unknown> });
    expect(out.map((m) => m.id)).toEqual([1, 2, 3]);
    expect((out[2].result.structuredContent as { total_matches: number }).total_matches).toBeGreaterThan(0);
  });
});

describe('sift mcp over two folders', () => {
  it('a first search in one codebase stores and waits for that codebase only', async () => {
    const a = join(work, 'two-first/alpha');
    const b = join(work, 'two-first/beta');
    bigTree(a, 600, 'omega');
    bigTree(b, 600, 'omega');
    const { c, err } = await serve([a, b], join(work, 'home-two-first'), { SIFT_MCP_LOG: '1' });
    try {
      const s = data(await c.callTool({ name: 'search', arguments: { query: 'omega_handler_0300_4', codebase: 'alpha' } })) as { results: Array<{ codebase: string; path: string }>; indexed_share: number };
      expect(s.results[0], err()).toMatchObject({ codebase: 'alpha', path: 'pkg00/m0300.py' });
      expect(s.indexed_share).toBeLessThan(1);
      expect(err()).toMatch(/alpha: stored \d+ files ahead of the first index for search "omega_handler_0300_4"/);
      // beta's first index was not asked to store that search's files (nor was the answer held for it).
      expect(err()).not.toMatch(/beta: stored \d+ files ahead of the first index for search/);
    } finally {
      await c.close();
    }
  }, 120_000);

  it('indexes both new folders at once, tags entries by codebase and asks which one when a path is in both', async () => {
    const a = join(work, 'two/alpha');
    const b = join(work, 'two/beta');
    for (const [dir, word] of [[a, 'alpha'], [b, 'beta']]) {
      bigTree(dir, 400, word); // 400 files, .gitignore and src/main.py: 402 indexed
      mkdirSync(join(dir, 'src'), { recursive: true });
      writeFileSync(join(dir, 'src/main.py'), `def run_${word}():\n    return "shared marker ${word}"\n`);
    }
    const transport = new StdioClientTransport({
      command: process.execPath, args: [join(ROOT, 'bin/sift'), 'mcp', a, b],
      env: { ...process.env, SIFT_HOME: join(work, 'home-two'), SIFT_OFFLINE: '1' } as Record<string, string>, stderr: 'pipe',
    });
    const two = new Client({ name: 'sift-test-two', version: '1.0.0' });
    await two.connect(transport);
    try {
      const callTwo = (name: string, args: Record<string, unknown>) => two.callTool({ name, arguments: args });
      const g = (await callTwo('grep', { pattern: 'shared marker' })).structuredContent as { total_matches: number; lines: Array<{ codebase: string; path: string }> };
      expect(g.total_matches).toBe(2);
      expect(g.lines.map((l) => `${l.codebase}:${l.path}`)).toEqual(['alpha:src/main.py', 'beta:src/main.py']);
      // Both are indexed at once: some moment finds both partly stored (one after the other, the
      // first is complete before the second stores a file).
      type St = { codebases: Array<{ name: string; files: number; state: string; indexed_share: number }> };
      let together = false;
      let st: St;
      do {
        const stR = await callTwo('status', {});
        expect(stR.isError, text(stR)).toBeFalsy();
        st = stR.structuredContent as St;
        together ||= st.codebases.every((c) => c.state === 'indexing' && c.indexed_share > 0);
        await new Promise((r) => setTimeout(r, 25));
      } while (st.codebases.some((c) => c.state === 'indexing'));
      expect(together).toBe(true);
      expect(st.codebases.map((c) => [c.name, c.state, c.files])).toEqual([['alpha', 'ready', 402], ['beta', 'ready', 402]]);
      expect(text(await callTwo('read', { path: 'src/main.py' }))).toMatch(/in several codebases \(alpha, beta\); give "codebase"/);
      expect((await callTwo('read', { path: 'src/main.py', codebase: 'beta' })).structuredContent).toMatchObject({ codebase: 'beta', content: expect.stringContaining('run_beta') });
    } finally {
      await two.close();
    }
  });
});

// ---- during the first index ---------------------------------------------------------------

/**
 * A folder big enough that its first index is still running when the first calls are answered
 * (`files` files of ~90 lines in 30 folders, Python, Go and TypeScript), plus what the walker
 * leaves out: an ignored folder, a secret, binary content, a link out of the root.
 */
function bigTree(dir: string, files: number, word: string): void {
  rmSync(dir, { recursive: true, force: true }); // (a retried test writes it again)
  for (let i = 0; i < files; i++) {
    const d = join(dir, `pkg${String(i % 30).padStart(2, '0')}`);
    mkdirSync(d, { recursive: true });
    const n = String(i).padStart(4, '0');
    const lines: string[] = [];
    if (i % 3 === 0) {
      for (let k = 0; k < 12; k++) lines.push(`def ${word}_handler_${n}_${k}(request, retries=${k}):`, `    """Handle ${word} request ${k} of module ${n}."""`, `    value = request.get("${word}_${k}")`, `    return value or retries  # TODO ${word} ${n}`, '', '');
    } else if (i % 3 === 1) {
      lines.push(`package pkg${i % 30}`, '', 'import "fmt"', '');
      for (let k = 0; k < 12; k++) lines.push(`// Dial${word}${n}x${k} dials ${word} endpoint ${k}.`, `func Dial${word}${n}x${k}(addr string) error {`, `\treturn fmt.Errorf("${word} %s: ${k}", addr)`, '}', '');
    } else {
      for (let k = 0; k < 12; k++) lines.push(`export function ${word}Render${n}_${k}(props: { id: number }): string {`, `  // TODO ${word} render ${k}`, `  return \`<div id="\${props.id}">${word} ${k}</div>\`;`, '}', '', '');
    }
    writeFileSync(join(d, `m${n}.${['py', 'go', 'ts'][i % 3]}`), lines.join('\n') + '\n');
  }
  writeFileSync(join(dir, '.gitignore'), 'build/\n');
  mkdirSync(join(dir, 'build'), { recursive: true });
  writeFileSync(join(dir, 'build/out.py'), `def ${word}_handler_built():\n    return 1  # TODO ${word}\n`);
  writeFileSync(join(dir, '.env'), `TOKEN=${word}_handler_secret TODO\n`);
  writeFileSync(join(dir, 'pkg00/blob.dat'), Buffer.concat([Buffer.from(`TODO ${word}\n`), Buffer.alloc(64), Buffer.from(`TODO ${word}\n`)]));
  writeFileSync(join(dir, '..', `${word}-outside.py`), `# TODO ${word} outside the root\n`);
  symlinkSync(join(dir, '..', `${word}-outside.py`), join(dir, 'pkg00/link-out.py'));
}

/** The files the index holds now: the walker's list (its rules), less binary content (the indexer's skip). */
async function walkedFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const f of walk(new NodeFileSource(dir))) if (!isProbablyBinary(readFileSync(join(dir, f.path)))) out.push(f.path);
  return out;
}

/** rg over exactly `files` of `dir`. */
function rgOver(dir: string, files: string[], pattern: string, o: { regex?: boolean; ignoreCase?: boolean } = {}): string[] {
  const r = spawnSync('rg', ['--no-config', '--sort', 'path', '-n', '--no-heading', '-H', ...(o.regex ? [] : ['-F']), ...(o.ignoreCase ? ['-i'] : []), '-e', pattern, '--', ...files], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status === 1) return [];
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean);
}

/** A fresh server over `dirs` (new indexes under `home`). */
async function serve(dirs: string[], home: string, env: Record<string, string> = {}): Promise<{ c: Client; err: () => string }> {
  let err = '';
  const transport = new StdioClientTransport({
    command: process.execPath, args: [join(ROOT, 'bin/sift'), 'mcp', ...dirs],
    env: { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1', ...env } as Record<string, string>, stderr: 'pipe',
  });
  const t0 = Date.now();
  transport.stderr?.on('data', (d: Buffer) => {
    err += `[${Date.now() - t0}] ${d.toString()}`;
  });
  const c = new Client({ name: 'sift-test-first', version: '1.0.0' });
  await c.connect(transport);
  return { c, err: () => err };
}

/** Every line of a grep over all pages, and the first page's answer. */
type GrepPage = Structured & { lines: Array<{ path: string; line: number; text?: string }>; with_text: number; indexed_share: number; total_matches: number; notes: string[] };
async function grepPages(c: Client, args: Record<string, unknown>): Promise<{ lines: string[]; first: GrepPage }> {
  const lines: string[] = [];
  let cursor: string | null = null;
  let first: GrepPage | null = null;
  for (let page = 0; page < 500; page++) {
    const r = await c.callTool({ name: 'grep', arguments: { ...args, ...(cursor ? { cursor } : {}) } });
    expect(r.isError, text(r)).toBeFalsy();
    const s = data(r) as GrepPage;
    first ??= s;
    lines.push(...s.lines.slice(0, s.with_text).map((l) => `${l.path}:${l.line}:${l.text}`));
    cursor = s.next_cursor;
    if (!cursor) return { lines, first };
  }
  throw new Error('too many pages');
}

describe('sift mcp during the first index', () => {
  it('grep equals rg over the walker\'s files and read serves files not stored yet, from the first call', async () => {
    const dir = join(work, 'first-grep/repo');
    bigTree(dir, 1500, 'gamma');
    const { c, err } = await serve([dir], join(work, 'home-first-grep'));
    try {
      const files = await walkedFiles(dir);
      const cases: Array<[string, { regex?: boolean; ignoreCase?: boolean }]> = [
        ['TODO gamma 0', {}], ['func Dialgamma\\d+x1\\(', { regex: true }], ['GAMMA_HANDLER_0001', { ignoreCase: true }], ['outside the root', {}],
      ];
      let during = 0;
      for (const [pattern, o] of cases) {
        const { lines, first } = await grepPages(c, { pattern, regex: !!o.regex, ignore_case: !!o.ignoreCase, limit: 400, max_tokens: 20_000 });
        if (first.indexed_share < 1) during++;
        expect(lines, pattern).toEqual(rgOver(dir, files, pattern, o));
        expect(first.total_matches, pattern).toBe(lines.length);
      }
      // The folder is big enough that at least the first answers came while it was indexed.
      expect(during, err()).toBeGreaterThan(0);
      // read: the last file of the walk, long before the index reaches it.
      const last = files.filter((f) => f.endsWith('.ts')).at(-1)!;
      const r = await c.callTool({ name: 'read', arguments: { path: last, max_tokens: 20_000 } });
      expect(r.isError, text(r)).toBeFalsy();
      expect((data(r) as { content: string }).content).toBe(readFileSync(join(dir, last), 'utf8').replace(/\n$/, ''));
      expect((data(r) as { indexed_share: number }).indexed_share).toBeLessThan(1);
      for (const path of ['pkg00/link-out.py', '.env', 'build/out.py', 'pkg00/blob.dat', '../gamma-outside.py']) {
        const e = await c.callTool({ name: 'read', arguments: { path } });
        expect(e.isError, path).toBe(true);
        expect(text(e)).not.toMatch(/outside the root\n|secret TODO/);
      }
    } finally {
      await c.close();
    }
  }, 120_000);

  // Both ways a first answer finds its files: the scan thread started with the server (main.ts,
  // mcp-first-scan.ts), and the main thread's own walk and scan (no idle core at start).
  for (const scan of ['1', '0'] as const) it(`the first search and symbols answer from the files they are about, stored ahead of the run (scan thread ${scan === '1' ? 'on' : 'off'})`, async () => {
    const dir = join(work, `first-search-${scan}/repo`);
    bigTree(dir, 1500, 'epsilon');
    // Late in the walk's order: the run reaches it last.
    writeFileSync(join(dir, 'pkg29/zz_quasar.py'), 'def quasar_ledger_checksum(ledger):\n    """Checksum of a quasar ledger."""\n    return sum(ledger) % 97\n');
    writeFileSync(join(dir, 'pkg29/zz_pulsar.go'), 'package pkg29\n\n// PulsarTimingSkew returns the skew.\nfunc PulsarTimingSkew(a, b int) int {\n\treturn a - b\n}\n');
    const { c, err } = await serve([dir], join(work, `home-first-search-${scan}`), { SIFT_MCP_LOG: '1', SIFT_MCP_FIRST_SCAN: scan });
    try {
      // The server's first call: no wait for the run to come to the file.
      const s = data(await c.callTool({ name: 'search', arguments: { query: 'quasar ledger checksum' } })) as { results: Array<{ path: string }>; indexed_share: number };
      expect(s.results[0]?.path, err()).toBe('pkg29/zz_quasar.py');
      expect(s.indexed_share, err()).toBeLessThan(1);
      // (The files came from the scan thread, or from this thread's walk.)
      expect(err()).toMatch(scan === '1' ? /ahead of the first index for search "quasar ledger checksum" \(first scan thread/ : /ahead of the first index for search "quasar ledger checksum" \(walk/);
      // symbols by name: the definition, as tree-sitter cuts it.
      const sym = data(await c.callTool({ name: 'symbols', arguments: { name: 'PulsarTimingSkew' } })) as { symbols: Array<{ path: string; kind: string }>; indexed_share: number };
      expect(sym.symbols[0], err()).toMatchObject({ path: 'pkg29/zz_pulsar.go', kind: 'function' });
      expect(sym.indexed_share, err()).toBeLessThan(1);
      // The complete index holds every file once, chunked by the run (no file left as stored ahead).
      await until(async () => (data(await c.callTool({ name: 'status', arguments: {} })) as { codebases: Array<{ state: string }> }).codebases[0].state === 'ready', 120_000);
      const st = (data(await c.callTool({ name: 'status', arguments: {} })) as { codebases: Array<{ files: number; pending_changes: number }> }).codebases[0];
      expect(st.files).toBe((await walkedFiles(dir)).length);
      expect(st.pending_changes, err()).toBe(0);
      const after = data(await c.callTool({ name: 'search', arguments: { query: 'quasar ledger checksum' } })) as { results: Array<{ path: string }> };
      expect(after.results[0]?.path).toBe('pkg29/zz_quasar.py');
    } finally {
      await c.close();
    }
  }, 180_000);

  it('a file written and a file edited during the first index are found by search and grep before the index ends', async () => {
    const dir = join(work, 'first-edit/repo');
    bigTree(dir, 1500, 'delta');
    // (SIFT_MCP_LOG: the server's timeline is in the message when this fails.)
    const { c, err } = await serve([dir], join(work, 'home-first-edit'), { SIFT_MCP_LOG: '1' });
    try {
      // The server is up and indexing, and its walk has passed pkg00 (some files are stored; it
      // lists folders in order): a file written into a folder not listed yet is simply walked.
      await until(async () => {
        const st = (data(await c.callTool({ name: 'status', arguments: {} })) as { codebases: Array<{ state: string; files: number }> }).codebases[0];
        expect(st.state, err()).toBe('indexing');
        return st.files > 0;
      }, 60_000);
      writeFileSync(join(dir, 'pkg00/added.py'), 'def zebra_quokka_reconcile(ledger):\n    return ledger.balance()\n');
      writeFileSync(join(dir, 'pkg00/m0000.py'), readFileSync(join(dir, 'pkg00/m0000.py'), 'utf8') + '\ndef walrus_narwhal_settle():\n    return 42\n');
      const written = Date.now();
      // An agent's next search and next grep find both, ahead of the run (polled side by side). The
      // 2 s target is a budget, measured by bench/mcp.ts; here a loaded CI machine gets 10 s.
      const found = async (tool: 'search' | 'grep', marker: string, path: string): Promise<number> => {
        await until(async () => {
          if (tool === 'grep') return (data(await c.callTool({ name: 'grep', arguments: { pattern: marker } })) as { lines: Array<{ path: string }> }).lines.map((l) => l.path).join() === path;
          return (data(await c.callTool({ name: 'search', arguments: { query: marker } })) as { results: Array<{ path: string }> }).results[0]?.path === path;
        }, EDIT_FOUND_MS);
        return Date.now() - written;
      };
      const times = await Promise.all((['search', 'grep'] as const).flatMap((tool) => [found(tool, 'zebra_quokka_reconcile', 'pkg00/added.py'), found(tool, 'walrus_narwhal_settle', 'pkg00/m0000.py')]));
      for (const t of times) expect(t, err()).toBeLessThan(EDIT_FOUND_MS);
      // Still indexing: these came ahead of the run, not after it.
      expect((data(await c.callTool({ name: 'status', arguments: {} })) as { codebases: Array<{ state: string }> }).codebases[0].state).toBe('indexing');
      // Once the index is complete, the edit is there as the run's chunker cuts it.
      await until(async () => (data(await c.callTool({ name: 'status', arguments: {} })) as { codebases: Array<{ state: string; pending_changes: number }> }).codebases[0].pending_changes === 0, 120_000);
      const sym = data(await c.callTool({ name: 'symbols', arguments: { name: 'walrus_narwhal_settle' } })) as { symbols: Array<{ path: string; kind: string }> };
      expect(sym.symbols[0]).toMatchObject({ path: 'pkg00/m0000.py', kind: 'function' });
    } finally {
      await c.close();
    }
  }, 180_000);

  it('a file deleted and a file renamed during the first index leave search before the index ends', async () => {
    const dir = join(work, 'first-gone/repo');
    bigTree(dir, 1500, 'kappa');
    const { c, err } = await serve([dir], join(work, 'home-first-gone'), { SIFT_MCP_LOG: '1' });
    const paths = async (query: string) => (data(await c.callTool({ name: 'search', arguments: { query } })) as { results: Array<{ path: string }> }).results.map((r) => r.path);
    try {
      // Both files are in the index (a search stores what it finds ahead of the run).
      expect(await paths('kappa_handler_0030_5'), err()).toContain('pkg00/m0030.py');
      expect(await paths('kappa_handler_0060_5'), err()).toContain('pkg00/m0060.py');
      unlinkSync(join(dir, 'pkg00/m0030.py'));
      renameSync(join(dir, 'pkg00/m0060.py'), join(dir, 'pkg00/moved.py'));
      await until(async () => !(await paths('kappa_handler_0030_5')).includes('pkg00/m0030.py'), EDIT_FOUND_MS);
      await until(async () => {
        const p = await paths('kappa_handler_0060_5');
        return p[0] === 'pkg00/moved.py' && !p.includes('pkg00/m0060.py');
      }, EDIT_FOUND_MS);
      const g = data(await c.callTool({ name: 'grep', arguments: { pattern: 'def kappa_handler_00[36]0_5\\(', regex: true } })) as { lines: Array<{ path: string }> };
      expect(g.lines.map((l) => l.path)).toEqual(['pkg00/moved.py']);
      // Still indexing: these came ahead of the run, not after it.
      expect((data(await c.callTool({ name: 'status', arguments: {} })) as { codebases: Array<{ state: string }> }).codebases[0].state, err()).toBe('indexing');
      // The complete index holds neither old path.
      await until(async () => (data(await c.callTool({ name: 'status', arguments: {} })) as { codebases: Array<{ state: string; pending_changes: number }> }).codebases[0].pending_changes === 0, 120_000);
      expect(await paths('kappa_handler_0030_5')).not.toContain('pkg00/m0030.py');
      expect((await paths('kappa_handler_0060_5'))[0]).toBe('pkg00/moved.py');
    } finally {
      await c.close();
    }
  }, 180_000);

  it('while the first index walks, indexed_share counts the folder\'s files, not the files the walk has found so far', async () => {
    // A walk slower than the run's stores: many folders, each with its own ignore rules and one small file.
    const dir = join(work, 'first-share/repo');
    rmSync(dir, { recursive: true, force: true });
    for (let i = 0; i < 3000; i++) {
      const d = join(dir, `a${i % 10}`, `b${Math.floor(i / 10) % 30}`, `c${i}`);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, '.gitignore'), Array.from({ length: 40 }, (_, k) => `gen${k}_*/\n*.tmp${k}\n`).join(''));
      writeFileSync(join(d, `f${i}.py`), `def lambda_fn_${i}():\n    return ${i}\n`);
    }
    const { c, err } = await serve([dir], join(work, 'home-first-share'));
    try {
      const files = (await walkedFiles(dir)).length;
      const t0 = Date.now();
      let seen = 0;
      for (;;) {
        const st = (data(await c.callTool({ name: 'status', arguments: {} })) as { codebases: Array<{ state: string; indexed_share: number; files: number }> }).codebases[0];
        if (st.state !== 'indexing' || Date.now() - t0 > 20_000) break;
        // (files: the run's stored files so far.)
        if (st.files > 0) {
          seen++;
          expect(st.indexed_share, `${st.files} of ${files} files stored\n${err()}`).toBeLessThanOrEqual(st.files / files + 0.02);
        }
        await new Promise((r) => setTimeout(r, 300));
      }
      expect(seen, err()).toBeGreaterThan(0);
    } finally {
      await c.close();
    }
  }, 180_000);
});

describe('sift mcp with embeddings', () => {
  const TINY = join(ROOT, 'models/generated/tiny');
  it.skipIf(!existsSync(join(TINY, 'config.json')))('loads the semantic leg of an embedded index in the background: hybrid and semantic answers', async () => {
    const dir = join(work, 'embedded');
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'src/upload.py'), 'def retry_failed_upload(path):\n    """Send the file again after a network error."""\n    return send(path)\n');
    writeFileSync(join(dir, 'src/cache.py'), 'def evict_oldest(cache):\n    """Drop the least recently used entry."""\n    cache.pop()\n');
    const home = join(work, 'home-embedded');
    const idx = spawnSync(process.execPath, [join(ROOT, 'bin/sift'), 'index', dir, '--model', TINY, '--quiet'], {
      encoding: 'utf8', timeout: 120_000, env: { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1' },
    });
    expect(idx.status, idx.stderr).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath, args: [join(ROOT, 'bin/sift'), 'mcp', dir],
      env: { ...process.env, SIFT_HOME: home, SIFT_OFFLINE: '1' } as Record<string, string>, stderr: 'pipe',
    });
    const c = new Client({ name: 'sift-test-embedded', version: '1.0.0' });
    await c.connect(transport);
    try {
      const search = async (args: Record<string, unknown>) => (await c.callTool({ name: 'search', arguments: args })).structuredContent as { strategy: string; embedded_share: number; results: Array<{ path: string }>; notes: string[] };
      await until(async () => (await search({ query: 'retry failed upload' })).strategy === 'hybrid', 60_000);
      const h = await search({ query: 'retry failed upload' });
      expect(h.embedded_share).toBe(1);
      expect(h.results[0].path).toBe('src/upload.py');
      const v = await search({ query: 'send again after a network error', mode: 'semantic' });
      expect(v.strategy).toBe('vector_only');
      expect(v.notes.join(' ')).not.toMatch(/unavailable/);
    } finally {
      await c.close();
    }
  });
});

