import { describe, expect, it } from 'vitest';
import { ProgressMeter, PROGRESS_MS, type IndexProgress } from './progress.ts';
import type { CodebaseStatus, IndexStage } from '../types.ts';

function status(stage: IndexStage, indexedFiles: number, totalFiles = 100, walkDone = true): CodebaseStatus {
  return {
    path: 'x', status: 'indexing', progress: Math.round((indexedFiles / totalFiles) * 100), currentStage: stage, merkleRoot: null, totalFiles, walkDone, indexedFiles,
    totalChunks: 0, embeddedChunks: 0, warnings: 0, lastUpdated: null, errorMessage: null,
  } as CodebaseStatus;
}

function meter() {
  let now = 1000;
  const reports: IndexProgress[] = [];
  const m = new ProgressMeter((p) => reports.push(p), () => now);
  return { m, reports, advance: (ms: number) => (now += ms) };
}

describe('ProgressMeter', () => {
  it('reports at most once per PROGRESS_MS, the latest status, and flush sends what is pending', () => {
    const { m, reports, advance } = meter();
    advance(PROGRESS_MS);
    m.status(status('chunking', 1));
    advance(10);
    m.status(status('chunking', 2));
    m.status(status('chunking', 3));
    expect(reports.map((r) => r.status.indexedFiles)).toEqual([1]);
    advance(PROGRESS_MS);
    m.status(status('chunking', 4));
    expect(reports.map((r) => r.status.indexedFiles)).toEqual([1, 4]);
    m.status(status('chunking', 5));
    m.flush();
    m.flush(); // nothing is reported twice
    expect(reports.map((r) => r.status.indexedFiles)).toEqual([1, 4, 5]);
  });

  it("a 'complete' status is reported at once", () => {
    const { m, reports, advance } = meter();
    advance(PROGRESS_MS);
    m.status(status('chunking', 1));
    m.status(status('complete', 100));
    expect(reports.map((r) => r.status.currentStage)).toEqual(['chunking', 'complete']);
  });

  it('rate counts only this run’s files; no ETA while preparing or before a rate is known', () => {
    const { m, reports, advance } = meter();
    advance(PROGRESS_MS);
    m.status(status('preparing', 40)); // 40 files were indexed by an earlier run
    expect(reports.at(-1)).toMatchObject({ rate: 0, etaSeconds: null });
    advance(PROGRESS_MS);
    m.status(status('chunking', 40));
    expect(reports.at(-1)).toMatchObject({ rate: 0, etaSeconds: null });
    advance(2000); // 2 s into the chunking (the preparing time does not count)
    m.status(status('chunking', 60));
    expect(reports.at(-1)!.rate).toBeCloseTo(10, 6); // 20 files of this run in 2 s
    expect(reports.at(-1)!.etaSeconds).toBeCloseTo(4, 6); // 40 left at 10/s
  });

  it('claims no rate on a few files (a waiting query\'s first files, written alone), nor from the walk\'s time', () => {
    const { m, reports, advance } = meter();
    advance(3000); // a long walk and a query's reading: not chunking time
    m.status(status('preparing', 0, 1000));
    advance(PROGRESS_MS);
    m.status(status('chunking', 0, 1000));
    advance(1000);
    m.status(status('chunking', 1, 1000));
    expect(reports.at(-1)).toMatchObject({ rate: 0, etaSeconds: null });
    advance(1000);
    m.status(status('chunking', 200, 1000));
    expect(reports.at(-1)!.rate).toBeCloseTo(100, 6); // 200 files in the 2 s since the chunking began
    expect(reports.at(-1)!.etaSeconds).toBeCloseTo(8, 6);
  });

  it('claims no ETA and no share done while the walk runs: files found so far are no total', () => {
    const { m, reports, advance } = meter();
    m.status(status('chunking', 0, 500, false));
    advance(1000);
    m.status(status('chunking', 400, 500, false)); // 400 of the 500 found so far, not 80 % of the folder
    expect(reports.at(-1)).toMatchObject({ etaSeconds: null, percent: null });
    expect(reports.at(-1)!.rate).toBeCloseTo(400, 6); // a rate is known: it needs no total
    advance(1000);
    m.status(status('chunking', 800, 1000));
    expect(reports.at(-1)).toMatchObject({ percent: 80 });
    expect(reports.at(-1)!.etaSeconds).toBeCloseTo(0.5, 6); // 200 left at 400/s
  });

  it('carries the latest warning and whether a batch is searchable', () => {
    const { m, reports, advance } = meter();
    advance(PROGRESS_MS);
    m.status(status('chunking', 1));
    expect(reports.at(-1)).toMatchObject({ lastWarning: null, searchable: false });
    m.warning({ path: 'a.bin', reason: 'binary' } as never);
    m.batch();
    advance(PROGRESS_MS);
    m.status(status('chunking', 2));
    expect(reports.at(-1)).toMatchObject({ lastWarning: { path: 'a.bin' }, searchable: true, batches: 1 });
    m.batch();
    advance(PROGRESS_MS);
    m.status(status('chunking', 3));
    expect(reports.at(-1)).toMatchObject({ searchable: true, batches: 2 });
  });
});
