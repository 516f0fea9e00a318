/**
 * `sift mcp`'s first-index scan thread (mcp-first-scan.ts): started with the server for a folder
 * that has no index yet, it walks the folder (the walker's rules, as the index run and DiskView)
 * and reads the texts of its first `maxBytes` of files while the main thread loads the bundle,
 * opens the index and answers `initialize`. A call's scan terms then get the files that hold
 * them most (filesHoldingMost, DiskView.filesHolding's rule) as the index stores them ahead
 * (storedAheadItem, with the text packed and its trigram keys made here): the first `search`
 * waits for neither a walk nor a read nor a scan on the main thread.
 *
 * Protocol: `{ ready: files }` once walked and read, or `{ failed }`; for each `{ id, terms, max, scanFor }`
 * one `{ id, items }` (or `{ id, failed }`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { NodeFileSource } from '../core/source/node-source-node.ts';
import { packText } from '../core/store/text-codec.ts';
import { nodeTextCodec } from '../core/store/text-codec-node.ts';
import { fileTrigramKeys } from '../core/text/trigram-keys.ts';
import { diskText, filesHoldingMost, storedAheadItem, walkFiles } from './mcp-disk.ts';
import type { WalkedFile } from '../core/walk/walker.ts';
import type { FirstScanData, FirstScanReply, FirstScanRequest } from './mcp-first-scan.ts';

const port = parentPort;
if (!port) throw new Error('mcp-scan-worker.ts must run in a worker thread');
const post = (m: FirstScanReply): void => port.postMessage(m);
const { root, walk, maxBytes } = workerData as FirstScanData;
// Synchronous fs: nothing else runs on this thread.
const source = new NodeFileSource(root, { sync: true });
const texts = new Map<string, string | null>();
const walked = (async () => {
  const files = await walkFiles(source, walk);
  let bytes = 0;
  for (const f of files.values()) {
    bytes += f.size;
    if (bytes > maxBytes) break;
    texts.set(f.path, await diskText(source, f.path));
  }
  return files;
})();
walked.then((files) => {
  post({ ready: files.size });
  void warmUp(files.values());
}, (e: unknown) => post({ failed: String((e as Error)?.stack ?? e) }));

/** Requests received: the warm-up stops at the first. */
let asked = 0;

/**
 * Until the first request: the stored-ahead items of the first WARM_UP_CHARS of texts in walk
 * order are made and dropped, so the request's own are made by optimized code (1,000 files
 * at load ~10: 16 files' items 480-960 ms cold, 80-140 ms after 200 K characters of warm-up).
 */
const WARM_UP_CHARS = 200_000;
async function warmUp(files: Iterable<WalkedFile>): Promise<void> {
  let chars = 0;
  for (const f of files) {
    const text = texts.get(f.path);
    if (asked || chars > WARM_UP_CHARS) return;
    if (!text) continue;
    chars += text.length;
    storedAheadItem(f, text);
    await packText(text, nodeTextCodec);
    fileTrigramKeys(text);
    // (A request is let in between files.)
    await new Promise((r) => setImmediate(r));
  }
}

port.on('message', (m: FirstScanRequest) => {
  asked++;
  void (async () => {
    try {
      const files = await walked;
      const best = await filesHoldingMost(files.values(), (f) => texts.get(f.path) ?? null, m.terms, m.max, maxBytes, m.scanFor);
      const items = [];
      for (const { file, text } of best) items.push({ file, item: { ...storedAheadItem(file, text), packed: await packText(text, nodeTextCodec), grams: fileTrigramKeys(text) } });
      post({ id: m.id, items });
    } catch (e) {
      post({ id: m.id, failed: String((e as Error)?.stack ?? e) });
    }
  })();
});
