/**
 * Node-only loader for voy-search: its entry imports the .wasm as an ES module, which
 * Node 20 cannot do without a flag, so read the bytes and wire the wasm-bindgen glue.
 */

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

export type VoyModule = typeof import('voy-search');

export async function loadVoyNode(): Promise<VoyModule> {
  const require = createRequire(import.meta.url);
  const bg = await import('voy-search/voy_search_bg.js');
  const bytes = await readFile(require.resolve('voy-search/voy_search_bg.wasm'));
  const { instance } = await WebAssembly.instantiate(bytes, { './voy_search_bg.js': bg as unknown as WebAssembly.ModuleImports });
  bg.__wbg_set_wasm(instance.exports);
  return bg;
}
