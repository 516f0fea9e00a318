/**
 * The app's WebMCP tools (issue 26), driven like a browser agent drives them: Chromium with
 * `--enable-features=WebMCPTesting`, the DevTools protocol's WebMCP domain (`WebMCP.enable`,
 * the `toolsAdded` event, `WebMCP.invokeTool` → `toolResponded`). Off by default: no tool until
 * "Let browser agents search …" is ticked; the same five tools, schemas and budgets as
 * `sift mcp`; grep's lines equal ripgrep's; a path out of the root refused; every call shown
 * in the log panel; unticking removes the tools.
 */
import { test, expect, type CDPSession, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CHROMIUM_ARGS } from '../../playwright.config.ts';
import { installPicker, readFixture } from './helpers/opfs-fixture.ts';
import { resetApp, waitIndexed } from './helpers/app.ts';
import { TOOL_DEFINITIONS } from '../../src/core/tools/contract.ts';

test.use({
  launchOptions: { executablePath: process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--enable-features=WebMCPTesting'] },
});

const fixture = readFixture('test/fixtures/repo-small');
const FILES = Object.keys(fixture.files).length;

let copy: string;
test.beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'sift-e2e-webmcp-'));
  for (const [p, b64] of Object.entries(fixture.files)) {
    mkdirSync(dirname(join(copy, p)), { recursive: true });
    writeFileSync(join(copy, p), Buffer.from(b64, 'base64'));
  }
});
test.afterAll(() => rmSync(copy, { recursive: true, force: true }));

interface WebMcpTool {
  name: string;
  description: string;
  inputSchema: unknown;
  annotations?: { readOnlyHint?: boolean };
  frameId: string;
}

/** The agent's side: the WebMCP domain of the DevTools protocol. */
class Agent {
  tools = new Map<string, WebMcpTool>();
  #responses = new Map<string, { status: string; output: unknown }>();

  private constructor(readonly cdp: CDPSession) {}

  static async attach(page: Page): Promise<Agent> {
    const cdp = await page.context().newCDPSession(page);
    const a = new Agent(cdp);
    cdp.on('WebMCP.toolsAdded' as never, (e: { tools: WebMcpTool[] }) => {
      for (const t of e.tools) a.tools.set(t.name, t);
    });
    cdp.on('WebMCP.toolsRemoved' as never, (e: { tools?: Array<{ name: string }>; names?: string[] }) => {
      for (const n of [...(e.tools?.map((t) => t.name) ?? []), ...(e.names ?? [])]) a.tools.delete(n);
    });
    cdp.on('WebMCP.toolResponded' as never, (e: { invocationId: string; status: string; output: unknown }) => {
      a.#responses.set(e.invocationId, e);
    });
    await cdp.send('WebMCP.enable' as never);
    return a;
  }

  /** Invokes a tool and returns what `execute` returned (the MCP-shaped result). */
  async call(name: string, input: Record<string, unknown>): Promise<{ content: Array<{ text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean }> {
    const tool = this.tools.get(name);
    expect(tool, `tool ${name} registered`).toBeTruthy();
    const { invocationId } = (await this.cdp.send('WebMCP.invokeTool' as never, { frameId: tool!.frameId, toolName: name, input } as never)) as { invocationId: string };
    await expect.poll(() => this.#responses.has(invocationId), { timeout: 30_000 }).toBe(true);
    const r = this.#responses.get(invocationId)!;
    expect(r.status).toBe('Completed');
    return (typeof r.output === 'string' ? JSON.parse(r.output) : r.output) as never;
  }
}

function rg(pattern: string, opts: { fixed?: boolean } = {}): string[] {
  const r = spawnSync('rg', ['--no-config', '-n', '--no-heading', '-H', '--hidden', '--no-ignore', ...(opts.fixed ? ['-F'] : []), '-e', pattern, '.'], { cwd: copy, encoding: 'utf8' });
  if (r.status === 1) return [];
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).map((l) => l.replace(/^\.\//, '')).sort();
}

const tokensOf = (r: unknown) => Math.ceil(Buffer.byteLength(JSON.stringify(r), 'utf8') / 3);

test.beforeEach(async ({ page }) => {
  await installPicker(page, { default: fixture });
  await resetApp(page);
});

test('browser agents get the five tools only for a ticked codebase, and every call is shown', async ({ page }) => {
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'repo-small', FILES);
  const agent = await Agent.attach(page);

  // Off by default: the checkbox is there, unticked, and the page offers no tool.
  const toggle = page.getByRole('checkbox', { name: /^Let browser agents search repo-small/ });
  await expect(toggle).not.toBeChecked();
  await expect(page.getByTestId('agent-log')).toContainText('Off.');
  expect(await page.evaluate(async () => (await (document as unknown as { modelContext: { getTools(): Promise<unknown[]> } }).modelContext.getTools()).length)).toBe(0);
  expect(agent.tools.size).toBe(0);

  await toggle.check();
  await expect.poll(() => [...agent.tools.keys()].sort()).toEqual(['grep', 'read', 'search', 'status', 'symbols']);
  for (const def of TOOL_DEFINITIONS) {
    const t = agent.tools.get(def.name)!;
    const schema = typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : t.inputSchema;
    expect(schema, def.name).toEqual(def.inputSchema);
    expect(t.description).toBe(def.description);
  }
  await expect(page.getByTestId('agent-exposed')).toContainText('repo-small');

  const status = await agent.call('status', {});
  expect(status.structuredContent?.codebases).toEqual([expect.objectContaining({ name: 'repo-small', state: 'ready', files: FILES })]);

  const search = await agent.call('search', { query: 'RateLimiter allow' });
  const results = search.structuredContent?.results as Array<{ path: string }>;
  expect(results[0].path).toBe('api/handlers.py');
  expect(tokensOf(search)).toBeLessThanOrEqual(4000);

  // A result whose file's other definitions were folded into it says where they are, with the
  // lines of each (the same field `sift mcp` gives), and the text answer names them too.
  const folded = await agent.call('search', { query: 'parse duration queue' });
  const top = (folded.structuredContent?.results as Array<{ path: string; symbol?: string; more_in_file?: number; also_in_file?: Array<{ start_line: number; end_line: number; kind: string; symbol?: string }> }>)[0];
  expect(top).toMatchObject({ path: 'pkg/queue/queue.go', symbol: 'ParseDuration' });
  expect(top.also_in_file).toContainEqual({ start_line: 16, end_line: 20, kind: expect.any(String), symbol: 'Queue' });
  expect(top.also_in_file!.length).toBeLessThanOrEqual(top.more_in_file!);
  expect(folded.content[0].text).toContain('also in this file:');

  // grep: the lines (path:line:text) ripgrep prints, within the budget.
  const grep = await agent.call('grep', { pattern: 'task', limit: 2000, max_tokens: 20_000 });
  const lines = (grep.structuredContent?.lines as Array<{ path: string; line: number; text: string }>).map((l) => `${l.path}:${l.line}:${l.text}`).sort();
  expect(lines.length).toBeGreaterThan(20);
  expect(lines).toEqual(rg('task', { fixed: true }));
  expect(grep.structuredContent?.total_matches).toBe(lines.length);

  const small = await agent.call('grep', { pattern: 'e', max_tokens: 500 });
  expect(tokensOf(small)).toBeLessThanOrEqual(500);
  expect(small.structuredContent?.next_cursor).toEqual(expect.any(String));

  const read = await agent.call('read', { path: 'api/handlers.py', start_line: 19, end_line: 20 });
  expect(read.structuredContent).toMatchObject({ path: 'api/handlers.py', start_line: 19, end_line: 20 });
  expect(read.content[0].text).toContain('19  class RateLimiter');

  const sym = await agent.call('symbols', { name: 'RateLimiter' });
  expect((sym.structuredContent?.symbols as Array<Record<string, unknown>>)[0]).toMatchObject({ name: 'RateLimiter', kind: 'class', path: 'api/handlers.py', start_line: 19 });

  const out = await agent.call('read', { path: '../../etc/passwd' });
  expect(out.isError).toBe(true);
  expect(out.content[0].text).toMatch(/leaves the codebase root/);
  const bad = await agent.call('grep', { pattern: 'a(', regex: true });
  expect(bad.isError).toBe(true);
  expect(bad.content[0].text).toMatch(/invalid pattern/);

  // The log panel shows each call and what it returned.
  const calls = page.getByTestId('agent-call');
  await expect(calls).toHaveCount(9);
  await expect(calls.first()).toHaveAttribute('data-tool', 'grep');
  await expect(calls.first()).toHaveAttribute('data-state', 'error');
  const grepRow = page.locator('[data-testid=agent-call][data-tool=grep][data-state=ok]').last();
  await grepRow.getByText('Returned').click();
  await expect(grepRow.getByTestId('agent-call-output')).toContainText(`grep "task" (exact) · ${lines.length} matching lines`);
  await grepRow.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/webmcp-log.png', fullPage: true });

  // Unticking takes the tools away again.
  await toggle.uncheck();
  await expect.poll(() => page.evaluate(async () => (await (document as unknown as { modelContext: { getTools(): Promise<unknown[]> } }).modelContext.getTools()).length)).toBe(0);
  await expect(page.getByTestId('agent-log')).toContainText('Off.');
});
