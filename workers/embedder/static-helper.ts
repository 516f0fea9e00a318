/**
 * A static-model helper of the embedder worker (static-helpers.ts): loads the same model
 * files as the embedder worker and embeds what it is sent (src/core/embed/static-thread.ts,
 * whose protocol `{ load: ModelConfig }` starts it), so its vectors are the embedder worker's
 * exactly. No queries come here (they stay on the embedder worker's model, ahead of its batches).
 */
import type { ModelConfig } from './api.ts';
import { staticThreadHandler, type StaticThreadRequest } from '../../src/core/embed/static-thread.ts';
import { modelFilesFor } from './config-files.ts';

const handle = staticThreadHandler(modelFilesFor, (message, transfer) => self.postMessage(message, { transfer }));
self.onmessage = (ev: MessageEvent<StaticThreadRequest<ModelConfig>>) => handle(ev.data);
