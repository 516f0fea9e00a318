/**
 * The first-index scan thread of one folder (mcp-scan-worker.ts), seen from `sift mcp`'s main
 * thread. main.ts starts one for each folder that has no index file yet, before the MCP chunk
 * loads, so the folder is walked and read on another core while this thread starts the server;
 * mcp-codebase.ts #storeWanted then asks it for the files a first `search` wants, instead of a
 * walk, reads and a scan of its own on the way to the answer. Its answer is the same files,
 * texts and stored items (the same walker rules, filesHoldingMost and storedAheadItem).
 * Stopped when the first index is complete (or the index was not new after all).
 */
import { Worker } from 'node:worker_threads';
import type { WalkedFile, WalkOptions } from '../core/walk/walker.ts';
import type { WriteItem } from '../core/store/store.ts';
import type { ScanFor } from './mcp-disk.ts';
import { cliWorkerEntry, workerBootstrap } from './chunk-pool.ts';
import { trace } from './trace.ts';

/**
 * A first search's scan reads the first this many bytes of files in walk order (a bound in bytes,
 * not time, so what is found does not depend on the machine's load): mcp-codebase.ts #storeWanted.
 */
export const WANTED_SCAN_BYTES = 32 * 2 ** 20;

/**
 * Whether to start a scan thread: only when asked (SIFT_MCP_FIRST_SCAN=1). It moves the walk, the
 * reads and the scan off the main thread, but costs CPU of its own (a thread's start, and the code on
 * it cold: ~0.5-0.7 s of CPU for 1,000 files on the 2-core VM). At raised priority on a loaded VM it
 * shortened the first answer (973 against 1,053 ms median); on the quiet VM, alternated with 010b77f,
 * it lengthened it (1,078 and 1,095 against 953 and 907 ms, 2 x 3 runs) and an edit made during the
 * first index was found 484-501 ms after it against 146-149 ms; with every core busy it only adds CPU.
 * So it is off unless asked for (docs/performance.md).
 */
export function firstScanPays(): boolean {
  return process.env.SIFT_MCP_FIRST_SCAN === '1';
}

export interface FirstScanData {
  root: string;
  walk: Omit<WalkOptions, 'signal' | 'onSkip'>;
  /** Texts read, in walk order, up to this many bytes (by stat size): WANTED_SCAN_BYTES. */
  maxBytes: number;
}
export interface FirstScanRequest {
  id: number;
  terms: string[];
  max: number;
  scanFor: ScanFor;
}
export type FirstScanItems = Array<{ file: WalkedFile; item: WriteItem }>;
export type FirstScanReply = { ready: number } | { failed: string } | { id: number; items: FirstScanItems } | { id: number; failed: string };

export class FirstScan {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (items: FirstScanItems) => void; reject: (e: Error) => void }>();
  #next = 0;
  #dead: string | null = null;

  constructor(data: FirstScanData) {
    this.#worker = new Worker(workerBootstrap(cliWorkerEntry('mcp-scan-worker')), { eval: true, workerData: data });
    this.#worker.unref();
    trace(`first scan thread ${this.#worker.threadId} spawned`);
    this.#worker.on('message', (m: FirstScanReply) => {
      if ('ready' in m) trace(`first scan thread walked and read ${m.ready} files`);
      else if (!('id' in m)) this.#fail(m.failed);
      else {
        const p = this.#pending.get(m.id);
        this.#pending.delete(m.id);
        if ('items' in m) p?.resolve(m.items);
        else p?.reject(new Error(m.failed));
      }
    });
    this.#worker.on('error', (e: Error) => this.#fail(e.message));
    this.#worker.on('exit', (code: number) => this.#fail(`exit code ${code}`));
  }

  /** The files (at most `max`) that hold the most of `terms` (scanTerms), as storedAheadItem makes them; rejects when the thread cannot answer. */
  filesHolding(terms: string[], max: number, scanFor: ScanFor): Promise<FirstScanItems> {
    if (this.#dead) return Promise.reject(new Error(this.#dead));
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ id, terms, max, scanFor } satisfies FirstScanRequest);
    });
  }

  #fail(why: string): void {
    this.#dead ??= `the first scan thread stopped: ${why.split('\n')[0]}`;
    for (const p of this.#pending.values()) p.reject(new Error(this.#dead));
    this.#pending.clear();
    void this.#worker.terminate();
  }

  dispose(): void {
    this.#fail('no longer needed');
  }
}
