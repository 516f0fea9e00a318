/**
 * `sift mcp [dir ...]` (issue 26): a Model Context Protocol server over stdio serving the
 * agent tools of src/core/tools (search, grep, read, symbols, status) over one or more
 * codebases, from the indexes the CLI keeps (~/.sift, or --db for one folder). Each folder
 * is indexed or caught up in the background and kept fresh (mcp-codebase.ts).
 *
 * The wire (mcp-wire.ts): MCP's stdio JSON-RPC with the core's JSON Schemas as they are
 * (inputSchema, outputSchema, annotations with readOnlyHint); results carry `structuredContent`
 * and a text rendering; a bad argument is a result with `isError`, never a protocol error or a
 * crash. stdout carries only protocol messages: console output is sent to stderr.
 */
import { StdioWire, type ToolResult } from './mcp-wire.ts';
import { TOOL_DEFINITIONS } from '../core/tools/contract.ts';
import { callTool, codebasesNamed, type ToolHost } from '../core/tools/run.ts';
import { CliError, indexPaths, safeText } from './context.ts';
import { codebaseNames, ServedCodebase, type ServeOptions } from './mcp-codebase.ts';
import type { FirstScan } from './mcp-first-scan.ts';

export const SERVER_NAME = 'sift';
export const SERVER_VERSION = '0.1.0';

const INSTRUCTIONS = `Sift searches the codebases listed by the status tool, locally, from an index kept fresh as files change.
Use search for ranked snippets (definitions, identifiers, questions), grep for every line matching a string or regex, symbols for where a name is defined or a file's outline, read for a file's lines.
Every answer fits max_tokens (default 4000); pass next_cursor back with the same arguments for more. Paths are relative to the codebase root.`;

export interface McpCliOptions {
  db?: string;
  maxFileSize?: number;
  ignore?: string[];
  include?: string[];
  watch: boolean;
  quiet: boolean;
  /** --model: embed new chunks with this model in the background. */
  model?: string;
  /** Per folder: its first scan thread, started by main.ts when it had no index file (mcp-first-scan.ts), or null. */
  firstScans?: ReadonlyArray<FirstScan | null>;
}

/** The tool definitions as MCP lists them. */
export function mcpTools(): Array<Record<string, unknown>> {
  return TOOL_DEFINITIONS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    annotations: t.annotations,
  }));
}

export async function runMcp(dirs: string[], o: McpCliOptions): Promise<number> {
  if (o.db && dirs.length > 1) {
    for (const s of o.firstScans ?? []) s?.dispose();
    throw new CliError('--db names the index of one folder; serve several folders without it (each keeps its index under ~/.sift)', 2);
  }
  // Nothing but protocol messages on stdout.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  // SIFT_MCP_LOG: every line says when it was written, in ms since the process started.
  const timed = !!process.env.SIFT_MCP_LOG;
  const log = (line: string): void => {
    if (!o.quiet) process.stderr.write(`sift mcp: ${timed ? `[${Math.round(performance.now())} ms] ` : ''}${safeText(line)}\n`);
  };
  if (timed) log('loaded');
  const serve: ServeOptions = { maxFileSize: o.maxFileSize, ignore: o.ignore, include: o.include, watch: o.watch, model: o.model, log };
  const names = codebaseNames(dirs);
  // Every folder opens and indexes at once (store/sqlite.ts openOneAtATime made that safe).
  const codebases = await Promise.all(dirs.map((d, i) => ServedCodebase.open(names[i], indexPaths(d, o.db), serve, o.firstScans?.[i] ?? null)));
  if (timed) log('indexes open');
  const host: ToolHost = {
    codebases: () => codebases,
    // Only the codebases the call is about: a first answer in one folder does not wait for another's.
    beforeCall: async (tool, wants) => {
      await Promise.all(codebasesNamed(codebases, wants.codebase).map((c) => c.beforeCall(tool, wants)));
    },
  };

  // The client closing stdin ends the session, once the calls it sent are answered (StdioWire).
  const wire = new StdioWire(process.stdin, process.stdout, {
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    instructions: INSTRUCTIONS,
    tools: mcpTools,
    // While the client takes the reply in, a first index's view of the folder is walked (ServedCodebase.prepare).
    initialized: () => {
      for (const c of codebases) c.prepare();
    },
    call: async (name, args): Promise<ToolResult> => {
      const t0 = performance.now();
      const a = await callTool(host, name, args);
      if (process.env.SIFT_MCP_LOG) log(`${name} ${a.isError ? 'error' : 'ok'} in ${(performance.now() - t0).toFixed(1)} ms`);
      return a.isError || !a.structuredContent
        ? { content: [{ type: 'text', text: a.text }], isError: true }
        : { content: [{ type: 'text', text: a.text }], structuredContent: a.structuredContent as Record<string, unknown> };
    },
  });
  const stop = (): void => wire.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  log(`serving ${codebases.map((c) => `${c.name} (${c.root})`).join(', ')} over stdio`);
  for (const c of codebases) c.start();
  await wire.closed;
  await Promise.all(codebases.map((c) => c.close()));
  return 0;
}
