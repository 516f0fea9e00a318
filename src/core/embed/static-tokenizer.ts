/**
 * Text → token ids for static (model2vec) models, from a Hugging Face `tokenizer.json`, with
 * no special tokens added (model2vec encodes with add_special_tokens=False).
 *
 * Two paths, one answer:
 * - `@huggingface/tokenizers` (the tokenizer library Transformers.js uses) reads every type
 *   (WordPiece, BPE, Unigram). It tokenised ~2,000 code chunks/s here (medium corpus, Node),
 *   too slow for a static model, whose embedding is otherwise a few table lookups.
 * - A fast WordPiece path for the BERT family (BertNormalizer + BertPreTokenizer + WordPiece,
 *   the 30,522-token vocabulary and the code models built on it): ASCII lines are normalised
 *   and split in one pass over char codes, each word's pieces are cached, and lines holding
 *   other characters go through the library's own normalizer and pre-tokenizer (Unicode
 *   classes, accents, CJK), so both paths give the library's ids. static-tokenizer.test.ts
 *   checks that on thousands of real chunks and on edge cases.
 *
 * Invariants:
 * - `encode(text)` returns exactly `library.encode(text, { add_special_tokens: false }).ids`
 *   (unknown words included as the unk id; the embedder drops them).
 * - Added tokens that are matched before normalisation (BERT's [CLS], [SEP], … are) are split
 *   out first, as the library does; a tokenizer with added tokens matched after normalisation
 *   takes the library path.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import { escapeRegExp } from '../text/regexp.ts';

export interface StaticTokenizer {
  /** Which path encodes: 'wordpiece-fast' or 'library'. */
  readonly path: 'wordpiece-fast' | 'library';
  /** Tokenizer model type from tokenizer.json ('WordPiece', 'BPE', 'Unigram', …). */
  readonly type: string;
  /** The unknown token's id (removed before pooling), or null when the model has none. */
  readonly unkId: number | null;
  /** Every token string (added tokens included), for model2vec's median token length. */
  vocabTokens(): Iterable<string>;
  /** Ids of `text` without post-processing specials. */
  encode(text: string): Int32Array;
  /**
   * The same ids, in a buffer the tokenizer reuses: valid until its next call (the embedder's
   * hot path, which allocates nothing per text this way).
   */
  encodeShared(text: string): Int32Array;
}

interface TokenizerJson {
  model?: { type?: string; unk_token?: unknown; continuing_subword_prefix?: unknown; max_input_chars_per_word?: unknown; vocab?: unknown };
  normalizer?: { type?: string; clean_text?: unknown; handle_chinese_chars?: unknown; strip_accents?: unknown; lowercase?: unknown } | null;
  pre_tokenizer?: { type?: string } | null;
  added_tokens?: Array<{ id: number; content: string; lstrip?: boolean; rstrip?: boolean; special?: boolean; normalized?: boolean }>;
}

/** The library's tokenizer; `config` is {} as model2vec uses tokenizer.json alone. */
function libraryTokenizer(json: TokenizerJson): Tokenizer {
  const full = { normalizer: null, pre_tokenizer: null, post_processor: null, decoder: null, added_tokens: [], ...json };
  return new Tokenizer(full, {});
}

function unkIdOf(json: TokenizerJson, lib: Tokenizer): number | null {
  const unk = json.model?.unk_token;
  if (typeof unk !== 'string') return null;
  return lib.token_to_id(unk) ?? null;
}

class LibraryTokenizer implements StaticTokenizer {
  readonly path = 'library' as const;
  constructor(
    private readonly lib: Tokenizer,
    readonly type: string,
    readonly unkId: number | null,
  ) {}
  vocabTokens(): Iterable<string> {
    return this.lib.get_vocab(true).keys();
  }
  encode(text: string): Int32Array {
    return Int32Array.from(this.lib.encode(text, { add_special_tokens: false }).ids);
  }
  encodeShared(text: string): Int32Array {
    return this.encode(text);
  }
}

/** A trie over UTF-16 code units: longest match at a position, as the library's DictionarySplitter. */
interface TrieNode {
  next: Map<number, TrieNode>;
  end: string | null;
}

function buildTrie(words: string[]): TrieNode {
  const root: TrieNode = { next: new Map(), end: null };
  for (const w of words) {
    let node = root;
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i);
      let n = node.next.get(c);
      if (!n) node.next.set(c, (n = { next: new Map(), end: null }));
      node = n;
    }
    node.end = w;
  }
  return root;
}

/** ASCII punctuation as BertPreTokenizer splits it (\p{P} and the ASCII symbol ranges). */
const ASCII_PUNCT = new Uint8Array(128);
for (let c = 0x21; c <= 0x7e; c++) {
  if ((c <= 0x2f) || (c >= 0x3a && c <= 0x40) || (c >= 0x5b && c <= 0x60) || c >= 0x7b) ASCII_PUNCT[c] = 1;
}
function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** Word cache entries before it is cleared (bounded memory on huge vocabularies of names). */
const WORD_CACHE_MAX = 200_000;
// BertNormalizer's clean_text removes these ASCII controls (tab, LF and CR become spaces).
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;
// eslint-disable-next-line no-control-regex
const CONTROLS_ALL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/**
 * ASCII word → piece ids, an open-addressing hash table over typed arrays: a word's chars
 * (lowercased when the normalizer lowercases) are compared in place in the line, so a word
 * seen before costs its hash and one comparison, no allocation. It doubles when half full, up
 * to MAX_SLOTS (a whole kernel pass meets hundreds of thousands of distinct words: a table cleared at 131k
 * re-ran WordPiece for most of them), and is cleared only past that.
 */
class WordTable {
  static readonly MAX_WORD = 64;
  private static readonly MIN_SLOTS = 1 << 16;
  private static readonly MAX_SLOTS = 1 << 20;
  private slots = WordTable.MIN_SLOTS;
  private keyOff = new Int32Array(this.slots).fill(-1);
  private keyLen = new Int32Array(this.slots);
  private keyHash = new Int32Array(this.slots);
  valOff = new Int32Array(this.slots);
  valLen = new Int32Array(this.slots);
  private chars = new Uint16Array(this.slots * 8);
  ids = new Int32Array(this.slots * 2);
  private charsUsed = 0;
  private idsUsed = 0;
  private count = 0;

  /** The word's slot, or -1. */
  find(line: string, start: number, len: number, hash: number, fold: boolean): number {
    const mask = this.slots - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const off = this.keyOff[slot];
      if (off < 0) return -1;
      if (this.keyHash[slot] !== hash || this.keyLen[slot] !== len) continue;
      let same = true;
      for (let k = 0; k < len; k++) {
        let c = line.charCodeAt(start + k);
        if (fold && c >= 65 && c <= 90) c += 32;
        if (this.chars[off + k] !== c) {
          same = false;
          break;
        }
      }
      if (same) return slot;
    }
  }

  add(line: string, start: number, len: number, hash: number, fold: boolean, hit: number | Int32Array): void {
    const nIds = typeof hit === 'number' ? 1 : hit.length;
    if (this.count * 2 >= this.slots || this.charsUsed + len > this.chars.length || this.idsUsed + nIds > this.ids.length) {
      if (this.slots < WordTable.MAX_SLOTS) this.grow();
      else this.clear();
    }
    if (nIds > this.ids.length || this.charsUsed + len > this.chars.length) return;
    const mask = this.slots - 1;
    let slot = hash & mask;
    while (this.keyOff[slot] >= 0) slot = (slot + 1) & mask;
    this.keyOff[slot] = this.charsUsed;
    this.keyLen[slot] = len;
    this.keyHash[slot] = hash;
    for (let k = 0; k < len; k++) {
      let c = line.charCodeAt(start + k);
      if (fold && c >= 65 && c <= 90) c += 32;
      this.chars[this.charsUsed++] = c;
    }
    this.valOff[slot] = this.idsUsed;
    this.valLen[slot] = nIds;
    if (typeof hit === 'number') this.ids[this.idsUsed++] = hit;
    else {
      this.ids.set(hit, this.idsUsed);
      this.idsUsed += nIds;
    }
    this.count++;
  }

  /** Twice the slots (keys re-placed by their stored hash) and twice the room for chars and ids. */
  private grow(): void {
    const old = { keyOff: this.keyOff, keyLen: this.keyLen, keyHash: this.keyHash, valOff: this.valOff, valLen: this.valLen };
    const n = old.keyOff.length;
    this.slots = n * 2;
    const mask = this.slots - 1;
    this.keyOff = new Int32Array(this.slots).fill(-1);
    this.keyLen = new Int32Array(this.slots);
    this.keyHash = new Int32Array(this.slots);
    this.valOff = new Int32Array(this.slots);
    this.valLen = new Int32Array(this.slots);
    for (let i = 0; i < n; i++) {
      if (old.keyOff[i] < 0) continue;
      let slot = old.keyHash[i] & mask;
      while (this.keyOff[slot] >= 0) slot = (slot + 1) & mask;
      this.keyOff[slot] = old.keyOff[i];
      this.keyLen[slot] = old.keyLen[i];
      this.keyHash[slot] = old.keyHash[i];
      this.valOff[slot] = old.valOff[i];
      this.valLen[slot] = old.valLen[i];
    }
    const chars = new Uint16Array(this.chars.length * 2);
    chars.set(this.chars.subarray(0, this.charsUsed));
    this.chars = chars;
    const ids = new Int32Array(this.ids.length * 2);
    ids.set(this.ids.subarray(0, this.idsUsed));
    this.ids = ids;
  }

  private clear(): void {
    this.keyOff.fill(-1);
    this.charsUsed = 0;
    this.idsUsed = 0;
    this.count = 0;
  }
}

/**
 * The vocabulary's ASCII pieces as two tries over char codes — word-initial pieces (root 0) and
 * continuation pieces without their prefix (root 1) — in one open-addressing table keyed by
 * (node, char): the longest piece at a position is one walk with no substring made. WordPiece
 * on a word not seen before was the embedding threads' largest tokenizer cost on the kernel
 * (a Map lookup of a fresh substring for every candidate length).
 */
class PieceTrie {
  /** (node × 128 + char) + 1 per slot; 0 = empty. */
  private readonly keys: Int32Array;
  private readonly children: Int32Array;
  private readonly shift: number;
  /** Token id ending at each node, or -1. */
  readonly term: Int32Array;

  constructor(vocab: ReadonlyMap<string, number>, prefix: string) {
    const entries: Array<[string, number, number]> = [];
    let chars = 0;
    for (const [t, id] of vocab) {
      const cont = t.startsWith(prefix) && t.length > prefix.length;
      const s = cont ? t.slice(prefix.length) : t;
      if (s.length === 0 || !isAscii(s)) continue;
      entries.push([s, id, cont ? 1 : 0]);
      chars += s.length;
    }
    let size = 1 << 10;
    while (size < chars * 2) size <<= 1;
    this.shift = 32 - Math.log2(size);
    this.keys = new Int32Array(size);
    this.children = new Int32Array(size);
    const term = new Int32Array(chars + 2).fill(-1);
    let nodes = 2;
    for (const [s, id, root] of entries) {
      let node = root;
      for (let i = 0; i < s.length; i++) {
        const key = node * 128 + s.charCodeAt(i) + 1;
        let slot = Math.imul(key, 0x9e3779b1) >>> this.shift;
        while (this.keys[slot] !== 0 && this.keys[slot] !== key) slot = (slot + 1) & (size - 1);
        if (this.keys[slot] === 0) {
          this.keys[slot] = key;
          this.children[slot] = nodes++;
        }
        node = this.children[slot];
      }
      term[node] = id;
    }
    this.term = term;
  }

  /** The child of `node` by ASCII char `c`, or -1. */
  child(node: number, c: number): number {
    const key = node * 128 + c + 1;
    const mask = this.keys.length - 1;
    for (let slot = Math.imul(key, 0x9e3779b1) >>> this.shift; ; slot = (slot + 1) & mask) {
      const k = this.keys[slot];
      if (k === key) return this.children[slot];
      if (k === 0) return -1;
    }
  }
}

class FastWordPiece implements StaticTokenizer {
  readonly path = 'wordpiece-fast' as const;
  readonly type = 'WordPiece';
  readonly unkId: number | null;
  private readonly vocab: Map<string, number>;
  private readonly prefix: string;
  private readonly maxChars: number;
  /** Longest vocabulary entry in code units (without the prefix): no longer piece can match. */
  private readonly maxPiece: number;
  /** The ASCII pieces, for WordPiece on ASCII words. */
  private readonly pieces: PieceTrie;
  private readonly unk: number;
  private readonly lowercase: boolean;
  private readonly cleanText: boolean;
  private readonly added: Map<string, { id: number; lstrip: boolean; rstrip: boolean }>;
  private readonly trie: TrieNode | null;
  /** Matches any added token's content (whether splitAdded has work to do). */
  private readonly addedRe: RegExp | null;
  /** ASCII characters an added token starts with. */
  private readonly firstAscii = new Uint8Array(128);
  /** Word → its piece ids: one id, or several. */
  private readonly cache = new Map<string, number | Int32Array>();
  private readonly table = new WordTable();
  /** Each ASCII punctuation character's pieces (one word each). */
  private readonly punct: Array<number | Int32Array> = [];
  private buf = new Int32Array(1024);
  private n = 0;

  constructor(
    private readonly lib: Tokenizer,
    json: TokenizerJson,
    unkId: number,
  ) {
    const m = json.model!;
    this.unkId = unkId;
    this.unk = unkId;
    // The library's map: the model's vocabulary plus every added token's content.
    this.vocab = new Map(lib.get_vocab(true));
    this.prefix = typeof m.continuing_subword_prefix === 'string' ? m.continuing_subword_prefix : '##';
    this.maxChars = typeof m.max_input_chars_per_word === 'number' ? m.max_input_chars_per_word : 100;
    let longest = 0;
    for (const t of this.vocab.keys()) longest = Math.max(longest, t.startsWith(this.prefix) ? t.length - this.prefix.length : t.length);
    this.maxPiece = longest;
    this.pieces = new PieceTrie(this.vocab, this.prefix);
    const nz = json.normalizer!;
    this.lowercase = nz.lowercase === true;
    this.cleanText = nz.clean_text === true;
    const added = json.added_tokens ?? [];
    this.added = new Map(added.map((t) => [t.content, { id: t.id, lstrip: t.lstrip === true, rstrip: t.rstrip === true }]));
    this.trie = added.length ? buildTrie(added.map((t) => t.content)) : null;
    this.addedRe = added.length ? new RegExp(added.map((t) => escapeRegExp(t.content)).join('|')) : null;
    for (const t of added) if (t.content.charCodeAt(0) < 128) this.firstAscii[t.content.charCodeAt(0)] = 1;
    for (let c = 0; c < 128; c++) this.punct.push(ASCII_PUNCT[c] ? this.wordPiece(String.fromCharCode(c)) : this.unk);
  }

  vocabTokens(): Iterable<string> {
    return this.vocab.keys();
  }

  encode(text: string): Int32Array {
    return this.encodeShared(text).slice();
  }

  encodeShared(text: string): Int32Array {
    this.n = 0;
    // Most texts hold no added token: one native regex test instead of the trie walk.
    if (this.trie && this.addedRe!.test(text)) {
      for (const s of this.splitAdded(text)) {
        if (s.length === 0) continue;
        const tok = this.added.get(s);
        if (tok) this.push(tok.id);
        else this.encodeSection(s);
      }
    } else if (text.length) {
      this.encodeSection(text);
    }
    return this.buf.subarray(0, this.n);
  }

  /** The library's added-token split, lstrip/rstrip included. */
  private splitAdded(text: string): string[] {
    const out: string[] = [];
    const root = this.trie!;
    let start = 0;
    let i = 0;
    const n = text.length;
    const first = this.firstAscii;
    while (i < n) {
      const c0 = text.charCodeAt(i);
      // Most characters start no added token: one table read (ASCII) instead of a Map lookup.
      if (c0 < 128 && !first[c0]) {
        i++;
        continue;
      }
      let node: TrieNode | undefined = root.next.get(c0);
      if (!node) {
        i++;
        continue;
      }
      let match: string | null = null;
      for (let j = i + 1; node; j++) {
        if (node.end !== null) match = node.end;
        if (j >= n) break;
        node = node.next.get(text.charCodeAt(j));
      }
      if (match === null) {
        i++;
        continue;
      }
      if (i > start) out.push(text.slice(start, i));
      out.push(match);
      i += match.length;
      start = i;
    }
    if (start < n) out.push(text.slice(start));
    if (out.length > 1) {
      for (let k = 0; k < out.length; k++) {
        const t = this.added.get(out[k]);
        if (!t) continue;
        if (t.lstrip && k > 0) out[k - 1] = out[k - 1].trimEnd();
        if (t.rstrip && k < out.length - 1) out[k + 1] = out[k + 1].trimStart();
      }
    }
    return out;
  }

  private push(id: number): void {
    if (this.n === this.buf.length) {
      const b = new Int32Array(this.buf.length * 2);
      b.set(this.buf);
      this.buf = b;
    }
    this.buf[this.n++] = id;
  }

  /**
   * A section without added tokens. clean_text's removal of ASCII controls (never tab, LF or
   * CR) is done on the whole section first — the library's normalizer would remove them too.
   * All-ASCII (nearly every code chunk): one pass over the whole section, since every split
   * point is whitespace or punctuation and a line break is whitespace. Otherwise line by line:
   * ASCII lines here, the others through the library's normalizer and pre-tokenizer.
   */
  private encodeSection(raw: string): void {
    const s = this.cleanText && CONTROLS.test(raw) ? raw.replace(CONTROLS_ALL, '') : raw;
    if (!NON_ASCII.test(s)) {
      this.encodeAsciiLine(s);
      return;
    }
    let lineStart = 0;
    let ascii = true;
    const n = s.length;
    for (let i = 0; i <= n; i++) {
      const c = i < n ? s.charCodeAt(i) : 10;
      if (c === 10) {
        if (i > lineStart) {
          const line = s.slice(lineStart, i);
          if (ascii) this.encodeAsciiLine(line);
          else this.encodeWords(this.lib.pre_tokenizer ? this.lib.pre_tokenizer(this.lib.normalizer ? this.lib.normalizer(line) : line) : [line]);
        }
        lineStart = i + 1;
        ascii = true;
      } else if (c >= 0x80) {
        ascii = false;
      }
    }
  }

  /**
   * BertNormalizer + BertPreTokenizer + WordPiece on an ASCII line, in one pass over its char
   * codes: no string is made for a word already seen (WordTable), lowercasing is folded into
   * the hash and the comparison.
   */
  private encodeAsciiLine(line: string): void {
    // (clean_text's control characters are gone already: encodeSection.)
    const fold = this.lowercase;
    let start = -1;
    let hash = 0;
    const n = line.length;
    for (let i = 0; i < n; i++) {
      let c = line.charCodeAt(i);
      // JS \s in ASCII: tab, LF, VT, FF, CR, space (VT/FF only survive without clean_text).
      if (c === 32 || (c >= 9 && c <= 13)) {
        if (start >= 0) {
          this.asciiWord(line, start, i, hash);
          start = -1;
        }
      } else if (ASCII_PUNCT[c]) {
        if (start >= 0) {
          this.asciiWord(line, start, i, hash);
          start = -1;
        }
        this.emit(this.punct[c]);
      } else {
        if (start < 0) {
          start = i;
          hash = FNV_OFFSET;
        }
        if (fold && c >= 65 && c <= 90) c += 32;
        hash = Math.imul(hash ^ c, FNV_PRIME);
      }
    }
    if (start >= 0) this.asciiWord(line, start, n, hash);
  }

  private emit(hit: number | Int32Array): void {
    if (typeof hit === 'number') this.push(hit);
    else for (let i = 0; i < hit.length; i++) this.push(hit[i]);
  }

  /** line[start, end) as a word (ASCII, no whitespace or punctuation), `hash` its folded FNV-1a. */
  private asciiWord(line: string, start: number, end: number, hash: number): void {
    const t = this.table;
    const fold = this.lowercase;
    const len = end - start;
    if (len <= WordTable.MAX_WORD) {
      const slot = t.find(line, start, len, hash, fold);
      if (slot >= 0) {
        const off = t.valOff[slot];
        const cnt = t.valLen[slot];
        if (cnt === 1) this.push(t.ids[off]);
        else for (let k = 0; k < cnt; k++) this.push(t.ids[off + k]);
        return;
      }
    }
    let w = line.slice(start, end);
    if (fold) w = w.toLowerCase();
    const hit = this.wordPiece(w);
    if (len <= WordTable.MAX_WORD) t.add(line, start, len, hash, fold, hit);
    this.emit(hit);
  }

  private encodeWords(words: string[]): void {
    for (const w of words) this.word(w);
  }

  private word(w: string): void {
    let hit = this.cache.get(w);
    if (hit === undefined) {
      hit = this.wordPiece(w);
      if (this.cache.size >= WORD_CACHE_MAX) this.cache.clear();
      this.cache.set(w, hit);
    }
    this.emit(hit);
  }

  /** Greedy longest-match-first over code points, as the library's WordPiece model. */
  private wordPiece(w: string): number | Int32Array {
    const whole = this.vocab.get(w);
    // (A word longer than max_input_chars_per_word is unk even when it is in the vocabulary.)
    const asciiOnly = isAscii(w);
    const chars = asciiOnly ? null : [...w];
    const len = chars ? chars.length : w.length;
    if (len > this.maxChars) return this.unk;
    if (whole !== undefined) return whole;
    if (asciiOnly) return this.asciiWordPiece(w);
    const ids: number[] = [];
    let start = 0;
    while (start < len) {
      let end = chars ? len : Math.min(len, start + this.maxPiece);
      let id: number | undefined;
      while (start < end) {
        const piece = chars ? chars.slice(start, end).join('') : w.slice(start, end);
        id = this.vocab.get(start > 0 ? this.prefix + piece : piece);
        if (id !== undefined) break;
        end--;
      }
      if (id === undefined) return this.unk;
      ids.push(id);
      start = end;
    }
    return ids.length === 1 ? ids[0] : Int32Array.from(ids);
  }

  /** wordPiece for an ASCII word: at each position the longest piece is the last token on its trie walk. */
  private asciiWordPiece(w: string): number | Int32Array {
    const trie = this.pieces;
    const ids: number[] = [];
    const len = w.length;
    let start = 0;
    while (start < len) {
      let node = start === 0 ? 0 : 1;
      let best = -1;
      let bestEnd = start;
      for (let i = start; i < len; i++) {
        node = trie.child(node, w.charCodeAt(i));
        if (node < 0) break;
        const t = trie.term[node];
        if (t >= 0) {
          best = t;
          bestEnd = i + 1;
        }
      }
      if (best < 0) return this.unk;
      ids.push(best);
      start = bestEnd;
    }
    return ids.length === 1 ? ids[0] : Int32Array.from(ids);
  }
}

/** Whether the fast path gives the library's answer for this tokenizer.json. */
function fastWordPieceFits(json: TokenizerJson, unkId: number | null): unkId is number {
  const m = json.model;
  const nz = json.normalizer;
  if (m?.type !== 'WordPiece' || unkId === null || (m as { fuse_unk?: unknown }).fuse_unk === true) return false;
  if (!nz || nz.type !== 'BertNormalizer' || json.pre_tokenizer?.type !== 'BertPreTokenizer') return false;
  // Added tokens matched after normalisation would need a second split: the library does that.
  return (json.added_tokens ?? []).every((t) => (t.normalized ?? !t.special) === false);
}

/** A tokenizer for `tokenizer.json` (parsed); `forceLibrary` for tests and the bench. */
export function createStaticTokenizer(json: unknown, opts: { forceLibrary?: boolean } = {}): StaticTokenizer {
  if (typeof json !== 'object' || json === null || typeof (json as TokenizerJson).model !== 'object') {
    throw new Error('tokenizer.json has no "model"');
  }
  const j = json as TokenizerJson;
  const lib = libraryTokenizer(j);
  const unkId = unkIdOf(j, lib);
  if (!opts.forceLibrary && fastWordPieceFits(j, unkId)) return new FastWordPiece(lib, j, unkId);
  return new LibraryTokenizer(lib, String(j.model?.type ?? 'unknown'), unkId);
}
