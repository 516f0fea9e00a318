/**
 * Node-only WASM loader for the chunker: resolves web-tree-sitter's runtime and the
 * grammar files from node_modules and reads them with fs. The browser build uses its
 * own loader over the same GRAMMARS table (Vite asset URLs); nothing else differs.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { WasmLoader } from './chunker.ts';

const require = createRequire(import.meta.url);

const RUNTIME_WASM = 'web-tree-sitter.wasm';

let grammarDir: string | null = null;

function resolveWasmPath(file: string): string {
  if (file.includes('/') || file.includes('\\') || file.includes('..')) {
    throw new Error(`invalid wasm file name: ${file}`);
  }
  if (file === RUNTIME_WASM) return require.resolve('web-tree-sitter/web-tree-sitter.wasm');
  // The package has no "exports" for out/, so resolve its package.json and go from there.
  grammarDir ??= join(dirname(require.resolve('@cursorless/tree-sitter-wasms/package.json')), 'out');
  return join(grammarDir, file);
}

/** Reads `web-tree-sitter.wasm` or a grammar file (e.g. `tree-sitter-python.wasm`). */
export const nodeWasmLoader = async (file: string): Promise<Uint8Array> => {
  const buf = await readFile(resolveWasmPath(file));
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
};

nodeWasmLoader satisfies WasmLoader;
