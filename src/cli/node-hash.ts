/**
 * Node's native SHA-256 (lower-case hex of the UTF-8 bytes), for chunk content hashes where
 * the CLI chunks (its main thread and its chunk workers): the pure-JS one of core/hash was ~4%
 * of a chunking thread's CPU. Same result (core's prepareChunks `sha256Hex` contract).
 * The one-shot `hash` (Node ≥ 20.12; package.json asks ≥ 20.19) makes no Hash object per call.
 */
import { hash } from 'node:crypto';

export const nativeSha256 = (text: string): string => hash('sha256', text, 'hex');
