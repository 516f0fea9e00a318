import { describe, expect, it } from 'vitest';
import { chunkTypeLabel, chunkTypeName, filesProgress, nameParts, formatBytes, formatCount, formatDuration, formatRate, formatWhen, plural } from './format.ts';

describe('format', () => {
  it('writes a count with its noun, singular only for one', () => {
    expect(plural(1, 'file')).toBe('1 file');
    expect(plural(0, 'file')).toBe('0 files');
    expect(plural(22, 'chunk')).toBe('22 chunks');
    expect(plural(1234, 'chunk')).toBe('1.2k chunks');
  });
  it.each([
    [0, '0'], [999, '999'], [1000, '1.0k'], [12_345, '12k'], [2_500_000, '2.5M'],
  ])('count %d → %s', (n, s) => expect(formatCount(n)).toBe(s));
  it.each([
    [512, '512 B'], [2048, '2.0 KB'], [62 * 1024 * 1024, '62 MB'], [3 * 1024 ** 3, '3.0 GB'],
  ])('bytes %d → %s', (n, s) => expect(formatBytes(n)).toBe(s));
  it.each([
    [null, '—'], [Infinity, '—'], [-1, '—'], [0, '0 s'], [45.4, '45 s'], [60, '1 min'], [200, '3 min 20 s'], [7500, '2 h 5 min'],
  ])('duration %s → %s', (n, s) => expect(formatDuration(n)).toBe(s));
  it.each([
    [0, '— files/s'], [3.25, '3.3 files/s'], [120.4, '120 files/s'],
  ])('rate %d → %s', (n, s) => expect(formatRate(n, 'files')).toBe(s));
  it('shows an index run\'s files as a total only once the walk has ended', () => {
    expect(filesProgress({ indexedFiles: 331, totalFiles: 1000, walkDone: true })).toBe('331 / 1.0k files');
    expect(filesProgress({ indexedFiles: 331, totalFiles: 1000, walkDone: false })).toBe('331 of 1.0k+ files found so far');
    // The walk's count lags it: never "600 / 500".
    expect(filesProgress({ indexedFiles: 600, totalFiles: 500, walkDone: false })).toBe('600 files · still finding files');
    expect(filesProgress({ indexedFiles: 0, totalFiles: 0, walkDone: false })).toBe('finding files');
    expect(filesProgress({ indexedFiles: 0, totalFiles: 1500, walkDone: false })).toBe('1.5k+ files found so far');
  });
  it('cuts a name into the words a line may break between', () => {
    expect(nameParts('TestServeFileRejects')).toEqual(['Test', 'Serve', 'File', 'Rejects']);
    expect(nameParts('send_error_page')).toEqual(['send_', 'error_', 'page']);
    expect(nameParts('Shop.Web.Conn')).toEqual(['Shop.', 'Web.', 'Conn']);
    expect(nameParts('HTTPServer')).toEqual(['HTTPServer']);
    expect(nameParts('x')).toEqual(['x']);
    expect(nameParts('a::b').join('')).toBe('a::b');
  });
  it('when', () => {
    const now = Date.parse('2025-01-02T12:00:00Z');
    expect(formatWhen(null, now)).toBe('never');
    expect(formatWhen('2025-01-02T11:59:50Z', now)).toBe('just now');
    expect(formatWhen('2025-01-02T11:30:00Z', now)).toBe('30 min ago');
    expect(formatWhen('2025-01-02T09:00:00Z', now)).toBe('3 h ago');
    expect(formatWhen('2024-12-01T09:00:00Z', now)).toBe('2024-12-01');
  });
});

describe('chunkTypeLabel', () => {
  it('badges an Elixir module as a module and a protocol as a protocol, every other type as stored', () => {
    expect(chunkTypeLabel('elixir', 'class')).toBe('module');
    expect(chunkTypeLabel('elixir', 'interface')).toBe('protocol');
    expect(chunkTypeLabel('elixir', 'function')).toBe('function');
    expect(chunkTypeLabel('python', 'class')).toBe('class');
  });
});

describe('chunkTypeName', () => {
  it('names top-level code as such, and says a class may be an Elixir module where Elixir is indexed', () => {
    expect(chunkTypeName('module', ['python'])).toBe('top-level code');
    expect(chunkTypeName('class', ['python', 'elixir'])).toBe('class or Elixir module');
    expect(chunkTypeName('interface', ['elixir'])).toBe('interface or Elixir protocol');
    expect(chunkTypeName('class', ['python', 'go'])).toBe('class');
    expect(chunkTypeName('function', ['elixir'])).toBe('function');
  });
});
