/**
 * Where the browser build finds ONNX Runtime's WASM and the model folder, on the app's
 * own origin — never the CDN Transformers.js defaults to. Browser (page or worker) only:
 * the `?url` imports need Vite; Node's embedder uses onnxruntime-node and needs none of it.
 *
 * Invariants:
 * - The files come from the exact onnxruntime-web that @huggingface/transformers resolves
 *   (vite-plugins/sift-pwa.ts fails the build on a version mismatch).
 * - The plain SIMD-threaded build serves the 'wasm' device (14 MB, precached by the SW);
 *   the asyncify build is what the WebGPU bundle needs (27 MB, cached on first use).
 * - URLs are absolute and resolved from the emitted asset, so a sub-path deploy works.
 */
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import ortMjs from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import ortAsyncifyWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortAsyncifyMjs from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';

/**
 * From an emitted chunk (`<app>/assets/x.js`) to the app's folder: one level up. Not a
 * literal inside `new URL(…, import.meta.url)`, or Vite would treat it as an asset.
 * (It was '../../', which is the app folder only when the app sits at the origin's root:
 * under a sub-path bundled models were asked for at `/models/…` and 404ed.)
 */
const PARENT = '../';

export interface OrtWasmPaths {
  mjs: string;
  wasm: string;
}

function absolute(url: string): string {
  return new URL(url, globalThis.location?.href).href;
}

/**
 * For `env.backends.onnx.wasm.wasmPaths` (mutate the existing object). `device` is the
 * Transformers.js device the session will use.
 */
export function ortWasmPaths(device: 'wasm' | 'webgpu' = 'wasm'): OrtWasmPaths {
  return device === 'webgpu'
    ? { mjs: absolute(ortAsyncifyMjs), wasm: absolute(ortAsyncifyWasm) }
    : { mjs: absolute(ortMjs), wasm: absolute(ortWasm) };
}

/**
 * The app's folder (where index.html is) as an absolute URL. Built assets sit in
 * `<app>/assets/`, so it is one level above this module's emitted URL; the dev server
 * serves the app at the Vite base.
 */
export function appBaseUrl(): string {
  if (import.meta.env.DEV) return new URL(import.meta.env.BASE_URL, globalThis.location.origin).href;
  return new URL(PARENT, import.meta.url).href;
}

/**
 * For Transformers.js `env.localModelPath`: the *path* (not URL — with a URL the
 * tokenizer silently fails to load) of `models/` next to index.html, e.g.
 * '/some/sub/path/models/'. In dev/preview `models/generated/…` maps to the repo's
 * models/generated/ (see the vite plugin).
 */
export function localModelPath(): string {
  return new URL('models/', appBaseUrl()).pathname;
}
