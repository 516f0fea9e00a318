/**
 * What a chunk is embedded as. Kept apart from the embedder so the indexer and its workers
 * compute content hashes (the embedding cache key) without loading Transformers.js.
 * Changing the output changes every content hash, so every index re-embeds.
 */

/** How far into the body to look for the signature before repeating it in the header. */
const SIGNATURE_LOOKAHEAD_CHARS = 400;

export interface EmbeddingSource {
  path: string;
  symbol: string | null;
  parent: string | null;
  signature: string | null;
  language: string;
  content: string;
}

/**
 * The text a chunk is embedded as: a short header (path and language, qualified symbol,
 * the signature when the body does not start with it) and the body. sha256 of this
 * string is the chunk's contentHash, so it must stay a pure function of these fields.
 */
export function embeddingText(chunk: EmbeddingSource): string {
  const header: string[] = [chunk.language ? `${chunk.path} (${chunk.language})` : chunk.path];
  if (chunk.symbol) header.push(chunk.parent ? `${chunk.parent}.${chunk.symbol}` : chunk.symbol);
  const signature = chunk.signature?.trim();
  if (signature && !chunk.content.slice(0, SIGNATURE_LOOKAHEAD_CHARS + signature.length).includes(signature)) {
    header.push(signature);
  }
  return `${header.join('\n')}\n\n${chunk.content}`;
}
