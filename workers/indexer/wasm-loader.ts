/**
 * Browser WASM loader for the chunker: every grammar file and the tree-sitter runtime get
 * a Vite asset URL at build time and are fetched lazily, on the first file of a language.
 * The node loader (src/core/chunk/grammars-node.ts) reads the same file names from disk.
 *
 * Invariant: a file is fetched (and compiled, browserWasmModules) at most once per worker (the
 * promise is cached, failures are not, so a transient network error can be retried).
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
const compiled = new Map<string, Promise<WebAssembly.Module>>();

async function fetchOk(url: string): Promise<Response> {
  const res = await fetch(new URL(url, import.meta.url));
  if (!res.ok) throw new Error(`could not load ${url}: HTTP ${res.status}`);
  return res;
}

async function fetchBytes(url: string): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await (await fetchOk(url)).arrayBuffer());
}

async function urlOf(file: string): Promise<string> {
  if (file === 'web-tree-sitter.wasm') return runtimeUrl;
  const load = byName.get(file);
  if (!load) throw new Error(`no grammar bundled for ${file}`);
  return load();
}

/** Cached per file; a failure is not cached, so a transient network error can be retried. */
function cached<T>(map: Map<string, Promise<T>>, file: string, make: () => Promise<T>): Promise<T> {
  const hit = map.get(file);
  if (hit) return hit;
  const p = make();
  map.set(file, p);
  p.catch(() => map.delete(file));
  return p;
}

/** The file's bytes (fetched at most once per worker). */
export function browserWasmLoader(file: string): Promise<Uint8Array> {
  return cached(cache, file, async () => fetchBytes(await urlOf(file)));
}

/**
 * The file compiled, at most once per worker: streamed (compiled while it downloads; the
 * browser may keep the compiled code with the HTTP cache), or from its bytes where the
 * server's Content-Type is not application/wasm. The indexer worker hands these modules to its
 * chunker workers, so each file is compiled (and tiered up) once per indexer, not per thread.
 */
export function browserWasmModules(file: string): Promise<WebAssembly.Module> {
  return cached(compiled, file, async () => {
    const url = await urlOf(file);
    try {
      return await WebAssembly.compileStreaming(fetchOk(url));
    } catch (e) {
      if (!(e instanceof TypeError)) throw e; // a wrong MIME type is a TypeError; a bad module is not
      return WebAssembly.compile(await fetchBytes(url));
    }
  });
}

/** File names this build can load (for the debug panel and a test). */
export function bundledWasmFiles(): string[] {
  return ['web-tree-sitter.wasm', ...byName.keys()];
}
