/**
 * Vite plugin for Sift's installable, offline, static side:
 * - injects the manifest link, theme colour, icons and (build only) the CSP <meta>;
 * - after the bundle is written, emits dist/sw.js from src/sw.ts with the precache list
 *   (every emitted file but source maps and the optional ONNX Runtime variants) and a
 *   version that is a content hash of those files;
 * - serves the repo's models/generated/ at <base>models/generated/ in dev and preview, so
 *   browser tests load the generated test models (a static deploy ships models/ itself);
 * - fails the build if the onnxruntime-web that src/core/embed/ort-assets.ts ships is not the
 *   version @huggingface/transformers depends on;
 * - bundles the model folders named by SIFT_BUNDLE_MODEL (`DIR` or `ID=DIR`, comma-separated)
 *   into dist/models/<id>/ and always writes dist/sift-models.json listing them, so the app
 *   knows what it ships without probing paths that 404.
 * Invariants: the built index.html contains no inline script or style; every URL written
 * is relative, so dist/ works from any static host and any sub-path.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformWithOxc, type HtmlTagDescriptor, type Plugin, type ResolvedConfig } from 'vite';
import { BUNDLED_MODELS_FILE, parseBundleSpec, type BundledModel } from '../src/core/embed/model-source.ts';

/** The repo root (this file's parent folder), whatever the Vite root is. */
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export const THEME_COLOR = '#0f172a';
export const SW_FILE = 'sw.js';
/** Emitted but not precached: source maps, ONNX Runtime builds only WebGPU/JSPI use (cached on first use). */
export const DEFAULT_PRECACHE_EXCLUDE: readonly RegExp[] = [
  /\.map$/,
  /(^|\/)ort-wasm-simd-threaded\.(asyncify|jsep|jspi)[^/]*\.(wasm|mjs)$/,
  /^models\//,
  /(^|\/)\.DS_Store$/,
];
/** Model hub hosts (incl. LFS/Xet redirects), allowed in connect-src unless disabled. */
export const MODEL_HUB_ORIGINS: readonly string[] = ['https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co'];

export interface SiftPwaOptions {
  /** Service worker source, relative to the Vite root. */
  swSource?: string;
  precacheExclude?: readonly RegExp[];
  /** Folder served at /models/generated/ by dev and preview servers (default: the repo's). */
  devModelsDir?: string;
  /** Allow connect-src to the Hugging Face hub (default: unless SIFT_ALLOW_HUB=0). */
  allowModelHub?: boolean;
  /**
   * Origins besides the app's own that published indexes may be opened from (default: from
   * SIFT_PACK_ORIGINS, comma-separated). connect-src grows by exactly these.
   */
  packOrigins?: string[];
  /** Model folders to ship in dist/models/ (default: from SIFT_BUNDLE_MODEL). */
  bundleModels?: Array<{ id: string; dir: string }>;
}

/**
 * The files of a model folder the app can use (as workers/embedder/opfs-models.ts copies): a
 * Transformers.js folder (onnx/*.onnx) or a static model as model2vec writes it (model.safetensors).
 */
const MODEL_FILE_RE = /^(config\.json|tokenizer\.json|tokenizer_config\.json|special_tokens_map\.json|vocab\.txt|generation_config\.json|model\.safetensors|onnx\/[\w.-]+\.onnx(_data)?)$/;

/**
 * Copies each model folder's usable files to `<outDir>/models/<id>/` and writes the
 * manifest (an empty list when nothing is bundled). Fails on a folder that is no model.
 */
export function bundleModels(outDir: string, models: Array<{ id: string; dir: string }>): BundledModel[] {
  const out: BundledModel[] = [];
  for (const { id, dir } of models) {
    const src = resolve(dir);
    if (!existsSync(join(src, 'config.json')) || !existsSync(join(src, 'tokenizer.json'))) {
      throw new Error(`sift-pwa: ${dir} is not a model folder (needs config.json, tokenizer.json, and onnx/*.onnx or model.safetensors)`);
    }
    const files = listFiles(src).filter((f) => MODEL_FILE_RE.test(f));
    if (!files.some((f) => f.startsWith('onnx/') || f === 'model.safetensors')) throw new Error(`sift-pwa: ${dir} has neither onnx/*.onnx nor model.safetensors`);
    let bytes = 0;
    for (const f of files) {
      const to = join(outDir, 'models', id, f);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(join(src, f), to);
      bytes += statSync(to).size;
    }
    out.push({ id, files, bytes });
  }
  writeFileSync(join(outDir, BUNDLED_MODELS_FILE), JSON.stringify({ models: out }, null, 1) + '\n');
  return out;
}

/** The page policy (for <meta>; frame-ancestors is not allowed there). */
export function cspPolicy(allowModelHub: boolean, packOrigins: readonly string[] = []): string {
  const connect = ["'self'", ...(allowModelHub ? MODEL_HUB_ORIGINS : []), ...packOrigins].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self'",
    // Svelte's compiled CSS is an external file; only style="" attributes are inline.
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'none'",
  ].join('; ');
}

/** Header form, added by the SW to documents and worker scripts. */
export function cspHeaderPolicy(allowModelHub: boolean, packOrigins: readonly string[] = []): string {
  return `${cspPolicy(allowModelHub, packOrigins)}; frame-ancestors 'none'`;
}

/**
 * `SIFT_PACK_ORIGINS`: comma-separated origins (`https://packs.example.com`). Anything that is
 * not a bare http(s) origin is an error at build time, not a hole in the policy.
 */
export function parsePackOrigins(spec: string): string[] {
  const out: string[] = [];
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(part);
    } catch {
      throw new Error(`sift-pwa: SIFT_PACK_ORIGINS: "${part}" is not an origin like https://packs.example.com`);
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== part.replace(/\/$/, '') || !/^[a-z0-9.-]+$/i.test(url.hostname)) {
      throw new Error(`sift-pwa: SIFT_PACK_ORIGINS: "${part}" is not an origin like https://packs.example.com (no path, query or wildcard)`);
    }
    if (!out.includes(url.origin)) out.push(url.origin);
  }
  return out;
}

const CONTENT_TYPES: Record<string, string> = {
  '.json': 'application/json',
  '.onnx': 'application/octet-stream',
  '.safetensors': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
  '.model': 'application/octet-stream',
  '.bin': 'application/octet-stream',
};

type Next = (err?: unknown) => void;

/** Connect middleware serving `dir` at URL prefix `prefix` (GET/HEAD, no listing, no escaping `dir`). */
export function serveFolder(prefix: string, dir: string) {
  const root = resolve(dir);
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    const pathname = decodeURIComponent((req.url ?? '').split('?')[0] ?? '');
    if (!pathname.startsWith(prefix) || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    const file = resolve(root, pathname.slice(prefix.length));
    if (file !== root && !file.startsWith(root + sep)) return next();
    let size: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) return next();
      size = st.size;
    } catch {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', CONTENT_TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', String(size));
    res.setHeader('Cache-Control', 'no-cache');
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    createReadStream(file).pipe(res);
  };
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile()) out.push(relative(dir, full).split(sep).join('/'));
    }
  };
  visit(dir);
  return out.sort();
}

/** Precache list and content version for a built dist/ folder. */
export function precacheManifest(outDir: string, exclude: readonly RegExp[], extra = ''): { version: string; precache: string[] } {
  const precache = listFiles(outDir).filter((f) => f !== SW_FILE && !exclude.some((re) => re.test(f)));
  const h = createHash('sha256');
  for (const f of precache) h.update(f).update('\0').update(createHash('sha256').update(readFileSync(join(outDir, f))).digest());
  h.update(extra);
  return { version: h.digest('hex').slice(0, 16), precache };
}

function packageVersion(pkgJson: string): string {
  return (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string }).version;
}

/** The onnxruntime-web Transformers.js uses must be the one whose files we ship. */
export function checkOrtVersion(root: string): string {
  const tfDir = join(root, 'node_modules/@huggingface/transformers');
  const nested = join(tfDir, 'node_modules/onnxruntime-web/package.json');
  const top = join(root, 'node_modules/onnxruntime-web/package.json');
  const wanted = (JSON.parse(readFileSync(join(tfDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies['onnxruntime-web'];
  const used = packageVersion(existsSync(nested) ? nested : top);
  const shipped = packageVersion(top);
  if (used !== shipped || (wanted && wanted !== used)) {
    throw new Error(`onnxruntime-web mismatch: transformers wants ${wanted}, resolves ${used}, app ships ${shipped}`);
  }
  return shipped;
}

export function siftPwa(options: SiftPwaOptions = {}): Plugin {
  const swSource = options.swSource ?? 'src/sw.ts';
  const exclude = options.precacheExclude ?? DEFAULT_PRECACHE_EXCLUDE;
  const devModelsDir = options.devModelsDir ?? join(REPO_ROOT, 'models/generated');
  const allowHub = options.allowModelHub ?? process.env.SIFT_ALLOW_HUB !== '0';
  const toBundle = options.bundleModels ?? parseBundleSpec(process.env.SIFT_BUNDLE_MODEL ?? '');
  const packOrigins = options.packOrigins ?? parsePackOrigins(process.env.SIFT_PACK_ORIGINS ?? '');
  let config: ResolvedConfig;

  const modelsMiddleware = () => serveFolder('/models/generated/', resolve(config.root, devModelsDir));

  return {
    name: 'sift-pwa',
    config() {
      return { define: { __SIFT_PACK_ORIGINS__: JSON.stringify(packOrigins) } };
    },
    configResolved(c) {
      config = c;
    },
    buildStart() {
      if (config.command === 'build') checkOrtVersion(REPO_ROOT);
    },
    configureServer(server) {
      server.middlewares.use(modelsMiddleware());
      // The dev server bundles nothing: an empty manifest (the build writes the real one).
      server.middlewares.use((req, res, next) => {
        if ((req.url ?? '').split('?')[0] !== `${config.base.replace(/^\.\/?$/, '/')}${BUNDLED_MODELS_FILE}`) return next();
        res.setHeader('Content-Type', 'application/json');
        res.end('{"models":[]}');
      });
    },
    configurePreviewServer(server) {
      server.middlewares.use(modelsMiddleware());
    },
    transformIndexHtml: {
      order: 'post',
      handler() {
        const tags: HtmlTagDescriptor[] = [
          { tag: 'meta', attrs: { name: 'theme-color', content: THEME_COLOR }, injectTo: 'head' },
          { tag: 'link', attrs: { rel: 'manifest', href: './manifest.webmanifest' }, injectTo: 'head' },
          { tag: 'link', attrs: { rel: 'icon', href: './icons/icon.svg', type: 'image/svg+xml' }, injectTo: 'head' },
          { tag: 'link', attrs: { rel: 'apple-touch-icon', href: './icons/apple-touch-icon.png' }, injectTo: 'head' },
        ];
        if (config.command === 'build') {
          // First in <head>, so it governs everything after it.
          tags.unshift({
            tag: 'meta',
            attrs: { 'http-equiv': 'Content-Security-Policy', content: cspPolicy(allowHub, packOrigins) },
            injectTo: 'head-prepend',
          });
        }
        return tags;
      },
    },
    async writeBundle() {
      const outDir = resolve(config.root, config.build.outDir);
      const src = readFileSync(resolve(config.root, swSource), 'utf8');
      const html = readFileSync(join(outDir, 'index.html'), 'utf8');
      if (/<script(?![^>]*\bsrc=)[^>]*>/i.test(html) || /<style[\s>]/i.test(html) || /\son\w+=/i.test(html)) {
        throw new Error('sift-pwa: built index.html has inline script/style/handler, which the CSP forbids');
      }
      const bundled = bundleModels(outDir, toBundle);
      for (const m of bundled) config.logger.info(`sift-pwa: bundled model ${m.id} (${m.files.length} files, ${(m.bytes / 1e6).toFixed(1)} MB)`);
      const { version, precache } = precacheManifest(outDir, exclude, src);
      const manifest = { version, precache, immutablePrefix: `${config.build.assetsDir}/`, csp: cspHeaderPolicy(allowHub, packOrigins) };
      const { code } = await transformWithOxc(src, 'sw.ts', { lang: 'ts' });
      if (!code.includes('__SIFT_SW_MANIFEST__')) throw new Error('sift-pwa: src/sw.ts must reference __SIFT_SW_MANIFEST__');
      const out = `// Sift service worker ${version}. Generated by vite-plugins/sift-pwa.ts from ${swSource}.\n` +
        code.replaceAll('__SIFT_SW_MANIFEST__', JSON.stringify(manifest));
      writeFileSync(join(outDir, SW_FILE), out);
      const bytes = precache.reduce((n, f) => n + statSync(join(outDir, f)).size, 0);
      config.logger.info(`sift-pwa: ${SW_FILE} ${version}, precache ${precache.length} files, ${(bytes / 1e6).toFixed(1)} MB`);
    },
  };
}
