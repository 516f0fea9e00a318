/**
 * What a chunk is embedded as. Kept apart from the embedder so the indexer and its workers
 * compute content hashes (the embedding cache key) without loading Transformers.js.
 * Changing the output changes every content hash, so every index re-embeds.
 */

import { sha256HexSync } from '../hash/hash.ts';

/**
 * Hex characters of a content hash (the embedding cache key): the first 64 bits of
 * sha256(embeddingText). Schema 6 shortened it from 64 characters: 48 bytes less per chunk
 * row and per cached embedding (kernel subset: 11.7 MB of 243k chunk rows), and a collision
 * among even 10^8 distinct chunks has odds of ~3e-4 (birthday bound n^2 / 2^65) — it would
 * only make one chunk reuse another's vector.
 */
export const CONTENT_HASH_CHARS = 16;

/** A chunk's content hash: the embedding cache key, a pure function of embeddingText. */
export function contentHashOf(chunk: EmbeddingSource, sha256Hex: (text: string) => string = sha256HexSync): string {
  return sha256Hex(embeddingText(chunk)).slice(0, CONTENT_HASH_CHARS);
}

/** How far into the body to look for the signature before repeating it in the header. */
const SIGNATURE_LOOKAHEAD_CHARS = 400;

export interface EmbeddingSource {
  path: string;
  symbol: string | null;
  parent: string | null;
  signature: string | null;
  language: string;
  content: string;
  /** Carried signature of a later piece of a split definition (Chunk.context). */
  context?: string | null;
}

/**
 * The text a chunk is embedded as: a short header (path and language, qualified symbol,
 * the signature when the body does not start with it) and the body (a split definition's
 * later piece: its carried context, then its content). sha256 of this
 * string is the chunk's contentHash, so it must stay a pure function of these fields.
 */
export function embeddingText(chunk: EmbeddingSource): string {
  const header: string[] = [chunk.language ? `${chunk.path} (${chunk.language})` : chunk.path];
  if (chunk.symbol) header.push(chunk.parent ? `${chunk.parent}.${chunk.symbol}` : chunk.symbol);
  // A later piece of a split definition is embedded with the definition's signature rows in
  // front (the context it carries), as a reader sees it under its breadcrumb.
  const body = chunk.context ? `${chunk.context}\n${chunk.content}` : chunk.content;
  const signature = chunk.signature?.trim();
  if (signature && !body.slice(0, SIGNATURE_LOOKAHEAD_CHARS + signature.length).includes(signature)) {
    header.push(signature);
  }
  return `${header.join('\n')}\n\n${body}`;
}
