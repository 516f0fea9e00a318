/**
 * Browser agents (issue 26, WebMCP): where the browser offers a model context
 * (`document.modelContext`, or `navigator.modelContext`), the app registers the same five
 * read-only tools the CLI's MCP server has — names, schemas and budgets from the core's
 * contract (src/core/tools), answered by the store worker through the same `callTool`.
 *
 * Privacy: a browser agent may send what it reads to its own model, so this is OFF until the
 * person ticks "Let browser agents search <name>" on a codebase; only ticked codebases are
 * searched, and the tools are registered only while at least one is ticked (unregistered,
 * by aborting their signal, when the last is unticked or removed). Every call is logged here
 * (when, which tool, the input, what it returned) for the panel that shows them.
 */
import { bridge } from '../bridges/workers.ts';
import { codebases } from './codebases.svelte.ts';
import { TOOL_DEFINITIONS } from '../../core/tools/contract.ts';
import { answerTokens } from '../../core/tools/budget.ts';
import type { AgentCodebase } from '../../../workers/store/api.ts';

const ENABLED_KEY = 'sift:agent-codebases';
/** Calls kept in the log. */
export const AGENT_LOG_SIZE = 30;

/** What Chromium's WebMCP (WebMCPTesting) offers a page; the W3C draft's shape. */
interface ModelContext {
  registerTool(
    tool: {
      name: string;
      title?: string;
      description: string;
      inputSchema: object;
      annotations?: object;
      execute: (input: unknown) => Promise<unknown>;
    },
    options?: { signal?: AbortSignal },
  ): unknown;
}

export interface AgentCall {
  id: number;
  at: Date;
  tool: string;
  input: unknown;
  state: 'running' | 'ok' | 'error';
  /** The text the agent got (its structured content travels too). */
  text: string;
  tokens: number | null;
  ms: number | null;
}

/** The page's model context, if the browser has one. */
export function modelContext(): ModelContext | null {
  const d = (typeof document !== 'undefined' ? (document as unknown as { modelContext?: ModelContext }).modelContext : undefined) ?? null;
  const n = (typeof navigator !== 'undefined' ? (navigator as unknown as { modelContext?: ModelContext }).modelContext : undefined) ?? null;
  const mc = d ?? n;
  return mc && typeof mc.registerTool === 'function' ? mc : null;
}

function load(): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(ENABLED_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

class AgentTools {
  #available = $state(false);
  #enabled = $state.raw<string[]>([]);
  #log = $state.raw<AgentCall[]>([]);
  #registered: AbortController | null = null;
  #started = false;
  #next = 1;

  get available(): boolean {
    return this.#available;
  }

  get log(): AgentCall[] {
    return this.#log;
  }

  /** Codebases open to browser agents (existing ones only). */
  get enabled(): string[] {
    const ids = new Set(codebases.list.map((v) => v.record.id));
    return this.#enabled.filter((id) => ids.has(id));
  }

  get registered(): boolean {
    return this.#registered !== null;
  }

  isEnabled(id: string): boolean {
    return this.#enabled.includes(id);
  }

  /** Once, after the codebases are loaded: read the ticks and keep the registration in step. */
  init(): void {
    if (this.#started) return;
    this.#started = true;
    this.#available = modelContext() !== null;
    this.#enabled = load();
    $effect.root(() => {
      $effect(() => {
        void this.enabled.length;
        this.#sync();
      });
    });
  }

  setEnabled(id: string, on: boolean): void {
    const next = this.#enabled.filter((x) => x !== id);
    if (on) next.push(id);
    this.#enabled = next;
    localStorage.setItem(ENABLED_KEY, JSON.stringify(next));
  }

  clearLog(): void {
    this.#log = [];
  }

  #sync(): void {
    const mc = modelContext();
    const want = mc !== null && this.enabled.length > 0;
    if (want && !this.#registered) {
      const ac = new AbortController();
      try {
        for (const t of TOOL_DEFINITIONS) {
          mc!.registerTool(
            { name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations, execute: (input) => this.#execute(t.name, input) },
            { signal: ac.signal },
          );
        }
        this.#registered = ac;
      } catch (e) {
        ac.abort();
        console.error('Sift: could not register the WebMCP tools', e);
      }
    } else if (!want && this.#registered) {
      this.#registered.abort();
      this.#registered = null;
    }
  }

  /** The codebases a call sees: the ticked ones, named uniquely, with their indexing state. */
  #served(): AgentCodebase[] {
    const seen: Record<string, number> = {};
    return this.enabled.flatMap((id) => {
      const v = codebases.byId(id);
      if (!v) return [];
      const n = (seen[v.record.name] ?? 0) + 1;
      seen[v.record.name] = n;
      const p = v.job?.kind === 'index' ? v.job.progress?.status : null;
      const share = p && p.totalFiles > 0 ? Math.min(0.999, p.indexedFiles / p.totalFiles) : v.job?.kind === 'index' ? 0 : 1;
      return [{ id, name: n === 1 ? v.record.name : `${v.record.name}-${n}`, indexing: v.job?.kind === 'index', indexedShare: share }];
    });
  }

  async #execute(tool: string, rawInput: unknown): Promise<unknown> {
    // Some agents pass the arguments as a JSON string.
    let input = rawInput;
    if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch {
        // left as is: the tool says what is wrong
      }
    }
    const entry: AgentCall = { id: this.#next++, at: new Date(), tool, input, state: 'running', text: '', tokens: null, ms: null };
    this.#log = [entry, ...this.#log].slice(0, AGENT_LOG_SIZE);
    const t0 = performance.now();
    let result: { content: Array<{ type: 'text'; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
    try {
      const a = await bridge.agentTool(tool, input, this.#served());
      result = a.isError || !a.structuredContent
        ? { content: [{ type: 'text', text: a.text }], isError: true }
        : { content: [{ type: 'text', text: a.text }], structuredContent: a.structuredContent };
      this.#finish(entry, a.isError ? 'error' : 'ok', a.text, a.structuredContent ? answerTokens(a.text, a.structuredContent) : null, performance.now() - t0);
    } catch (e) {
      const text = `error: ${e instanceof Error ? e.message : String(e)}`;
      result = { content: [{ type: 'text', text }], isError: true };
      this.#finish(entry, 'error', text, null, performance.now() - t0);
    }
    return result;
  }

  #finish(entry: AgentCall, state: AgentCall['state'], text: string, tokens: number | null, ms: number): void {
    this.#log = this.#log.map((c) => (c.id === entry.id ? { ...c, state, text, tokens, ms } : c));
  }
}

export const agentTools = new AgentTools();
