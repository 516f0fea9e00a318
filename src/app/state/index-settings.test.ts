import { describe, expect, it } from 'vitest';
import { DEFAULT_INDEX_SETTINGS, parsePatterns, readIndexSettings, walkSettings } from './index-settings.svelte.ts';

describe('index settings', () => {
  it('reads one pattern per line, without blanks and comments', () => {
    expect(parsePatterns('  src/ \n\n# generated\n*.ex\r\ndocs/**/*.md\n')).toEqual(['src/', '*.ex', 'docs/**/*.md']);
    expect(parsePatterns('')).toEqual([]);
  });

  it('falls back to the defaults for missing or malformed saved settings', () => {
    expect(readIndexSettings(null)).toEqual(DEFAULT_INDEX_SETTINGS);
    expect(readIndexSettings('{oops')).toEqual(DEFAULT_INDEX_SETTINGS);
    expect(readIndexSettings('{"include":["*.ex",3,""],"exclude":"x","maxFileSizeMb":-1}')).toEqual({ include: ['*.ex'], exclude: [], maxFileSizeMb: 1 });
    expect(readIndexSettings('{"include":[],"exclude":["test/"],"maxFileSizeMb":2.5}')).toEqual({ include: [], exclude: ['test/'], maxFileSizeMb: 2.5 });
  });

  it('gives the indexer worker patterns and a size in bytes', () => {
    expect(walkSettings({ include: ['lib/'], exclude: ['*_test.exs'], maxFileSizeMb: 2 })).toEqual({ include: ['lib/'], exclude: ['*_test.exs'], maxFileSize: 2 * 1024 * 1024 });
  });
});
