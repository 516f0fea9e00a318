import { describe, expect, it } from 'vitest';
import { threadProfiles } from './trace-summary.ts';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

describe('threadProfiles', () => {
  it('merges a profile\'s chunks, names its thread and sums self time per node', () => {
    const events = [
      { name: 'thread_name', ph: 'M', pid: 1, tid: 7, args: { name: 'DedicatedWorker thread' } },
      { name: 'Profile', ph: 'P', pid: 1, tid: 7, id: '0x2', args: {} },
      {
        name: 'ProfileChunk', ph: 'P', pid: 1, tid: 7, id: '0x2',
        args: { data: { cpuProfile: { nodes: [{ id: 1, callFrame: frame('(root)') }, { id: 2, callFrame: frame('parse', 'http://x/a.js'), parent: 1 }], samples: [2, 2] }, timeDeltas: [100, 250] } },
      },
      // A later chunk adds a node and samples; a negative delta (clock skew) counts as 0.
      {
        name: 'ProfileChunk', ph: 'P', pid: 1, tid: 7, id: '0x2',
        args: { data: { cpuProfile: { nodes: [{ id: 3, callFrame: frame('(idle)'), parent: 1 }], samples: [3, 2] }, timeDeltas: [1000, -5] } },
      },
      // Another process's profile with the same id is another thread.
      { name: 'ProfileChunk', ph: 'P', pid: 2, tid: 9, id: '0x2', args: { data: { cpuProfile: { nodes: [{ id: 1, callFrame: frame('(root)') }], samples: [1] }, timeDeltas: [50] } } },
    ];
    const ps = threadProfiles(events);
    expect(ps).toHaveLength(2);
    const w = ps.find((p) => p.key === '1:0x2')!;
    expect(w.thread).toBe('DedicatedWorker thread');
    expect(w.nodes.size).toBe(3);
    expect(Object.fromEntries(w.selfUs)).toEqual({ 2: 350, 3: 1000 });
    expect(ps.find((p) => p.key === '2:0x2')!.thread).toBe('2:9');
  });
});
