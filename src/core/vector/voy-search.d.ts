/** The wasm-bindgen glue of voy-search 0.6.3, imported directly where its .wasm ESM import cannot load (Node). */
declare module 'voy-search/voy_search_bg.js' {
  export * from 'voy-search';
  export function __wbg_set_wasm(exports: WebAssembly.Exports): void;
}
