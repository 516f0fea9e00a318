/**
 * Token budgets and cursors of the agent tools (issue 26).
 *
 * The rule: an answer — its text AND its structured content, as the MCP result carries them
 * (JSON, escapes included) — is at most `max_tokens` tokens, counted conservatively: every
 * character outside ASCII counts as 3 (its UTF-8 bytes, at most), a character of the serialized
 * answer is a third of a token, and ANSWER_OVERHEAD_TOKENS are kept for the envelope. Real
 * tokenizers give fewer tokens than bytes/3 for code, so an answer is never over its budget.
 *
 * Cursors are opaque strings: the offset to continue from and a fingerprint of the arguments
 * (a cursor given with other arguments is refused with a clear message), base64url-encoded.
 */

/** Tokens kept for the JSON-RPC envelope around the result. */
export const ANSWER_OVERHEAD_TOKENS = 40;
/** Serialized characters per token (conservative). */
export const CHARS_PER_TOKEN = 3;

/** Weight of an already-serialized string: ASCII 1, other BMP code units 3, surrogates 3 each. */
export function serializedWeight(s: string): number {
  let w = s.length;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) w += 2;
  return w;
}

/** Weight of `s` once JSON-serialized as a string value (quotes not counted). */
export function jsonStringWeight(s: string): number {
  let w = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) w += 2;
    else if (c < 0x20) w += c === 10 || c === 13 || c === 9 || c === 8 || c === 12 ? 2 : 6;
    else if (c > 0x7f) w += c >= 0xd800 && c <= 0xdfff ? 6 : 3;
    else w += 1;
  }
  return w;
}

/** Weight of a value once JSON-serialized. */
export function jsonWeight(v: unknown): number {
  return serializedWeight(JSON.stringify(v) ?? '');
}

export function tokensOfWeight(w: number): number {
  return Math.ceil(w / CHARS_PER_TOKEN);
}

/** Conservative tokens of text (as it travels inside JSON). */
export function estimateTokens(text: string): number {
  return tokensOfWeight(jsonStringWeight(text));
}

/** The MCP result an answer becomes (what its budget is checked on). */
export function resultEnvelope(text: string, structured: unknown, isError = false): Record<string, unknown> {
  return { content: [{ type: 'text', text }], structuredContent: structured, isError };
}

/** Tokens of a whole answer: text + structured content, serialized as the MCP result. */
export function answerTokens(text: string, structured: unknown): number {
  return tokensOfWeight(jsonWeight(resultEnvelope(text, structured))) + ANSWER_OVERHEAD_TOKENS;
}

/** Budget in weight units (serialized chars) for an answer of `maxTokens`. */
export function weightBudget(maxTokens: number): number {
  return (maxTokens - ANSWER_OVERHEAD_TOKENS) * CHARS_PER_TOKEN;
}

// ---- cursors -------------------------------------------------------------------------

/** FNV-1a over the canonical JSON of the arguments that define a result list. */
export function fingerprint(tool: string, args: Record<string, unknown>): string {
  const keys = Object.keys(args).filter((k) => args[k] !== undefined).sort();
  const canon = JSON.stringify([tool, keys.map((k) => [k, args[k]])]);
  let h = 0x811c9dc5;
  for (let i = 0; i < canon.length; i++) {
    h ^= canon.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

function toBase64Url(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): string | null {
  try {
    const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

export function encodeCursor(fp: string, offset: number): string {
  return toBase64Url(JSON.stringify({ f: fp, o: offset }));
}

/** The offset a cursor continues from, or a message saying why it cannot be used. */
export function decodeCursor(cursor: string, fp: string): { offset: number } | { error: string } {
  const raw = fromBase64Url(cursor.trim());
  let v: unknown = null;
  try {
    v = raw === null ? null : JSON.parse(raw);
  } catch {
    v = null;
  }
  const o = v as { f?: unknown; o?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.f !== 'string' || typeof o.o !== 'number' || !Number.isInteger(o.o) || o.o < 0) {
    return { error: 'invalid cursor: pass back the next_cursor string of a previous answer unchanged' };
  }
  if (o.f !== fp) return { error: 'this cursor belongs to a call with other arguments: repeat the same arguments with it (max_tokens may change)' };
  return { offset: o.o };
}
