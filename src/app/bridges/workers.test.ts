/**
 * Type-level checks of the bridge's contract typing, enforced by `tsc` (npm run check): each
 * `@ts-expect-error` line fails the type check if the typing ever loosens to free strings.
 * (The calls themselves run in the e2e suite: workers need a browser.)
 */
import { describe, expect, it } from 'vitest';
import type { CallRecord, MethodName } from './workers.ts';

describe('bridge typing', () => {
  it('a call-log entry pairs a worker with a method of its own contract', () => {
    const ok: CallRecord[] = [
      { worker: 'store', method: 'search', ms: 1, ok: true },
      { worker: 'indexer', method: 'indexCodebase', ms: 1, ok: true },
      { worker: 'embedder', method: 'loadModel', ms: 1, ok: false },
    ];
    // @ts-expect-error a store method logged under the indexer
    const wrongWorker: CallRecord = { worker: 'indexer', method: 'search', ms: 1, ok: true };
    // @ts-expect-error not a method of the store contract
    const typo: MethodName<'store'> = 'serach';
    // @ts-expect-error `cancel` is sent by #call itself, never called by name
    const cancel: MethodName<'store'> = 'cancel';
    expect(ok.map((c) => `${c.worker}.${c.method}`)).toEqual(['store.search', 'indexer.indexCodebase', 'embedder.loadModel']);
    expect([wrongWorker.method, typo, cancel]).toHaveLength(3);
  });
});
