/**
 * A generated project for the user-journey tests: a few hundred files in several languages,
 * shaped like a real service (an Elixir web app, Python workers, a Go CLI, a TypeScript front
 * end, a Rust crate, their tests, docs and config), with documented definitions, modules,
 * classes, methods and long doc comments. Deterministic: the same files on every run, written
 * by this code (no third-party source is copied into the project).
 *
 * Known contents the journeys rely on (JOURNEY_FACTS): a documented `send_response` whose doc
 * is longer than the preview folds, words that match more than 20 files, and a module with
 * several definitions for the viewer's outline.
 */
import type { FixtureFolder } from './opfs-fixture.ts';

/** Deterministic choice from a list (a tiny LCG, seeded per file). */
function picker(seed: number) {
  let s = seed >>> 0 || 1;
  return <T>(list: readonly T[]): T => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return list[s % list.length];
  };
}

const NOUNS = ['account', 'invoice', 'session', 'order', 'payment', 'profile', 'report', 'shipment', 'ticket', 'webhook', 'upload', 'message', 'schedule', 'audit', 'token', 'quota'] as const;
const VERBS = ['load', 'store', 'validate', 'render', 'sync', 'export', 'archive', 'refresh', 'resolve', 'notify'] as const;
const DOC = [
  'Reads the settings from the environment and falls back to the defaults.',
  'Retries with exponential backoff when the upstream answers 503.',
  'Keeps the cache warm so the first request after a deploy is fast.',
  'Rejects input that is longer than the configured limit.',
  'Writes an audit entry for every change an operator makes.',
  'The result is sorted by creation time, newest first.',
] as const;

const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
const camel = (a: string, b: string) => a + cap(b);

function elixirModule(i: number): [string, string] {
  const pick = picker(i * 7 + 1);
  const noun = NOUNS[i % NOUNS.length];
  const mod = `Shop.${cap(noun)}s${i >= NOUNS.length ? i : ''}`;
  const fns = [0, 1, 2, 3].map((j) => {
    const verb = VERBS[(i + j * 3) % VERBS.length];
    return `  @doc """
  ${cap(verb)}s the ${noun} with the given attributes.

  ${pick(DOC)}
  """
  def ${verb}_${noun}(attrs, opts \\\\ []) do
    timeout = Keyword.get(opts, :timeout, 5_000)
    attrs
    |> Map.put(:timeout, timeout)
    |> Shop.Repo.${verb === 'load' ? 'get' : 'run'}(:${noun})
  end
`;
  });
  const body = `defmodule ${mod} do
  @moduledoc """
  Everything about ${noun}s: ${pick(DOC).toLowerCase()}
  """

  alias Shop.Repo
  require Logger

${fns.join('\n')}
  defp log_${noun}(event) do
    Logger.info("${noun} #{inspect(event)}")
  end
end
`;
  return [`lib/shop/${noun}s${i >= NOUNS.length ? `_${i}` : ''}.ex`, body];
}

/** The module the journeys open: a long doc on `send_response`, several definitions. */
const CONN_EX = `defmodule Shop.Web.Conn do
  @moduledoc """
  Helpers for answering HTTP requests from the controllers.
  """

  import Plug.Conn

  @doc """
  Sends a response to the client with the given status and body.

  The response is sent at once: headers set after this call are lost.
  When the body is a map it is encoded as JSON and the content type is set.
  It raises \`Plug.Conn.AlreadySentError\` when a response was already sent.

  ## Examples

      iex> send_response(conn, 200, %{ok: true})
      %Plug.Conn{status: 200}

  See \`send_error/3\` for error bodies.
  """
  def send_response(conn, status, body) when is_map(body) do
    conn
    |> put_resp_content_type("application/json")
    |> send_resp(status, Jason.encode!(body))
  end

  def send_response(conn, status, body), do: send_resp(conn, status, body)

  @doc """
  Sends an error body: \`{"error": reason}\`.
  """
  def send_error(conn, status, reason) do
    send_response(conn, status, %{error: reason})
  end

  @doc "Redirects to \`path\`."
  def redirect_to(conn, path) do
    conn
    |> put_resp_header("location", path)
    |> send_resp(302, "")
  end
end
`;

function pythonFile(i: number): [string, string] {
  const pick = picker(i * 13 + 5);
  const noun = NOUNS[(i + 3) % NOUNS.length];
  const cls = `${cap(noun)}Worker`;
  const methods = [0, 1, 2].map((j) => {
    const verb = VERBS[(i + j) % VERBS.length];
    return `    def ${verb}_${noun}(self, ${noun}_id: int, *, retries: int = 3) -> dict:
        """${cap(verb)} one ${noun}.

        ${pick(DOC)}
        """
        for attempt in range(retries):
            try:
                return self.client.${verb}("${noun}s", ${noun}_id)
            except TimeoutError:
                self.log.warning("timeout on %s, attempt %d", ${noun}_id, attempt)
        raise RuntimeError(f"could not ${verb} ${noun} {${noun}_id}")
`;
  });
  return [`workers/${noun}/${noun}_worker_${i}.py`, `"""Background jobs for ${noun}s."""
import logging

from workers.client import Client


class ${cls}:
    """Runs ${noun} jobs from the queue. ${pick(DOC)}"""

    def __init__(self, client: Client):
        self.client = client
        self.log = logging.getLogger(__name__)

${methods.join('\n')}

def parse_config(path: str) -> dict:
    """Parse the worker config file at path."""
    with open(path) as f:
        return dict(line.strip().split("=", 1) for line in f if "=" in line)
`];
}

function goFile(i: number): [string, string] {
  const pick = picker(i * 31 + 9);
  const noun = NOUNS[(i + 5) % NOUNS.length];
  const typ = cap(noun);
  const verb = VERBS[i % VERBS.length];
  return [`cmd/shopctl/${noun}/${noun}_${i}.go`, `// Package ${noun} implements the ${noun} commands of shopctl.
package ${noun}

import (
	"context"
	"fmt"
	"time"
)

// ${typ}Client talks to the ${noun} API.
type ${typ}Client struct {
	BaseURL string
	Timeout time.Duration
}

// ${cap(verb)}${typ} ${verb}s one ${noun}.
// ${pick(DOC)}
// It returns an error when the context is cancelled.
func (c *${typ}Client) ${cap(verb)}${typ}(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	if id == "" {
		return fmt.Errorf("${noun}: empty id")
	}
	return c.do(ctx, "${verb}", id)
}

// ParseConfig reads the ${noun} section of the config file.
func ParseConfig(raw map[string]string) (*${typ}Client, error) {
	d, err := time.ParseDuration(raw["timeout"])
	if err != nil {
		return nil, fmt.Errorf("parse config: %w", err)
	}
	return &${typ}Client{BaseURL: raw["url"], Timeout: d}, nil
}
`];
}

function tsFile(i: number): [string, string] {
  const pick = picker(i * 17 + 3);
  const noun = NOUNS[(i + 7) % NOUNS.length];
  const verb = VERBS[(i + 2) % VERBS.length];
  return [`web/src/${noun}/${camel(verb, noun)}${i}.ts`, `import { api } from '../api';
import type { ${cap(noun)} } from '../types';

/**
 * ${cap(verb)}s a ${noun} from the API.
 * ${pick(DOC)}
 */
export async function ${camel(verb, noun)}(id: string, signal?: AbortSignal): Promise<${cap(noun)}> {
  const res = await api.get(\`/${noun}s/\${encodeURIComponent(id)}\`, { signal });
  if (!res.ok) throw new Error(\`${verb} ${noun} failed: \${res.status}\`);
  return (await res.json()) as ${cap(noun)};
}

export class ${cap(noun)}Store${i} {
  #items = new Map<string, ${cap(noun)}>();

  /** The ${noun} with this id, or undefined. */
  get(id: string): ${cap(noun)} | undefined {
    return this.#items.get(id);
  }

  /** Parse config values for the ${noun} view. */
  parseConfig(raw: Record<string, string>): { pageSize: number } {
    return { pageSize: Number(raw.pageSize ?? 20) };
  }
}
`];
}

function rustFile(i: number): [string, string] {
  const pick = picker(i * 23 + 11);
  const noun = NOUNS[(i + 9) % NOUNS.length];
  return [`crates/ledger/src/${noun}_${i}.rs`, `//! ${cap(noun)} ledger entries.

use std::collections::HashMap;

/// One ${noun} entry in the ledger.
#[derive(Debug, Clone)]
pub struct ${cap(noun)}Entry {
    pub id: u64,
    pub amount_cents: i64,
}

/// Sums the entries by id.
///
/// ${pick(DOC)}
/// Entries with a zero amount are skipped.
/// The map is empty when there are no entries.
/// Overflow saturates instead of wrapping.
pub fn total_by_id(entries: &[${cap(noun)}Entry]) -> HashMap<u64, i64> {
    let mut out = HashMap::new();
    for e in entries.iter().filter(|e| e.amount_cents != 0) {
        let t = out.entry(e.id).or_insert(0i64);
        *t = t.saturating_add(e.amount_cents);
    }
    out
}
`];
}

function testFiles(i: number): Array<[string, string]> {
  const noun = NOUNS[i % NOUNS.length];
  return [
    [`test/shop/${noun}s_${i}_test.exs`, `defmodule Shop.${cap(noun)}sTest${i} do
  use ExUnit.Case, async: true

  test "stores a ${noun}" do
    assert {:ok, _} = Shop.${cap(noun)}s.store_${noun}(%{id: ${i}})
  end

  test "send_response encodes maps as JSON" do
    conn = Shop.Web.Conn.send_response(build_conn(), 200, %{id: ${i}})
    assert conn.status == 200
  end
end
`],
    [`workers/tests/test_${noun}_${i}.py`, `from workers.${noun}.${noun}_worker_${i} import parse_config


def test_parse_config(tmp_path):
    p = tmp_path / "w.conf"
    p.write_text("timeout=${i}\\n")
    assert parse_config(str(p)) == {"timeout": "${i}"}
`],
  ];
}

/** The journeys' project: about 300 files. */
export function journeyProject(name = 'shop'): FixtureFolder {
  const files: Array<[string, string]> = [['lib/shop/web/conn.ex', CONN_EX]];
  for (let i = 0; i < 48; i++) files.push(elixirModule(i));
  for (let i = 0; i < 48; i++) files.push(pythonFile(i));
  for (let i = 0; i < 48; i++) files.push(goFile(i));
  for (let i = 0; i < 48; i++) files.push(tsFile(i));
  for (let i = 0; i < 24; i++) files.push(rustFile(i));
  for (let i = 0; i < 36; i++) files.push(...testFiles(i));
  for (const noun of NOUNS) {
    files.push([`docs/${noun}s.md`, `# ${cap(noun)}s\n\nHow ${noun}s flow through the shop: the web app stores them, the workers ${VERBS[noun.length % VERBS.length]} them.\n\n## Configuration\n\nSet \`${noun.toUpperCase()}_TIMEOUT\` to change the timeout. The parse config step reads it.\n`]);
  }
  files.push(['mix.exs', 'defmodule Shop.MixProject do\n  use Mix.Project\n\n  def project do\n    [app: :shop, version: "0.1.0", elixir: "~> 1.15", deps: deps()]\n  end\n\n  defp deps do\n    [{:plug, "~> 1.15"}, {:jason, "~> 1.4"}]\n  end\nend\n']);
  files.push(['web/package.json', '{\n  "name": "shop-web",\n  "private": true,\n  "scripts": { "build": "vite build" }\n}\n']);
  files.push(['config/config.exs', 'import Config\n\nconfig :shop, Shop.Repo, pool_size: 10\nconfig :shop, :timeout, 5_000\n']);
  files.push(['README.md', '# Shop\n\nA small shop: an Elixir web app (lib/), Python workers (workers/), a Go CLI (cmd/shopctl), the web front end (web/) and a Rust ledger (crates/).\n']);
  return { name, files: Object.fromEntries(files.map(([p, t]) => [p, Buffer.from(t).toString('base64')])) };
}

/** What the journeys check against. */
export const JOURNEY_FACTS = {
  /** The definition line of the documented `send_response` in lib/shop/web/conn.ex. */
  sendResponseDefLine: CONN_EX.split('\n').findIndex((l) => l.startsWith('  def send_response(conn, status, body) when')) + 1,
  connPath: 'lib/shop/web/conn.ex',
} as const;
