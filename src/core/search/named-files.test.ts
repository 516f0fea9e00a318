import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import { processQuery, fileNameTerms } from './query.ts';
import { termForms } from './signals.ts';
import { NAMED_FILES_MAX, NAMED_FILES_PER_WORD, filesNamedBy, namedParts, readFileNames } from './named-files.ts';

/** A store holding one piece per path (its language by extension). */
async function storeOf(paths: string[]): Promise<Store> {
  const s = await openMemoryStore();
  const language = (p: string) => ({ c: 'c', cs: 'csharp', java: 'java', rb: 'ruby', go: 'go', ts: 'typescript', rs: 'rust', md: 'markdown' })[p.split('.').pop()!] ?? 'text';
  await s.writeFiles(paths.map((path, i) => ({
    file: { path, hash: `h${i}`, size: 1, mtime: 0, language: language(path) },
    chunks: [{ path, startLine: 1, endLine: 1, language: language(path), chunkType: 'module' as const, symbol: null, parent: null, signature: null, doc: null, content: `piece ${i}`, contentHash: `c${i}`, defines: null }],
  })));
  return s;
}

async function named(s: Store, q: string): Promise<string[]> {
  const pq = processQuery(q);
  const forms = termForms(fileNameTerms(pq), pq.acronyms);
  const all = filesNamedBy(await readFileNames(s.db), forms).map((f) => f.path);
  // Reading only the files whose path holds the question's parts names the same files.
  expect(filesNamedBy(await readFileNames(s.db, namedParts(forms)), forms).map((f) => f.path)).toEqual(all);
  return all;
}

describe('filesNamedBy', () => {
  let s: Store;
  beforeAll(async () => {
    s = await storeOf(['src/compress.c', 'src/deflate.c', 'src/BidirectionalDictionary.cs', 'src/Dictionary.cs', 'src/StringUtils.java',
      'lib/json_array.rb', 'docs/compress.md', 'contrib/zfstream.c', 'src/net/mod.rs']);
  });
  afterAll(async () => { await s.close(); });

  it('finds a code file every word of whose name the question names, in another word form', async () => {
    expect(await named(s, 'compress a whole buffer in one call')).toEqual(['src/compress.c']);
    expect(await named(s, 'the JSON array type')).toEqual(['lib/json_array.rb']);
    expect(await named(s, 'string utility methods')).toEqual(['src/StringUtils.java']);
    expect(await named(s, 'a dictionary that maps both ways, bidirectional')).toEqual(['src/Dictionary.cs', 'src/BidirectionalDictionary.cs']);
  });

  it('a generic file name is named by its folder', async () => {
    expect(await named(s, 'what the net package exports')).toEqual(['src/net/mod.rs']);
  });

  it('not a file whose name holds a word the question does not name, nor one whose name only ends with it', async () => {
    expect(await named(s, 'a dictionary of strings')).toEqual(['src/Dictionary.cs']);
    expect(await named(s, 'json values')).toEqual([]);
    expect(await named(s, 'read a gzip stream')).toEqual([]);
  });
});

describe('readFileNames', () => {
  it('reads every file with pieces, a path holding the separators too', async () => {
    const paths = ['src/compress.c', 'src/odd\x1fname\x1e.c', 'lib/a b/ü.rb'];
    const s = await storeOf(paths);
    try {
      const names = await readFileNames(s.db);
      expect(names.files.map((f) => f.path).sort()).toEqual([...paths].sort());
      for (const f of names.files) expect(f.hi).toBeGreaterThanOrEqual(f.lo);
      expect(names.tails[names.files.findIndex((f) => f.path === 'lib/a b/ü.rb')]).toBe('a b/ü.rb'); // the last two segments
    } finally {
      await s.close();
    }
  });
});

describe('filesNamedBy, words that name many files', () => {
  it('a word that names many files names none of them', async () => {
    const s = await storeOf([...Array.from({ length: NAMED_FILES_PER_WORD + 1 }, (_, i) => `pkg${i}/parser.go`), 'src/lexer.go']);
    try {
      expect(await named(s, 'how the parser and the lexer read tokens')).toEqual(['src/lexer.go']);
    } finally {
      await s.close();
    }
  });

  it('a question that names more than NAMED_FILES_MAX files names no one file', async () => {
    expect(NAMED_FILES_MAX).toBe(3);
    const s = await storeOf(['src/request.ts', 'src/response.ts', 'src/headers.ts', 'src/router.ts', 'src/body.ts']);
    try {
      expect(await named(s, 'the router reads the request headers')).toEqual(['src/router.ts', 'src/headers.ts', 'src/request.ts']);
      expect(await named(s, 'the router reads the request headers and body and writes the response')).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
