/**
 * ModelFiles in the browser (src/core/embed/model-files.ts): a model's files from the app's
 * served `models/` folder, from a folder imported into OPFS, or from the Hugging Face Hub
 * behind Cache Storage. Worker or page; no Vite-only imports, so tests can run it in Chromium.
 *
 * Imported folders: opfs-models.ts importedModelFiles.
 *
 * Invariants:
 * - Served: only names the build's manifest (sift-models.json) lists are requested; any
 *   other name is null without a request, so nothing 404s.
 * - Hub: the URL is the one Transformers.js uses (https://huggingface.co/<id>/resolve/main/<file>)
 *   and the cache is the one it uses ('transformers-cache', keyed by that URL), so a file read
 *   here is not fetched again by Transformers.js and vice versa. A cached file is read without
 *   a request (offline after the first load). Building a Hub source is the consent: the caller
 *   builds one only after the person said yes.
 * - Progress reports bytes of this file: (loaded, total); total is 0 when unknown.
 */
import { isSafeModelFileName, type ModelFiles } from '../../src/core/embed/model-files.ts';
import { HUB_URL } from '../../src/core/config.ts';
import { joinBytes } from '../../src/core/store/text-codec.ts';

/** Transformers.js's Cache Storage name for Hub downloads (its `env.cacheKey`). */
export const HUB_CACHE = 'transformers-cache';

type Progress = (loaded: number, total: number) => void;

function check(name: string): void {
  if (!isSafeModelFileName(name)) throw new Error(`"${name}" is not a file inside the model folder`);
}

/** Reads a response body to the end, reporting bytes as they arrive. */
async function readBody(res: Response, onProgress?: Progress): Promise<Uint8Array> {
  const total = Number(res.headers.get('content-length')) || 0;
  if (!res.body) {
    const bytes = new Uint8Array(await res.arrayBuffer());
    onProgress?.(bytes.byteLength, total || bytes.byteLength);
    return bytes;
  }
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let loaded = 0;
  let out = total > 0 ? new Uint8Array(total) : null;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (out && loaded + value.byteLength <= out.byteLength) out.set(value, loaded);
    else {
      if (out) {
        parts.push(out.subarray(0, loaded));
        out = null;
      }
      parts.push(value);
    }
    loaded += value.byteLength;
    onProgress?.(loaded, Math.max(total, loaded));
  }
  if (out) return loaded === out.byteLength ? out : out.subarray(0, loaded);
  return joinBytes(parts, loaded);
}

/** The Hub URL of a file of a model, as Transformers.js builds it. */
export function hubFileUrl(modelId: string, name: string): string {
  return `${HUB_URL}/${modelId}/resolve/main/${name}`;
}

/** A model on the Hub, cached in Cache Storage: the second load makes no request. */
export function hubModelFiles(modelId: string): ModelFiles {
  return {
    where: `${HUB_URL}/${modelId}`,
    async read(name, onProgress) {
      check(name);
      const url = hubFileUrl(modelId, name);
      const cache = typeof caches === 'undefined' ? null : await caches.open(HUB_CACHE);
      const hit = await cache?.match(url);
      if (hit) return readBody(hit, onProgress);
      const res = await fetch(url);
      if (res.status === 404) return null;
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
      const bytes = await readBody(res, onProgress);
      if (cache) {
        const type = res.headers.get('content-type') ?? 'application/octet-stream';
        await cache.put(url, new Response(bytes.slice().buffer, { headers: { 'content-type': type, 'content-length': String(bytes.byteLength) } }));
      }
      return bytes;
    },
  };
}

/** A model bundled with the deploy under `<modelsUrl><id>/`, reading only the files its manifest lists. */
export function servedModelFiles(modelsUrl: string, modelId: string, listed: readonly string[]): ModelFiles {
  const base = new URL(`${modelId}/`, modelsUrl);
  const files = new Set(listed);
  return {
    where: base.href,
    async read(name, onProgress) {
      check(name);
      if (!files.has(name)) return null;
      const res = await fetch(new URL(name, base));
      if (res.status === 404) return null;
      if (!res.ok) throw new Error(`${base.href}${name}: HTTP ${res.status}`);
      return readBody(res, onProgress);
    },
  };
}
