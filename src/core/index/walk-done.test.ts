/**
 * CodebaseStatus.walkDone: while a folder's walk runs, `totalFiles` counts the files found so far
 * (a first index starts on the walk's first files, planStreaming), so no status may present it as
 * the total; once the walk ends it is the total, in a first index and in a rescan alike.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { indexCodebase } from './indexer.ts';
import { MemoryFileSource } from '../source/memory-source.ts';
import type { FileSource } from '../source/types.ts';
import { openMemoryStore } from '../store/open-node.ts';
import { Chunker } from '../chunk/chunker.ts';
import { nodeWasmLoader } from '../chunk/grammars-node.ts';
import type { CodebaseStatus } from '../types.ts';

const FOLDERS = 30;
const PER_FOLDER = 25; // 750 files: the walk reports its count at 500 (indexer.ts onWalked)
const FILES = FOLDERS * PER_FOLDER;

let chunker: Chunker;
beforeAll(async () => {
  chunker = await Chunker.create({ loadWasm: nodeWasmLoader });
});

/** A folder whose directory listings take `ms` each: the walk outlasts several progress reports. */
function slowFolder(ms: number): FileSource {
  const files: Record<string, string> = {};
  for (let d = 0; d < FOLDERS; d++) for (let f = 0; f < PER_FOLDER; f++) files[`d${d}/f${f}.py`] = `def fn_${d}_${f}():\n    return ${f}\n`;
  const source = new MemoryFileSource(files);
  return {
    name: source.name,
    readDir: async (dir) => (await new Promise((r) => setTimeout(r, ms)), source.readDir(dir)),
    stat: (p) => source.stat(p),
    readFile: (p) => source.readFile(p),
  };
}

describe('CodebaseStatus.walkDone', () => {
  it('is false while the walk runs (its count is files found so far) and true with the total from its end on', async () => {
    const source = slowFolder(15);
    const store = await openMemoryStore();
    const seen: CodebaseStatus[] = [];
    const first = await indexCodebase({ source, store, chunker }, { onProgress: (s) => seen.push(s) });
    expect(first.files.added).toBe(FILES);
    const walking = seen.filter((s) => !s.walkDone);
    // Reported mid-walk with a count that is not the total (the page read "331/500" as a total).
    expect(walking.some((s) => s.totalFiles > 0 && s.totalFiles < FILES)).toBe(true);
    const ended = seen.findIndex((s) => s.walkDone);
    expect(ended).toBeGreaterThan(0);
    // From the walk's end on, every status says so and carries the total.
    expect(seen.slice(ended).every((s) => s.walkDone && s.totalFiles === FILES)).toBe(true);
    expect(first.status.walkDone).toBe(true);

    // A rescan walks before it diffs: the same promise.
    const again: CodebaseStatus[] = [];
    const second = await indexCodebase({ source, store, chunker }, { onProgress: (s) => again.push(s) });
    expect(second.unchanged).toBe(true);
    const at = again.findIndex((s) => s.walkDone);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(again.slice(0, at).every((s) => s.totalFiles < FILES)).toBe(true);
    expect(again.slice(at).every((s) => s.walkDone && s.totalFiles === FILES)).toBe(true);
  });
});
