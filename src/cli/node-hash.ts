/**
 * Node's native SHA-256 (lower-case hex of the bytes; a string's UTF-8 bytes), for chunk content
 * hashes where the CLI chunks (its main thread and its chunk workers): the pure-JS one of
 * core/hash was ~4% of a chunking thread's CPU. Same result (core's prepareChunks `sha256Hex`
 * contract). Also the CLI's file hashes (indexCodebase's `hashFile`: core/hash's `sha256Hex`
 * of the same bytes, without WebCrypto's thread-pool job and promise per file).
 * The one-shot `hash` (Node ≥ 20.12; package.json asks ≥ 20.19) makes no Hash object per call.
 */
import { hash } from 'node:crypto';

export const nativeSha256 = (data: string | Uint8Array): string => hash('sha256', data, 'hex');
