// file_text.data (schema 6): a tag byte, then UTF-8 or deflate-raw of UTF-8. Both codecs (the
// web streams one and Node's zlib) must read each other's output, and every text must round-trip.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { MIN_DEFLATE_CHARS, packText, TAG_DEFLATE, TAG_UTF8, unpackText, webTextCodec } from './text-codec.ts';
import { nodeTextCodec } from './text-codec-node.ts';

const SOURCE = readFileSync(new URL('./store.ts', import.meta.url), 'utf8');

describe('text codec', () => {
  const texts = [
    '', 'a', 'x'.repeat(MIN_DEFLATE_CHARS - 1), 'x'.repeat(MIN_DEFLATE_CHARS),
    'def a():\r\n    return "é ü 😀"\r\n'.repeat(40), '\0\0binary-ish\0', 'Ω≈ç√∫'.repeat(100), SOURCE,
  ];
  for (const [name, c] of [['web', webTextCodec], ['node', nodeTextCodec]] as const) {
    it(`round-trips every text with the ${name} codec`, async () => {
      for (const t of texts) expect(await unpackText(await packText(t, c), c)).toBe(t);
    });
  }

  it('deflates long source text to under a third, keeps short texts as UTF-8', async () => {
    const packed = await packText(SOURCE, nodeTextCodec);
    expect(packed[0]).toBe(TAG_DEFLATE);
    expect(packed.byteLength).toBeLessThan(new TextEncoder().encode(SOURCE).byteLength / 3);
    const short = await packText('int x;\n', nodeTextCodec);
    expect(short[0]).toBe(TAG_UTF8);
    expect(short.byteLength).toBe('int x;\n'.length + 1);
  });

  it('reads what the other codec wrote', async () => {
    expect(await unpackText(await packText(SOURCE, webTextCodec), nodeTextCodec)).toBe(SOURCE);
    expect(await unpackText(await packText(SOURCE, nodeTextCodec), webTextCodec)).toBe(SOURCE);
  });

  it('rejects a damaged deflate payload (never hangs, never returns garbage) with either codec', async () => {
    const good = await packText(SOURCE, webTextCodec);
    const cut = good.subarray(0, Math.floor(good.byteLength / 2));
    for (const c of [webTextCodec, nodeTextCodec]) {
      await expect(unpackText(new Uint8Array([TAG_DEFLATE, 0xff, 0xff, 0xff, 0xff]), c)).rejects.toThrow();
      await expect(unpackText(cut, c)).rejects.toThrow();
    }
  });

  it('refuses an unknown tag instead of returning garbage', async () => {
    await expect(unpackText(new Uint8Array([7, 1, 2, 3]))).rejects.toThrow(/unknown encoding 7/);
  });
});
