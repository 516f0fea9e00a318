/**
 * ModelFiles for Node: a folder on disk, and the Hugging Face Hub behind a folder cache.
 *
 * The Hub's files are fetched from `<hubUrl>/<id>/resolve/main/<name>` (the URLs
 * Transformers.js asks for) and written to `<cacheDir>/<id>/<name>` — the folder layout
 * model-source-node.ts looks in first — so the next run reads them offline. A file is
 * written to a temp name and renamed: a cut download leaves no half file behind.
 * Only built when downloads are allowed (the caller's consent); nothing else here touches
 * the network.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { HUB_URL } from '../config.ts';
import { isSafeModelFileName, type ModelFiles } from './model-files.ts';

function checkName(name: string): void {
  if (!isSafeModelFileName(name)) throw new Error(`refusing model file name "${name}"`);
}

async function readIfThere(path: string): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw e;
  }
}

/** A model folder on disk. */
export function folderModelFiles(dir: string): ModelFiles {
  return {
    where: dir,
    async read(name, onProgress) {
      checkName(name);
      const bytes = await readIfThere(join(dir, name));
      if (bytes) onProgress?.(bytes.length, bytes.length);
      return bytes;
    },
  };
}

export interface HubFilesOptions {
  /** Hub id, `owner/name`. */
  id: string;
  /** Downloads land in `<cacheDir>/<id>/` (the CLI's $SIFT_HOME/models). */
  cacheDir: string;
  /** Default HUB_URL; tests point it at a local server. */
  hubUrl?: string;
  /** Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Each request gives up after this long without progress (default 30 s). */
  stallMs?: number;
}

/**
 * The Hub could not be reached: no answer to a request (no network, a name that does not
 * resolve, a refused or dropped connection) or none for the stall limit. An HTTP error is an
 * answer, not this.
 */
export class HubUnreachableError extends Error {
  override name = 'HubUnreachableError';
}

/** The Hub, read through the cache folder: a cached file is never fetched again. */
export function hubModelFiles(o: HubFilesOptions): ModelFiles {
  const base = (o.hubUrl ?? HUB_URL).replace(/\/+$/, '');
  const folder = join(o.cacheDir, o.id);
  const doFetch = o.fetch ?? globalThis.fetch;
  const stallMs = o.stallMs ?? 30_000;
  return {
    where: `${base}/${o.id}`,
    async read(name, onProgress) {
      checkName(name);
      const target = join(folder, name);
      const cached = await readIfThere(target);
      if (cached) {
        onProgress?.(cached.length, cached.length);
        return cached;
      }
      const url = `${base}/${o.id}/resolve/main/${name.split('/').map(encodeURIComponent).join('/')}`;
      const ac = new AbortController();
      let timer = setTimeout(() => ac.abort(new Error(`no data from ${url} for ${stallMs / 1000}s`)), stallMs);
      const alive = (): void => {
        clearTimeout(timer);
        timer = setTimeout(() => ac.abort(new Error(`no data from ${url} for ${stallMs / 1000}s`)), stallMs);
      };
      try {
        const res = await doFetch(url, { signal: ac.signal, redirect: 'follow' }).catch((e: unknown) => {
          const why = ac.signal.aborted ? ac.signal.reason : e;
          const code = (why as { cause?: { code?: unknown } })?.cause?.code;
          throw new HubUnreachableError(`${base} could not be reached (${why instanceof Error ? why.message : String(why)}${typeof code === 'string' ? `: ${code}` : ''})`);
        });
        if (res.status === 404) return null;
        if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${res.statusText}`);
        const total = Number(res.headers.get('content-length') ?? 0);
        const parts: Uint8Array[] = [];
        let loaded = 0;
        if (res.body) {
          const reader = res.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            alive();
            parts.push(value);
            loaded += value.length;
            onProgress?.(loaded, total);
          }
        } else {
          parts.push(new Uint8Array(await res.arrayBuffer()));
          loaded = parts[0].length;
        }
        if (total && loaded !== total) throw new Error(`${url}: got ${loaded} of ${total} bytes`);
        const bytes = new Uint8Array(loaded);
        let at = 0;
        for (const p of parts) {
          bytes.set(p, at);
          at += p.length;
        }
        onProgress?.(loaded, loaded);
        await mkdir(dirname(target), { recursive: true });
        const tmp = `${target}.${process.pid}.tmp`;
        try {
          await writeFile(tmp, bytes);
          await rename(tmp, target);
        } catch (e) {
          await rm(tmp, { force: true });
          throw e;
        }
        return bytes;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
