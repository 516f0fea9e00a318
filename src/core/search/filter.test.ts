import { describe, it, expect } from 'vitest';
import { makeFilter } from './search.ts';
import { compilePathGlob } from '../text/path-glob.ts';

const PATHS = ['lib/kalloc.c', 'src/lib/x.c', 'src/a.py', 'docs/guide.md', '.github/ci.yml'];
const GLOBS = ['lib/', '/lib', 'lib', '*.py', 'lib/**', 'src/**/*.c', '**/*.md', '.github/*', '[', 'src/*'];

describe('makeFilter (the vector leg) keeps exactly what the keyword leg keeps', () => {
  it.each(GLOBS)('path glob %s', (glob) => {
    const keep = makeFilter({ pathGlob: glob });
    const sql = compilePathGlob(glob);
    for (const path of PATHS) {
      expect(keep({ path, language: 'c', chunkType: 'text' }), `${glob} on ${path}`).toBe(sql ? sql.test(path) : true);
    }
  });

  it('applies language and chunk type', () => {
    const keep = makeFilter({ languages: ['python'], chunkTypes: ['function'] });
    expect(keep({ path: 'a.py', language: 'python', chunkType: 'function' })).toBe(true);
    expect(keep({ path: 'a.py', language: 'python', chunkType: 'class' })).toBe(false);
    expect(keep({ path: 'a.c', language: 'c', chunkType: 'function' })).toBe(false);
  });
});
