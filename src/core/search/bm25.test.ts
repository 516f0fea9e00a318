import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk, ChunkType } from '../types.ts';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import type { Queryable } from '../store/sqlite.ts';
import { EXACT_SYMBOL_BOOST, capPerFile, highlightRanges, searchBm25 } from './bm25.ts';
import { compilePathGlob } from '../text/path-glob.ts';
import { processQuery } from './query.ts';
import { Searcher } from './search.ts';
import { LEG_FILE_PIECES, TEXT_DEFINITION_TIER } from '../config.ts';

interface Spec {
  path: string;
  symbol?: string | null;
  parent?: string | null;
  type?: ChunkType;
  language?: string;
  content: string;
  doc?: string;
  defines?: string[];
}

const SPECS: Spec[] = [
  { path: 'src/users/profile.ts', symbol: 'getUserName', content: 'export function getUserName(u: User): string {\n  return u.firstName + u.lastName;\n}' },
  { path: 'src/users/profile.ts', symbol: 'setUserName', content: 'export function setUserName(u: User, n: string) { u.firstName = n; }' },
  { path: 'src/db/connection.ts', symbol: 'openDatabase', content: 'export async function openDatabase(path: string) { return connect(path); }', doc: 'Open the database connection.' },
  { path: 'src/db/store.ts', symbol: 'getFiles', parent: 'Store', type: 'method', content: 'async getFiles() { return this.db.all("SELECT * FROM files"); }' },
  { path: 'src/walk/walker.ts', symbol: 'getFiles', parent: 'Walker', type: 'method', content: 'getFiles() { return this.files; }' },
  // Mentions "parse_config" many times but is not the symbol: BM25 alone would rank it first.
  { path: 'src/config/readme-notes.py', symbol: 'notes', language: 'python', content: 'def notes():\n    # parse_config parse_config parse_config parse_config\n    # call parse_config before parse_config\n    pass' },
  { path: 'src/config/loader.py', symbol: 'parse_config', language: 'python', content: 'def parse_config(text):\n    return toml.loads(text)' },
  { path: 'docs/guide.md', symbol: null, type: 'text', language: 'markdown', content: 'How to configure the user name and the database path.' },
  { path: 'kernel/mm/kalloc.c', symbol: 'kalloc', language: 'c', content: 'void *kalloc(void) { struct run *r; acquire(&kmem.lock); return (char*)r; }' },
  { path: 'kernel/mm/kfree.c', symbol: 'kfree', language: 'c', content: 'void kfree(void *pa) { /* see kalloc() kalloc kalloc */ release(&kmem.lock); }' },
  // PAGE_SIZE is a constant (an object-like #define) of a module chunk; the function page_size
  // and a heavy user of the constant would otherwise rank above it.
  { path: 'include/asm/page.h', symbol: null, type: 'module', language: 'c', content: '#define PAGE_SHIFT 12\n#define PAGE_SIZE (1UL << PAGE_SHIFT)', defines: ['PAGE_SHIFT', 'PAGE_SIZE'] },
  { path: 'include/linux/mm.h', symbol: 'page_size', language: 'c', content: 'static inline unsigned long page_size(struct page *page) { return PAGE_SIZE << compound_order(page); }' },
  { path: 'mm/copy.c', symbol: 'copy_pages', language: 'c', content: 'void copy_pages(void *d, void *s) { memcpy(d, s, PAGE_SIZE); /* PAGE_SIZE PAGE_SIZE PAGE_SIZE */ }' },
  // make_files is defined only inside files() (a nested function: no chunk of its own); the
  // function make_file and a user of a longer name rank above it by BM25 and the light stem.
  { path: 'lib/dist.py', symbol: 'files', language: 'python', content: 'def files(self):\n    def make_files(lines):\n        return list(lines)\n    return make_files(self.read())' },
  { path: 'lib/diff.py', symbol: 'make_file', language: 'python', content: 'def make_file(self, make, file, files):\n    # make file files make_file make_files\n    return make + file' },
  { path: 'lib/cache.py', symbol: 'cached', language: 'python', content: 'def cached():\n    def make_files_cache():\n        return make_files\n    return make_files_cache' },
  { path: 'lib/notes.lua', symbol: 'notes', language: 'lua', content: 'function notes()\n  ---@type make_files[]\n  local x = make_files\nend' },
];

function toItems(specs: Spec[]) {
  const byPath = new Map<string, Array<Chunk & { contentHash: string }>>();
  specs.forEach((s, i) => {
    const list = byPath.get(s.path) ?? [];
    list.push({
      path: s.path, startLine: i * 10 + 1, endLine: i * 10 + 5, language: s.language ?? 'typescript',
      chunkType: s.type ?? (s.symbol ? 'function' : 'text'), symbol: s.symbol ?? null, parent: s.parent ?? null,
      signature: null, doc: s.doc ?? null, content: s.content, contentHash: `h${i}`, defines: s.defines ?? null,
    });
    byPath.set(s.path, list);
  });
  return [...byPath].map(([path, chunks]) => ({
    file: { path, hash: `f-${path}`, size: 1, mtime: 0, language: chunks[0].language }, chunks,
  }));
}

let store: Store;
let idOf: (path: string, symbol: string | null) => number;

beforeAll(async () => {
  store = await openMemoryStore();
  await store.writeFiles(toItems(SPECS));
  const rows = await store.db.all<{ id: number; path: string; symbol: string | null }>('SELECT id, path, symbol FROM chunks');
  idOf = (path, symbol) => rows.find((r) => r.path === path && r.symbol === symbol)!.id;
});
afterAll(async () => { await store.close(); });

/** The best 100 FTS rows for `ftsQuery` by the keyword leg's column weights: a test's "the case is real". */
async function bestFtsRows(db: Queryable, ftsQuery: string): Promise<number[]> {
  const rows = await db.all<{ id: number }>(
    `SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts, 10, 4, 3, 1, 1.5), rowid LIMIT 100`, [ftsQuery],
  );
  return rows.map((r) => r.id);
}

async function search(q: string, filters = {}, limit = 10) {
  return searchBm25(store.db, processQuery(q), filters, limit);
}

describe('searchBm25', () => {
  it('natural words find camelCase identifiers', async () => {
    const hits = await search('user name');
    expect(hits.slice(0, 2).map((h) => h.id).sort()).toEqual([idOf('src/users/profile.ts', 'getUserName'), idOf('src/users/profile.ts', 'setUserName')].sort());
  });

  it('an exact symbol match ranks first, even against heavier BM25 text', async () => {
    const plain = await store.db.all<{ id: number }>(
      `SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH '"parse_config"' ORDER BY bm25(chunks_fts, 0, 0, 0, 1, 0)`,
    );
    expect(plain[0].id).toBe(idOf('src/config/readme-notes.py', 'notes')); // the trap is real
    const hits = await search('parse_config');
    expect(hits[0].id).toBe(idOf('src/config/loader.py', 'parse_config'));
    expect(hits[0].score).toBeGreaterThan(EXACT_SYMBOL_BOOST);
    expect(hits[1].score).toBeLessThan(EXACT_SYMBOL_BOOST);

    const k = await search('kalloc');
    expect(k[0].id).toBe(idOf('kernel/mm/kalloc.c', 'kalloc'));
  });

  it('a constant a chunk defines (C #define) is a definition: exact case first, then another case', async () => {
    const upper = await search('PAGE_SIZE');
    const header = store.db.get<{ id: number }>(`SELECT id FROM chunks WHERE path = 'include/asm/page.h'`);
    expect(upper[0].id).toBe((await header)!.id);
    expect(upper[1].id).toBe(idOf('include/linux/mm.h', 'page_size'));
    expect(upper[2].score).toBeLessThan(EXACT_SYMBOL_BOOST);
    const lower = await search('page_size');
    expect(lower[0].id).toBe(idOf('include/linux/mm.h', 'page_size'));
    expect(lower[1].id).toBe((await header)!.id);
    // Found by any case (NOCASE, as symbols are), and only by a name it defines.
    expect((await search('Page_Shift'))[0].id).toBe((await header)!.id);
    expect((await search('PAGE')).some((h) => h.score > EXACT_SYMBOL_BOOST)).toBe(false);
  });

  it('a name no chunk defines finds the chunk whose text declares it (a nested function), below any definition', async () => {
    const hits = await search('make_files');
    expect(hits[0].id).toBe(idOf('lib/dist.py', 'files'));
    expect(hits[0].score).toBeGreaterThan(EXACT_SYMBOL_BOOST * TEXT_DEFINITION_TIER);
    expect(hits[0].score).toBeLessThan(EXACT_SYMBOL_BOOST * 0.05);
    expect(hits[0].signals?.text_definition).toBe(1);
    // `def make_files_cache` declares another name.
    const cache = hits.find((h) => h.id === idOf('lib/cache.py', 'cached'));
    expect(cache).toBeDefined();
    expect(cache!.signals?.text_definition).toBeUndefined();
    // An annotation that uses the name (`---@type make_files[]`) declares nothing.
    const notes = hits.find((h) => h.id === idOf('lib/notes.lua', 'notes'));
    expect(notes).toBeDefined();
    expect(notes!.signals?.text_definition).toBeUndefined();
    // A recorded definition: the text is not read, and the definition alone leads.
    const defined = await search('make_file');
    expect(defined[0].id).toBe(idOf('lib/diff.py', 'make_file'));
    expect(defined.filter((h) => h.score > EXACT_SYMBOL_BOOST * TEXT_DEFINITION_TIER)).toHaveLength(1);
  });

  it('qualified identifiers need the parent too', async () => {
    for (const q of ['Store::getFiles', 'Store.getFiles']) {
      const hits = await search(q);
      expect(hits[0].id, q).toBe(idOf('src/db/store.ts', 'getFiles'));
      expect(hits[1].score, q).toBeLessThan(EXACT_SYMBOL_BOOST);
    }
  });

  it('in prose, `exact` needs a qualified name\'s member under its qualifier, not another type\'s member of that name', async () => {
    const hits = await search('where does Store.getFiles read rows');
    const store = hits.find((h) => h.id === idOf('src/db/store.ts', 'getFiles'));
    const walker = hits.find((h) => h.id === idOf('src/walk/walker.ts', 'getFiles'));
    expect(store?.signals?.exact).toBe(1);
    expect(walker).toBeDefined();
    expect(walker!.signals?.exact ?? 0).toBe(0);
  });

  it('ranks are 1..n and scores descend', async () => {
    const hits = await search('user database');
    expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
    for (let i = 1; i < hits.length; i++) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score);
    expect(await search('user', {}, 1)).toHaveLength(1);
  });

  it.each([
    [{ languages: ['python'] }, (p: string) => p.endsWith('.py')],
    [{ languages: ['c', 'markdown'] }, (p: string) => p.endsWith('.c') || p.endsWith('.md')],
    [{ chunkTypes: ['method'] as ChunkType[] }, (p: string) => p.endsWith('store.ts') || p.endsWith('walker.ts')],
    [{ pathGlob: 'src/db/**' }, (p: string) => p.startsWith('src/db/')],
    [{ pathGlob: '*.md' }, (p: string) => p.endsWith('.md')],
    [{ pathGlob: 'kernel/' }, (p: string) => p.startsWith('kernel/')],
    [{ pathGlob: 'src/{db,walk}/*.ts' }, (p: string) => p.startsWith('src/db/') || p.startsWith('src/walk/')],
  ])('filters %j', async (filters, ok) => {
    const hits = await search('user database config files kalloc name open', filters, 20);
    expect(hits.length).toBeGreaterThan(0);
    const chunks = await store.getChunks(hits.map((h) => h.id));
    for (const c of chunks) expect(ok(c.path), c.path).toBe(true);
  });

  it('empty queries return no hits', async () => {
    expect(await search('')).toEqual([]);
    expect(await search('!!!')).toEqual([]);
    expect(await search('user', {}, 0)).toEqual([]);
  });

  it('a JS-only glob filters inside SQL, so the limit is filled past many better non-matching hits', async () => {
    const s = await openMemoryStore();
    try {
      const specs: Spec[] = [];
      // Many strong matches outside the glob, a few weak ones inside it.
      for (let i = 0; i < 400; i++) specs.push({ path: `noise/n${i}.ts`, symbol: `widget${i}`, content: 'widget widget widget widget' });
      for (let i = 0; i < 5; i++) specs.push({ path: `deep/x${i}/target.ts`, symbol: `t${i}`, content: `widget and a lot of other words here ${'filler '.repeat(40)}` });
      await s.writeFiles(toItems(specs));
      const hits = await searchBm25(s.db, processQuery('widget'), { pathGlob: '**/target.ts' }, 5);
      expect(hits).toHaveLength(5);
      const chunks = await s.getChunks(hits.map((h) => h.id));
      for (const c of chunks) expect(c.path).toMatch(/^deep\/x\d\/target\.ts$/);
    } finally {
      await s.close();
    }
  });
});

describe('searchBm25 definitions outside the best candidates', () => {
  it('a definition outside the best RERANK_CANDIDATES FTS rows still gets its bm25 and ranks first, filtered or not', async () => {
    const s = await openMemoryStore();
    try {
      const specs: Spec[] = [];
      // 300 chunks that say zeta_func more often, in fewer words, than its definition does.
      for (let i = 0; i < 300; i++) specs.push({ path: `m${i % 9}/f${i}.c`, symbol: `zeta_func_v${i}`, language: 'c', content: 'zeta_func zeta_func zeta_func' });
      specs.push({ path: 'defs/zeta.c', symbol: 'zeta_func', language: 'c', content: `int zeta_func(void) { ${'x '.repeat(300)} }` });
      specs.push({ path: 'defs/other.c', symbol: 'zeta_func', language: 'c', content: 'int zeta_func;' });
      await s.writeFiles(toItems(specs));
      const defs = (await s.db.all<{ id: number }>(`SELECT id FROM chunks WHERE symbol = 'zeta_func' ORDER BY id`)).map((r) => r.id);
      const q = processQuery('zeta_func');
      const top = await bestFtsRows(s.db, q.ftsQuery);
      expect(top).not.toContain(defs[0]); // the case is real
      // One scoring FTS5 pass (the planner's row probes aside): a second MATCH with `rowid IN (…)`
      // re-ran the whole query per listed rowid.
      const matches: string[] = [];
      const counting: Queryable = {
        exec: (sql) => s.db.exec(sql), run: (sql, p) => s.db.run(sql, p), get: (sql, p) => s.db.get(sql, p),
        all: (sql, p) => { if (/\bMATCH\b/.test(sql) && /\bbm25\(/.test(sql)) matches.push(sql); return s.db.all(sql, p); },
      } as Queryable;
      for (const filters of [{}, { languages: ['c'] }]) {
        matches.length = 0;
        const hits = await searchBm25(counting, q, filters, 5);
        expect(matches).toHaveLength(1);
        expect(hits.slice(0, 2).map((h) => h.id).sort((a, b) => a - b), JSON.stringify(filters)).toEqual(defs);
        for (const h of hits.slice(0, 2)) expect(h.signals?.bm25).toBeGreaterThan(0);
        // The other candidates are the best FTS rows, as without definitions.
        expect(hits.slice(2).map((h) => h.id).every((id) => top.includes(id))).toBe(true);
      }
    } finally {
      await s.close();
    }
  });
});

describe('searchBm25 code candidates under a flood of test data', () => {
  it('a code question whose best FTS rows are all tests also takes the best code rows as candidates', async () => {
    const s = await openMemoryStore();
    try {
      const specs: Spec[] = [];
      // 150 three-line test inputs named for what they test, each holding the question's words.
      for (let i = 0; i < 150; i++) specs.push({ path: `tests/suite/results/n_string_escape_${i}.tok`, symbol: null, language: 'text', type: 'text', content: `string escape sequence ${i}` });
      specs.push({ path: 'src/string_escapes.c', symbol: 'read_quoted', language: 'c', content: `int read_quoted(char *s) { ${'step(s); '.repeat(10)} /* an escape in a string */ }` });
      await s.writeFiles(toItems(specs));
      const [code] = (await s.db.all<{ id: number }>(`SELECT id FROM chunks WHERE path = 'src/string_escapes.c'`)).map((r) => r.id);
      const q = processQuery('where are escape sequences inside strings decoded');
      expect(await bestFtsRows(s.db, q.ftsQuery)).not.toContain(code); // the case is real
      // A candidate now (searchBm25's own order is by its words; the kind signal comes after).
      const hits = await searchBm25(s.db, q, {}, 10, 'code');
      expect(hits.some((h) => h.id === code) || (await searchBm25(s.db, q, {}, 100, 'code')).length === 100).toBe(true);
      // With the kind signal, the code leads a code question's results; a question for tests keeps the tests' own candidates.
      const searcher = new Searcher(s);
      const res = await searcher.search('where are escape sequences inside strings decoded', { mode: 'bm25', limit: 5 });
      expect(res.results[0]?.path).toBe('src/string_escapes.c');
      const tests = await searcher.search('where are escape sequences inside strings decoded', { mode: 'bm25', limit: 5, intent: 'test' });
      expect(tests.results.map((r) => r.path)).not.toContain('src/string_escapes.c');
    } finally {
      await s.close();
    }
  });
});

describe('searchBm25 candidates from other files when a few files hold every best row', () => {
  it('a question whose best FTS rows all come from two big files also takes the best rows of the others', async () => {
    const s = await openMemoryStore();
    try {
      const specs: Spec[] = [];
      // Two copies of one long spec file: 120 pieces each, every one holding the question's words.
      for (const copy of ['cold', 'platform']) {
        for (let i = 0; i < 120; i++) specs.push({ path: `test/ported/${copy}/share.spec.ts`, symbol: `case${i}`, content: `it('share resets on error ${i}', () => { share({ resetOnError: true }); share(); reset(); })` });
      }
      // The answers hold fewer of the words among more others: no FTS row of the best 100.
      const filler = 'subscriber.next(value); subscriber.complete(); '.repeat(12);
      specs.push({ path: 'src/multicasting.spec.ts', symbol: 'suite', content: `describe('multicasting', () => { it('takes a share config', () => { ${filler} }); })` });
      specs.push({ path: 'src/multicasting.ts', symbol: 'operate', content: `export function operate(config) { ${filler} return share; }` });
      await s.writeFiles(toItems(specs));
      const ids = async (path: string) => (await s.db.all<{ id: number }>('SELECT id FROM chunks WHERE path = ?', [path])).map((r) => r.id);
      const [spec] = await ids('src/multicasting.spec.ts');
      const [impl] = await ids('src/multicasting.ts');
      const q = processQuery('tests for the share operator reset options');
      const best = await bestFtsRows(s.db, q.ftsQuery);
      expect(best).not.toContain(spec); // the case is real: the 100 best rows are the two copies'
      expect(best).not.toContain(impl);
      const hits = await searchBm25(s.db, q, {}, 100, 'test');
      expect(hits.map((h) => h.id)).toEqual(expect.arrayContaining([spec, impl]));
      const res = await new Searcher(s).search('tests for the share operator reset options', { mode: 'bm25', limit: 10 });
      expect(new Set(res.results.map((r) => r.path))).toEqual(new Set(['test/ported/cold/share.spec.ts', 'test/ported/platform/share.spec.ts', 'src/multicasting.spec.ts', 'src/multicasting.ts']));
    } finally {
      await s.close();
    }
  });
});

describe('compilePathGlob', () => {
  it.each([
    ['src/**/*.ts', 'src/', ['src/a.ts', 'src/x/y.ts'], ['lib/a.ts', 'src/a.js']],
    ['*.py', null, ['a.py', 'deep/dir/b.py'], ['a.pyc', 'py/a.txt']],
    ['/src/lib', 'src/lib', ['src/lib', 'src/lib/a.ts'], ['x/src/lib/a.ts', 'src/library.ts']],
    ['tests/', null, ['tests/a.ts', 'a/tests/b.ts'], ['src/tests.ts']],
    ['src/tests/', 'src/tests', ['src/tests/a.ts'], ['src/tests.ts', 'x/src/tests/a.ts']],
    ['node_modules', null, ['node_modules/x/y.js', 'a/node_modules/b.js'], ['src/a.js']],
  ])('%s', (glob, prefix, yes, no) => {
    const g = compilePathGlob(glob)!;
    expect(g.prefix).toBe(prefix);
    for (const p of yes) expect(g.test(p), p).toBe(true);
    for (const p of no) expect(g.test(p), p).toBe(false);
  });
  it('blank globs filter nothing', () => {
    expect(compilePathGlob('  ')).toBeNull();
  });
});

describe('highlightRanges', () => {
  const mark = (content: string, q: string) => highlightRanges(content, q).map(([a, b]) => content.slice(a, b));
  it.each([
    ['function getUserName() {}', 'user name', ['User', 'Name']],
    ['function getUserName() {}', 'getUserName', ['getUserName']],
    ['let user_id = USER;', 'user', ['user', 'USER']],
    ['allocate(buffers)', 'alloc buf', ['allocate', 'buffers']],
    ['nothing here', 'widget', []],
    ['', 'x', []],
  ])('%s / %s', (content, q, expected) => {
    expect(mark(content, q)).toEqual(expected);
  });
  it('an identifier query marks the identifier, not its parts and stems, where the content has it', () => {
    const doc = '  @doc """\n  Sends a response.\n  """\n  def send_response(conn) do\n    send_resp(conn)\n  end';
    expect(mark(doc, 'send_response')).toEqual(['send_response']);
    expect(mark('Plug.Conn.send_resp(socket, 200)', 'Conn.send_resp')).toEqual(['Conn', 'send_resp']);
    // Without the identifier itself, what matched is its parts, as before.
    expect(mark('Sends a response', 'send_response')).toEqual(['Sends', 'response']);
  });
  it('ASCII text (looked at only around the terms) is marked as a scan of every word marks it', () => {
    // A non-ASCII character far down makes the same lines go through the scan of every word.
    const code = 'func (c *Conn) ReadUser(userID int) error {\n\t// reads $user_name, getUserNames, USERS\n\treturn c.readUser_id(userID)\n}\n';
    const cases: Array<[string, number]> = [['user', 500], ['read user name', 500], ['getUserName', 500], ['Conn.readUser_id', 500], ['user name', 3], ['usernames', 500], ['id', 500]];
    for (const [q, max] of cases) {
      const scanned = highlightRanges(`${code}// é\n`, q, max).filter(([a]) => a < code.length);
      expect(highlightRanges(code, q, max), q).toEqual(scanned);
    }
    expect(mark(code, 'user name').length).toBeGreaterThan(4);
  });
  it('ranges are sorted and disjoint', () => {
    const r = highlightRanges('getUserName user userName', 'user name getusername');
    for (let i = 1; i < r.length; i++) expect(r[i][0]).toBeGreaterThan(r[i - 1][1] - 1);
  });
});

describe('KeywordCache', () => {
  it('answers a count it knows for any cap (exact below the cap it was counted to, else only up to it), and forgets on another generation', async () => {
    const { KeywordCache } = await import('./bm25.ts');
    const c = new KeywordCache();
    expect(c.use(1)).toBe(c);
    c.setCount('"a"', 4000, 120); // exact: 120 rows
    expect([c.count('"a"', 4000), c.count('"a"', 100), c.count('"a"', 1e6)]).toEqual([120, 100, 120]);
    c.setCount('"b"', 4000, 4000); // at least 4000
    expect([c.count('"b"', 4000), c.count('"b"', 10), c.count('"b"', 40_000)]).toEqual([4000, 10, undefined]);
    c.setCount('"b"', 40_000, 12_345);
    expect(c.count('"b"', 1e6)).toBe(12_345);
    c.tableRows = 99;
    expect(c.use(1)).toBe(c);
    expect(c.count('"a"', 4000)).toBe(120);
    c.use(2);
    expect([c.count('"a"', 4000), c.tableRows]).toEqual([undefined, null]);
    expect(c.use(undefined)).toBeUndefined();
  });
});

describe('cover (issue 35)', () => {
  it('a prose question: each leading file gets the share of its words that the file\'s pieces hold together', async () => {
    // profile.ts: getUserName holds "user" and "name", setUserName too; "first" is in both bodies.
    const hits = await search('user name first');
    const get = hits.find((h) => h.id === idOf('src/users/profile.ts', 'getUserName'))!;
    const set = hits.find((h) => h.id === idOf('src/users/profile.ts', 'setUserName'))!;
    expect(get.signals!.cover).toBeGreaterThan(0);
    expect(get.signals!.cover).toBeCloseTo(set.signals!.cover); // the file's, on every piece
    const guide = hits.find((h) => h.id === idOf('docs/guide.md', null));
    if (guide) expect(guide.signals!.cover ?? 0).toBeLessThan(get.signals!.cover);
  });
  it('not for a name lookup', async () => {
    const hits = await search('getUserName');
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(h.signals?.cover).toBeUndefined();
  });
});

describe('spread (issue 35 class 4)', () => {
  it('a question how or where something happens: the share of its words that a file\'s definitions name together', async () => {
    // profile.ts: getUserName names "get", "user", "name"; setUserName adds "set".
    const hits = await search('how to get or set the user name');
    const get = hits.find((h) => h.id === idOf('src/users/profile.ts', 'getUserName'))!;
    const set = hits.find((h) => h.id === idOf('src/users/profile.ts', 'setUserName'))!;
    expect(get.signals!.spread).toBeGreaterThan(0);
    expect(get.signals!.spread).toBeCloseTo(set.signals!.spread); // the file's, on every piece
    // One definition that names every word is no spread: `name` already weighs it.
    const one = await search('how to set the user name');
    expect(one.find((h) => h.id === idOf('src/users/profile.ts', 'setUserName'))!.signals?.spread).toBeUndefined();
  });
  it('not for a question that names an identifier, a sentence with its full stop, one without a question word, nor a name lookup', async () => {
    for (const q of ['where setUserName stores the user name', 'How to get or set the user name.', 'get or set the user name', 'getUserName']) {
      const hits = await search(q);
      expect(hits.length).toBeGreaterThan(0);
      for (const h of hits) expect(h.signals?.spread).toBeUndefined();
    }
  });
});

describe('searchBm25 files the question names', () => {
  it('a file whose name the question names is a candidate when its words are everywhere else', async () => {
    const s = await openMemoryStore();
    try {
      const specs: Spec[] = [];
      // 150 pieces of other files, each denser in the question's words than the named file.
      for (let i = 0; i < 150; i++) specs.push({ path: `src/codec_${i}.c`, symbol: `step_${i}`, language: 'c', content: `int step_${i}(void) { /* compress the whole buffer: compress buffer compress buffer */ }` });
      specs.push({ path: 'src/compress.c', symbol: 'compress2', language: 'c', content: 'int compress2(char *dest, const char *source, int level) { return deflate_all(dest, source, level); } /* compress */' });
      specs.push({ path: 'src/other.c', symbol: 'unrelated', language: 'c', content: 'int unrelated(void) { return 0; }' });
      await s.writeFiles(toItems(specs));
      const [named] = (await s.db.all<{ id: number }>(`SELECT id FROM chunks WHERE path = 'src/compress.c'`)).map((r) => r.id);
      const q = processQuery('compress a whole buffer in one call');
      expect(await bestFtsRows(s.db, q.ftsQuery)).not.toContain(named); // the case is real
      const hits = await searchBm25(s.db, q, {}, 10, 'code');
      expect(hits.map((h) => h.id)).toContain(named);
      // Its file signals place it first among files named for none of the question's words.
      const res = await new Searcher(s).search('compress a whole buffer in one call', { mode: 'bm25', limit: 5 });
      expect(res.results[0]?.path).toBe('src/compress.c');
      // A name lookup, and a question that asks for tests, take no named file.
      expect((await searchBm25(s.db, processQuery('compress2'), {}, 200, 'code')).map((h) => h.id)).toContain(named);
      expect((await searchBm25(s.db, q, {}, 10, 'test')).map((h) => h.id)).not.toContain(named);
    } finally {
      await s.close();
    }
  });
});

describe('searchBm25 candidates per file (LEG_FILE_PIECES)', () => {
  const path = (hits: Array<{ id: number }>, pathOf: Map<number, string>) => hits.map((h) => pathOf.get(h.id));

  it('capPerFile: at most `cap` pieces of a file while other files are left, then the held-back ones, in order', () => {
    const pathOf = new Map([[1, 'a'], [2, 'a'], [3, 'a'], [4, 'b'], [5, 'a'], [6, 'c']]);
    const ranked = [1, 2, 3, 4, 5, 6].map((id) => [id, 10 - id] as const);
    expect(capPerFile(ranked, pathOf, 4, 2).map((e) => e[0])).toEqual([1, 2, 4, 6]);
    // Room left: the held-back pieces fill it, best first, in ranked order.
    expect(capPerFile(ranked, pathOf, 5, 2).map((e) => e[0])).toEqual([1, 2, 3, 4, 6]);
    expect(capPerFile(ranked, pathOf, 10, 2).map((e) => e[0])).toEqual([1, 2, 3, 4, 5, 6]);
    // An id without a path is a file of its own.
    expect(capPerFile([[7, 1], [8, 0.5]], new Map(), 2, 1).map((e) => e[0])).toEqual([7, 8]);
  });

  it('a long file that holds every word does not take the leg from the file that holds them together', async () => {
    const s = await openMemoryStore();
    try {
      const specs: Spec[] = [];
      for (let i = 0; i < 70; i++) specs.push({ path: 'src/terminal.go', symbol: `step${i}`, language: 'go', content: `func (t *Terminal) step${i}() { t.reader.read(); t.matcher.match(); t.terminal.events <- event${i} /* reader matcher terminal events */ }` });
      specs.push({ path: 'src/core.go', symbol: 'Run', language: 'go', content: 'func Run(opts *Options) {\n  reader := NewReader(opts)\n  matcher := NewMatcher(opts)\n  terminal := NewTerminal(opts)\n  loop(reader, matcher, terminal, events)\n}' });
      for (let i = 0; i < 8; i++) specs.push({ path: `src/util${i}.go`, symbol: `helper${i}`, language: 'go', content: `func helper${i}() { /* terminal */ }` });
      await s.writeFiles(toItems(specs));
      const rows = await s.db.all<{ id: number; path: string }>('SELECT id, path FROM chunks');
      const pathOf = new Map(rows.map((r) => [r.id, r.path]));
      const core = rows.find((r) => r.path === 'src/core.go')!.id;
      const q = processQuery('how the reader, matcher and terminal are wired together through events');
      const fts = await bestFtsRows(s.db, q.ftsQuery);
      expect(fts.indexOf(core)).toBeGreaterThan(50); // the case is real: 50 pieces of terminal.go score above it
      const hits = await searchBm25(s.db, q, {}, 10, 'code');
      expect(hits.map((h) => h.id)).toContain(core);
      expect(path(hits, pathOf).filter((p) => p === 'src/terminal.go').length).toBe(LEG_FILE_PIECES);
      // A leg of 50 with 9 other files: the held-back pieces of terminal.go fill it.
      const wide = await searchBm25(s.db, q, {}, 50, 'code');
      expect(wide.length).toBe(50);
      expect(wide.map((h) => h.id)).toContain(core);
      // What the cap left out is counted on the file's best piece, and in its result's fileMore.
      const held = hits.filter((h) => h.held);
      expect(held.map((h) => pathOf.get(h.id))).toEqual(['src/terminal.go']);
      expect(held[0].held!.length).toBeGreaterThan(0);
      expect(held[0].held!.every((id) => pathOf.get(id) === 'src/terminal.go' && !hits.some((h) => h.id === id))).toBe(true);
      const res = await new Searcher(s).search('how the reader, matcher and terminal are wired together through events', { mode: 'bm25', limit: 5 });
      expect(res.results.slice(0, 3).map((r) => r.path)).toContain('src/core.go');
      const terminal = res.results.find((r) => r.path === 'src/terminal.go')!;
      expect(terminal.fileMore).toBeGreaterThanOrEqual(50 - 9 - LEG_FILE_PIECES);
      // A question that describes one function keeps every piece: its answer may be the sixth of the file.
      const fn = await searchBm25(s.db, processQuery('Returns the reader, the matcher and the terminal events.'), {}, 50, 'code');
      expect(path(fn, pathOf).filter((p) => p === 'src/terminal.go').length).toBeGreaterThan(LEG_FILE_PIECES);
    } finally {
      await s.close();
    }
  });
});
