import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { DEFAULT_PRECACHE_EXCLUDE, bundleModels, checkOrtVersion, cspPolicy, parsePackOrigins, precacheManifest, serveFolder } from './sift-pwa.ts';

const dir = mkdtempSync(join(tmpdir(), 'sift-pwa-'));
let server: Server;
let origin = '';

beforeAll(async () => {
  mkdirSync(join(dir, 'models/tiny/onnx'), { recursive: true });
  writeFileSync(join(dir, 'models/tiny/config.json'), '{"model_type":"bert"}');
  writeFileSync(join(dir, 'models/tiny/onnx/model.onnx'), new Uint8Array([1, 2, 3]));
  writeFileSync(join(dir, 'secret.txt'), 'outside');
  const mw = serveFolder('/models/generated/', join(dir, 'models'));
  server = createServer((req, res) => mw(req, res, () => res.writeHead(418).end()));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

describe('serveFolder', () => {
  it.each([
    ['/models/generated/tiny/config.json', 200, 'application/json', '{"model_type":"bert"}'],
    ['/models/generated/tiny/onnx/model.onnx', 200, 'application/octet-stream', '\u0001\u0002\u0003'],
    ['/models/generated/tiny/missing.json', 404, undefined, ''],
    ['/models/generated/tiny', 418, undefined, ''], // a folder: not ours to list
    ['/models/generated/%2e%2e/secret.txt', 418, undefined, ''], // never escapes the folder
    ['/index.html', 418, undefined, ''], // other paths fall through
  ])('%s → %i', async (path, status, type, body) => {
    const res = await fetch(origin + path);
    expect(res.status).toBe(status);
    if (type) expect(res.headers.get('content-type')).toBe(type);
    if (status === 200) expect(await res.text()).toBe(body);
  });
});

describe('cspPolicy', () => {
  it('never allows inline or eval script, and names the hub only when asked', () => {
    for (const hub of [true, false]) {
      const p = cspPolicy(hub);
      expect(p).toMatch(/script-src 'self' 'wasm-unsafe-eval'(;|$)/);
      expect(p).not.toContain("'unsafe-eval'");
      expect(p).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(p.includes('huggingface.co')).toBe(hub);
      expect(p).not.toContain('frame-ancestors'); // ignored in <meta>
    }
  });
});

describe('precacheManifest', () => {
  it('lists every file but maps, sw.js and optional ORT builds; version follows content', () => {
    const out = mkdtempSync(join(tmpdir(), 'sift-dist-'));
    mkdirSync(join(out, 'assets'));
    const files: Record<string, string> = {
      'index.html': '<html>', 'sw.js': 'old', 'assets/app-abc.js': 'x', 'assets/app-abc.js.map': '{}',
      'assets/ort-wasm-simd-threaded-Ab12.wasm': 'w', 'assets/ort-wasm-simd-threaded.asyncify-Cd34.wasm': 'big',
      'assets/tree-sitter-go-Ef56.wasm': 'g',
    };
    for (const [f, c] of Object.entries(files)) writeFileSync(join(out, f), c);
    const a = precacheManifest(out, DEFAULT_PRECACHE_EXCLUDE);
    expect(a.precache).toEqual(['assets/app-abc.js', 'assets/ort-wasm-simd-threaded-Ab12.wasm', 'assets/tree-sitter-go-Ef56.wasm', 'index.html']);
    writeFileSync(join(out, 'index.html'), '<html><title>new</title>');
    const b = precacheManifest(out, DEFAULT_PRECACHE_EXCLUDE);
    expect(b.version).not.toBe(a.version);
    expect(b.version).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('checkOrtVersion', () => {
  it('accepts the installed tree (transformers and the app ship the same onnxruntime-web)', () => {
    expect(checkOrtVersion(join(import.meta.dirname, '..'))).toMatch(/^1\./);
  });
});

describe('bundleModels', () => {
  it('writes an empty manifest when nothing is bundled', () => {
    const out = mkdtempSync(join(tmpdir(), 'sift-dist-'));
    expect(bundleModels(out, [])).toEqual([]);
    expect(JSON.parse(readFileSync(join(out, 'sift-models.json'), 'utf8'))).toEqual({ models: [] });
  });

  it('copies only model files under models/<id>/ and lists them', () => {
    const src = mkdtempSync(join(tmpdir(), 'sift-model-'));
    mkdirSync(join(src, 'onnx'));
    writeFileSync(join(src, 'config.json'), '{}');
    writeFileSync(join(src, 'tokenizer.json'), '{}');
    writeFileSync(join(src, 'onnx/model_quantized.onnx'), new Uint8Array(10));
    writeFileSync(join(src, 'README.md'), 'not copied');
    const out = mkdtempSync(join(tmpdir(), 'sift-dist-'));
    const got = bundleModels(out, [{ id: 'Xenova/all-MiniLM-L6-v2', dir: src }]);
    expect(got).toEqual([{ id: 'Xenova/all-MiniLM-L6-v2', files: ['config.json', 'onnx/model_quantized.onnx', 'tokenizer.json'], bytes: 14 }]);
    expect(existsSync(join(out, 'models/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx'))).toBe(true);
    expect(existsSync(join(out, 'models/Xenova/all-MiniLM-L6-v2/README.md'))).toBe(false);
    expect(JSON.parse(readFileSync(join(out, 'sift-models.json'), 'utf8'))).toEqual({ models: got });
  });

  it('bundles a static (model2vec) folder: config, tokenizer and model.safetensors', () => {
    const src = mkdtempSync(join(tmpdir(), 'sift-model-'));
    writeFileSync(join(src, 'config.json'), '{}');
    writeFileSync(join(src, 'tokenizer.json'), '{}');
    writeFileSync(join(src, 'model.safetensors'), new Uint8Array(8));
    writeFileSync(join(src, 'README.md'), 'not copied');
    const out = mkdtempSync(join(tmpdir(), 'sift-dist-'));
    const got = bundleModels(out, [{ id: 'minishlab/potion-code-16M-v2', dir: src }]);
    expect(got).toEqual([{ id: 'minishlab/potion-code-16M-v2', files: ['config.json', 'model.safetensors', 'tokenizer.json'], bytes: 12 }]);
  });

  it('fails the build on a folder that is no model', () => {
    const out = mkdtempSync(join(tmpdir(), 'sift-dist-'));
    expect(() => bundleModels(out, [{ id: 'x', dir: out }])).toThrow(/not a model folder/);
    const tokOnly = mkdtempSync(join(tmpdir(), 'sift-model-'));
    writeFileSync(join(tokOnly, 'config.json'), '{}');
    writeFileSync(join(tokOnly, 'tokenizer.json'), '{}');
    expect(() => bundleModels(out, [{ id: 'x', dir: tokOnly }])).toThrow(/neither onnx\/\*\.onnx nor model\.safetensors/);
  });
});

describe('SIFT_PACK_ORIGINS (published indexes on another origin, issue 27)', () => {
  it('grows connect-src by exactly the listed origins', () => {
    const origins = parsePackOrigins(' https://packs.example.com, http://localhost:8080/ ,https://packs.example.com');
    expect(origins).toEqual(['https://packs.example.com', 'http://localhost:8080']);
    const connect = cspPolicy(false, origins).split('; ').find((d) => d.startsWith('connect-src'));
    expect(connect).toBe("connect-src 'self' https://packs.example.com http://localhost:8080");
    expect(parsePackOrigins('')).toEqual([]);
  });
  it.each(['*', 'https://*.example.com', 'https://packs.example.com/path', 'ftp://x.example', 'packs.example.com', "https://a.example 'unsafe-inline'"])('refuses %s at build time', (bad) => {
    expect(() => parsePackOrigins(bad)).toThrow(/SIFT_PACK_ORIGINS/);
  });
});
