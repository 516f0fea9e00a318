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

/**
 * The same digest as bytes, for the Merkle root's leaves and nodes (indexCodebase's
 * `sha256Digest`): core's pure-JS SHA-256 runs cold in a short process (plug, 100 files:
 * 12–17 ms of CPU for the root's 199 digests).
 */
export const nativeSha256Digest = (data: string | Uint8Array): Uint8Array => hash('sha256', data, 'buffer');
