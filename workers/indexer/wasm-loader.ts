/**
 * Browser WASM loader for the chunker: every grammar file and the tree-sitter runtime get
 * a Vite asset URL at build time and are fetched lazily, on the first file of a language.
 * The node loader (src/core/chunk/grammars-node.ts) reads the same file names from disk.
 *
 * Invariant: a file is fetched at most once per worker (the promise is cached, failures are
 * not, so a transient network error can be retried).
 */
import runtimeUrl from 'web-tree-sitter/web-tree-sitter.wasm?url';

// Lazy map: file name → () => Promise<url>. Only the grammars in GRAMMARS (languages.ts) are listed,
// so the build does not carry all 44 MB of the package (languages.test.ts checks the list).
const grammarUrls = import.meta.glob<string>(
  '/node_modules/@cursorless/tree-sitter-wasms/out/tree-sitter-{bash,c,c_sharp,clojure,cpp,dart,elixir,elm,gleam,go,haskell,java,javascript,kotlin,lua,perl,php,python,r,ruby,rust,scala,swift,tsx,typescript,zig}.wasm',
  { query: '?url', import: 'default' },
);

const byName = new Map<string, () => Promise<string>>();
for (const [key, load] of Object.entries(grammarUrls)) byName.set(key.slice(key.lastIndexOf('/') + 1), load);

const cache = new Map<string, Promise<Uint8Array>>();

async function fetchBytes(url: string): Promise<Uint8Array> {
  const res = await fetch(new URL(url, import.meta.url));
  if (!res.ok) throw new Error(`could not load ${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

export function browserWasmLoader(file: string): Promise<Uint8Array> {
  const hit = cache.get(file);
  if (hit) return hit;
  const p = (async () => {
    if (file === 'web-tree-sitter.wasm') return fetchBytes(runtimeUrl);
    const load = byName.get(file);
    if (!load) throw new Error(`no grammar bundled for ${file}`);
    return fetchBytes(await load());
  })();
  cache.set(file, p);
  p.catch(() => cache.delete(file));
  return p;
}

/** File names this build can load (for the debug panel and a test). */
export function bundledWasmFiles(): string[] {
  return ['web-tree-sitter.wasm', ...byName.keys()];
}
