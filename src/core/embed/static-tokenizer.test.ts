/**
 * The fast WordPiece path gives exactly the ids of @huggingface/tokenizers (the library
 * Transformers.js uses) with add_special_tokens false: on thousands of real chunks of the
 * bench corpora (medium: Go + JS; kernel: C) as embedding texts, and on edge cases (Unicode
 * classes, accents, CJK, controls, added tokens with lstrip/rstrip, over-long words).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Tokenizer } from '@huggingface/tokenizers';
import { ensureGeneratedModel } from '../../../scripts/gen-models.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import { embeddingText } from '../chunk/embedding-text.ts';
import { NodeFileSource } from '../source/node-source-node.ts';
import { walk } from '../walk/walker.ts';
import { decodeText } from '../index/indexer.ts';
import { createStaticTokenizer } from './static-tokenizer.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const MODELS = join(ROOT, 'models/generated');

/** Embedding texts of `count` chunks spread over the sorted walk of `dir` (every `stride`-th file). */
async function corpusTexts(dir: string, count: number, stride: number): Promise<string[]> {
  const source = new NodeFileSource(dir);
  const paths: string[] = [];
  for await (const f of walk(source)) paths.push(f.path);
  paths.sort();
  const chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
  const out: string[] = [];
  try {
    for (let i = 0; i < paths.length && out.length < count; i += stride) {
      const r = await chunker.chunkFile(paths[i]!, decodeText(await source.readFile(paths[i]!)));
      for (const c of r.chunks) out.push(embeddingText(c));
    }
  } finally {
    chunker.dispose();
  }
  return out.slice(0, count);
}

const EDGE_CASES = [
  '',
  '   \n\t  ',
  'héllo Wörld ΑΣ ΣΑΣ. naïve café Ångström',
  'foo [CLS] bar[SEP]baz [UNK] [MASK][PAD] [cls]',
  'x\u00a0y\u3000z\u2028w \ufeffv',
  '中文字符 and 日本語 한국어 mixed中english',
  'ctrl\x01chars\x7fjoin \x0bvt \x0cff tab\there\r\nend',
  'bad \ufffd replacement \u200b zero-width \u00ad soft-hyphen',
  'e\u0301 combining a\u0308 marks',
  'emoji 😀👍🏽 and 𝒳 math',
  'a'.repeat(101) + ' ' + 'b'.repeat(100) + ' ' + 'é'.repeat(101) + ' ' + 'c'.repeat(99),
  'snake_case camelCase PascalCase kebab-case SCREAMING_CASE __dunder__ $jq @decorator #include <stdio.h>',
  'ÀÉÎÕÜ ßẞ ǅ İstanbul ﬁ ligature',
  '¿¡«»—–…‘’“” punctuation',
  // Controls next to non-ASCII lines and added tokens (clean_text runs on the whole section).
  'ctrl\x01 é mixed\x02 line\r\nascii\x03line\n\x04\x05\nlast é\x7f',
  'x\x01[CLS]\x02y [SEP]\x1f',
  'all ascii\r\n\tindented;\n\n  x = y[i] + z[j]; // [MASK]ed',
];

describe('static tokenizer: fast WordPiece = @huggingface/tokenizers', () => {
  let json: unknown;
  let lib: Tokenizer;
  beforeAll(async () => {
    await ensureGeneratedModel('minilm-shape', MODELS);
    json = JSON.parse(readFileSync(join(MODELS, 'minilm-shape', 'tokenizer.json'), 'utf8'));
    lib = new Tokenizer(json as object, {});
  });

  const libIds = (text: string): number[] => lib.encode(text, { add_special_tokens: false }).ids;

  it('encodeShared gives encode\'s ids in a buffer it reuses', () => {
    const t = createStaticTokenizer(json);
    const texts = ['int main(void) { return 0; }', 'héllo wörld', 'a [SEP] b', ''];
    const shared = t.encodeShared(texts[0]!);
    expect([...shared]).toEqual(libIds(texts[0]!));
    for (const text of texts) expect([...t.encodeShared(text)], text).toEqual(libIds(text));
    // The first answer's memory was reused by the later calls.
    expect(t.encodeShared(texts[0]!).buffer).toBe(shared.buffer);
  });

  it('keeps the library\'s ids while its word table grows past its first size', () => {
    const t = createStaticTokenizer(json);
    // 40k distinct words (the table starts at 64k slots and doubles when half full), in 20 texts.
    const texts = Array.from({ length: 20 }, (_, j) => Array.from({ length: 1000 }, (_, i) => `w${j}x${i}q Zz${i * 20 + j}_y`).join(' '));
    for (const round of [1, 2]) {
      for (const text of texts) {
        const got = t.encodeShared(text);
        const want = libIds(text);
        if (got.length !== want.length || got.some((id, i) => id !== want[i])) expect([...got], `round ${round}`).toEqual(want);
      }
    }
  }, 120_000);

  it('takes the fast path for the 30,522-token BERT tokenizer', () => {
    const t = createStaticTokenizer(json);
    expect(t.path).toBe('wordpiece-fast');
    expect(t.unkId).toBe(1);
    expect(createStaticTokenizer(json, { forceLibrary: true }).path).toBe('library');
  });

  it('equals the library on edge cases', () => {
    const t = createStaticTokenizer(json);
    for (const text of EDGE_CASES) expect([...t.encode(text)], JSON.stringify(text)).toEqual(libIds(text));
    // Twice: the second answer comes from the word cache.
    for (const text of EDGE_CASES) expect([...t.encode(text)], JSON.stringify(text)).toEqual(libIds(text));
  });

  const corpora = [
    { name: 'medium (Go + JS)', dir: join(ROOT, 'bench/corpora/medium'), count: 3000, stride: 3 },
    { name: 'kernel (C)', dir: join(ROOT, 'bench/corpora/kernel'), count: 2000, stride: 17 },
    // Always there after npm ci, so a clean clone (CI) compares real code too.
    { name: 'node_modules/svelte (JS, TS declarations)', dir: join(ROOT, 'node_modules/svelte'), count: 1000, stride: 2 },
  ];
  for (const c of corpora) {
    it.skipIf(!existsSync(c.dir))(`equals the library on ${c.count} chunks of ${c.name}`, async () => {
      const texts = await corpusTexts(c.dir, c.count, c.stride);
      expect(texts.length).toBe(c.count);
      const t = createStaticTokenizer(json);
      let tokens = 0;
      let nonAscii = 0;
      for (const text of texts) {
        const want = libIds(text);
        const got = t.encode(text);
        tokens += want.length;
        if ([...text].some((ch) => ch.charCodeAt(0) >= 0x80)) nonAscii++;
        if (got.length !== want.length || got.some((id, i) => id !== want[i])) expect([...got], text.slice(0, 300)).toEqual(want);
      }
      expect(tokens).toBeGreaterThan(c.count * 20);
      // (The slow path for lines with other characters runs too; medium has some.)
      if (!c.name.startsWith('kernel')) expect(nonAscii).toBeGreaterThan(0);
    }, 120_000);
  }

  it('splits added tokens first and honours lstrip / rstrip, as the library does', () => {
    const j = structuredClone(json) as { added_tokens: Array<Record<string, unknown>>; model: { vocab: Record<string, number> } };
    const next = Object.keys(j.model.vocab).length;
    j.added_tokens.push(
      { id: next, content: '<|fn|>', single_word: false, lstrip: true, rstrip: true, normalized: false, special: false },
      { id: next + 1, content: '::', single_word: false, lstrip: false, rstrip: false, normalized: false, special: false },
    );
    const t = createStaticTokenizer(j);
    expect(t.path).toBe('wordpiece-fast');
    const l = new Tokenizer(j, {});
    for (const text of ['a  <|fn|>  b', 'std::vector<int> x::y', '<|fn|><|fn|>', 'x <|fn', '::::', ...EDGE_CASES]) {
      expect([...t.encode(text)], text).toEqual(l.encode(text, { add_special_tokens: false }).ids);
    }
  });

  it('leaves tokenizers it does not cover to the library (normalized added tokens, BPE)', () => {
    const j = structuredClone(json) as { added_tokens: Array<Record<string, unknown>> };
    j.added_tokens.push({ id: 30522, content: 'Foo Bar', normalized: true, special: false });
    const t = createStaticTokenizer(j);
    expect(t.path).toBe('library');
    expect([...t.encode('x FOO BAR y')]).toEqual(new Tokenizer(j, {}).encode('x FOO BAR y', { add_special_tokens: false }).ids);

    const bpe = {
      version: '1.0', truncation: null, padding: null, added_tokens: [{ id: 0, content: '<unk>', special: true, normalized: false }],
      normalizer: null, pre_tokenizer: { type: 'Whitespace' }, post_processor: null, decoder: null,
      model: { type: 'BPE', unk_token: '<unk>', vocab: { '<unk>': 0, a: 1, b: 2, c: 3, ab: 4, abc: 5 }, merges: ['a b', 'ab c'] },
    };
    const b = createStaticTokenizer(bpe);
    expect(b.path).toBe('library');
    expect(b.type).toBe('BPE');
    expect(b.unkId).toBe(0);
    expect([...b.encode('abc ab c a')]).toEqual([5, 4, 3, 1]);
  });
});
