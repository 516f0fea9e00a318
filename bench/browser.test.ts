import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleSizes } from './browser.ts';

describe('bundleSizes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sift-bundle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const html = '<!doctype html><script type="module" src="./assets/index-AbCd1234.js"></script><link rel="stylesheet" href="./assets/index-Zz99Yy88.css">';
  const files: Record<string, string | Uint8Array> = {
    'index.html': html,
    'assets/index-AbCd1234.js': 'console.log("entry");'.repeat(50),
    'assets/index-Zz99Yy88.css': 'body{color:red}',
    'assets/lazy-Qq11Ww22.js': 'export const x = 1;',
    'assets/ort-wasm-simd-threaded-4byDm7i3.wasm': new Uint8Array(5000).fill(7),
    'assets/index-AbCd1234.js.map': '{}',
    'models/generated/tiny/config.json': '{}',
  };
  for (const [f, body] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), body);
  }
  const gz = (f: string) => gzipSync(typeof files[f] === 'string' ? Buffer.from(files[f] as string) : (files[f] as Uint8Array), { level: 9 }).byteLength;
  const raw = (f: string) => Buffer.byteLength(files[f] as string);

  it('sums by extension, without source maps or models', () => {
    const s = bundleSizes(dir);
    expect(s.files).toBe(5);
    expect(s.byExt['.js']).toEqual({ files: 2, raw: raw('assets/index-AbCd1234.js') + raw('assets/lazy-Qq11Ww22.js'), gzip: gz('assets/index-AbCd1234.js') + gz('assets/lazy-Qq11Ww22.js') });
    expect(s.byExt['.map']).toBeUndefined();
  });

  it('counts only index.html and what it references as the first load', () => {
    const s = bundleSizes(dir);
    expect(s.shell.raw).toBe(raw('index.html') + raw('assets/index-AbCd1234.js') + raw('assets/index-Zz99Yy88.css'));
    expect(s.shell.gzip).toBe(gz('index.html') + gz('assets/index-AbCd1234.js') + gz('assets/index-Zz99Yy88.css'));
  });

  it('names WASM files without the content hash', () => {
    expect(bundleSizes(dir).wasm).toEqual([{ file: 'assets/ort-wasm-simd-threaded.wasm', raw: 5000, gzip: gz('assets/ort-wasm-simd-threaded-4byDm7i3.wasm') }]);
  });
});
