import { describe, expect, it } from 'vitest';
import { progressLine } from './cmd-index.ts';
import type { CodebaseStatus } from '../core/types.ts';

const status = (over: Partial<CodebaseStatus>): CodebaseStatus => ({
  path: 'repo', status: 'indexing', progress: 0, currentStage: 'chunking', merkleRoot: null, totalFiles: 0, walkDone: false,
  indexedFiles: 0, totalChunks: 0, embeddedChunks: 0, warnings: 0, lastUpdated: null, errorMessage: null, ...over,
});

describe('sift index progress line', () => {
  it('gives no total and no percent while the walk goes on, then both', () => {
    const walking = progressLine(status({ indexedFiles: 331, totalFiles: 1000, progress: 33, totalChunks: 4100 }));
    expect(walking).toContain('files 331 of 1000+ found so far');
    expect(walking).not.toContain('%');
    expect(walking).not.toContain('331/1000');
    const done = progressLine(status({ indexedFiles: 331, totalFiles: 2400, progress: 13, walkDone: true, totalChunks: 4100, warnings: 2 }));
    expect(done).toBe('chunking    13%  files 331/2400  chunks 4100  warnings 2');
  });
});
