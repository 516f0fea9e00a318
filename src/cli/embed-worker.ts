/**
 * Embedding worker thread for the CLI's static-model pool (embed-pool.ts): loads the same
 * model folder as the main thread and embeds what it is sent (core/embed/static-thread.ts, whose
 * protocol `{ load: { dir, modelId } }` starts it), so its vectors are the in-thread embedder's exactly.
 */
import { parentPort } from 'node:worker_threads';
import { staticThreadHandler, type StaticThreadRequest } from '../core/embed/static-thread.ts';
import { folderModelFiles } from '../core/embed/model-files-node.ts';

const port = parentPort;
if (!port) throw new Error('embed-worker.ts must run in a worker thread');

const handle = staticThreadHandler((load: { dir: string; modelId: string }) => folderModelFiles(load.dir), (message, transfer) => port.postMessage(message, transfer));
port.on('message', (m: StaticThreadRequest<{ dir: string; modelId: string }>) => handle(m));
