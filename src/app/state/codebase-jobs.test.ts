import { describe, expect, it } from 'vitest';
import { CodebaseJobs } from './codebase-jobs.ts';
import { CodebaseRecords, newRecord, type KeyValueStore } from './codebase-records.ts';
import { fileSnapshot } from '../../core/source/drop.ts';

describe('CodebaseJobs', () => {
  it('runs one job per codebase; pause is remembered until the next run that clears it, cancel is not', () => {
    const jobs = new CodebaseJobs();
    const a = jobs.start('a')!;
    expect(jobs.start('a')).toBeNull();
    expect(jobs.start('b')).not.toBeNull();
    jobs.pause('a');
    expect(a.aborted).toBe(true);
    expect(jobs.isPaused('a')).toBe(true);
    jobs.end('a');
    expect(jobs.isRunning('a')).toBe(false);
    expect(jobs.start('a')).not.toBeNull(); // an embed run keeps the pause
    jobs.end('a');
    expect(jobs.isPaused('a')).toBe(true);
    const again = jobs.start('a', { clearPause: true })!;
    expect(jobs.isPaused('a')).toBe(false);
    jobs.cancel('a');
    expect(again.aborted).toBe(true);
    expect(jobs.isPaused('a')).toBe(false);
  });
});

describe('CodebaseRecords', () => {
  it('saves and loads records under its key and drops malformed entries', async () => {
    const data = new Map<string, unknown>();
    const kv: KeyValueStore = { get: async <T>(k: string) => data.get(k) as T | undefined, set: async (k, v) => void data.set(k, structuredClone(v)) };
    const records = new CodebaseRecords(kv, 'k');
    expect(await records.load()).toEqual([]);
    const r = newRecord('repo', 'snapshot');
    await records.save([r]);
    expect(await records.load()).toEqual([r]);
    data.set('k', [r, null, { name: 'no id' }, { ...r, id: '' }]);
    expect(await records.load()).toEqual([r]);
    expect(r.id).toMatch(/^cb-[0-9a-f]{12}$/);
  });
});

describe('fileSnapshot', () => {
  it('names the snapshot after the top folder of webkitRelativePath and keeps the paths beside the files', () => {
    const f = (rel: string) => Object.defineProperty(new File(['x'], rel.split('/').pop()!), 'webkitRelativePath', { value: rel });
    const s = fileSnapshot([f('proj/src/a.ts'), f('proj/b.md')]);
    expect(s.name).toBe('proj');
    expect(s.paths).toEqual(['proj/src/a.ts', 'proj/b.md']);
    expect(fileSnapshot([new File(['x'], 'lone.ts')])).toMatchObject({ name: 'Uploaded files', paths: ['lone.ts'] });
    expect(fileSnapshot([]).name).toBe('Uploaded files');
  });
});
