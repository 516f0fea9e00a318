import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../store/open-node.ts';
import { describesFunction, expandAbbreviation, fileNameTerms, readsAsDocComment, MAX_EXPANDED_TERMS, processQuery } from './query.ts';
import { identifierTokens, nameWords, splitIdentifier } from '../text/identifiers.ts';
import { searchBm25 } from './bm25.ts';

describe('splitIdentifier', () => {
  it.each([
    ['getUserName', ['get', 'user', 'name']],
    ['get_user_name', ['get', 'user', 'name']],
    ['HTTPServer', ['http', 'server']],
    ['parseHTTP2Request', ['parse', 'http2', 'request']],
    ['utf8Decode', ['utf8', 'decode']],
    ['Foo::bar', ['foo', 'bar']],
    ['kebab-case-name', ['kebab', 'case', 'name']],
    ['src/lib/userStore.ts', ['src', 'lib', 'user', 'store', 'ts']],
    ['x86_64', ['x86', '64']],
    ['ABC', ['abc']],
    ['日本語Name', ['日本語name']],
    ['', []],
  ])('%s', (input, parts) => {
    expect(splitIdentifier(input)).toEqual(parts);
  });
});

describe('identifierTokens', () => {
  it('emits camelCase parts only (the tokenizer splits snake_case itself)', () => {
    expect(identifierTokens('const x = getUserName(user_id); HTTPServer.listen()').split(' ').sort())
      .toEqual(['get', 'http', 'name', 'server', 'user'].sort());
  });
  it('is empty for plain prose', () => {
    expect(identifierTokens('the quick brown fox')).toBe('');
  });
  it('names column carries symbol, parent and their parts', () => {
    expect(nameWords('getUserName', 'UserStore')).toBe('getUserName UserStore get user name store');
  });
});

describe('processQuery', () => {
  it.each([
    // input, terms, identifiers, isIdentifierLike
    ['user name', ['user', 'name'], [], false],
    ['getUserName', ['getusername', 'get', 'user', 'name'], ['getUserName'], true],
    ['get_user_name', ['get_user_name', 'get', 'user', 'name'], ['get_user_name'], true],
    ['Store::getFiles', ['store::getfiles', 'store', 'get', 'files'], ['Store::getFiles'], true],
    ['how does the parser handle errors', ['parser', 'handle', 'errors'], [], false],
    ['kalloc', ['kalloc'], [], true],
    ['the', ['the'], [], true],
    ['  MIXED Case  ', ['mixed', 'case'], [], false],
  ])('%j', (input, terms, identifiers, identifierLike) => {
    const q = processQuery(input);
    expect(q.original).toBe(input);
    expect(q.terms).toEqual(terms);
    expect(q.identifiers).toEqual(identifiers);
    expect(q.isIdentifierLike).toBe(identifierLike);
  });

  it.each([
    // input, keyword, name, kinds include
    ['struct page', 'struct', 'page', 'struct'],
    ['struct page {', 'struct', 'page', 'struct'],
    ['def parse_args', 'def', 'parse_args', 'function'],
    ['pub fn main', 'fn', 'main', 'method'],
    ['export default class Store', 'class', 'Store', 'class'],
    ['async def fetch(', 'def', 'fetch', 'function'],
    ['#define PAGE_SIZE', 'define', 'PAGE_SIZE', null],
    ['type Reader', 'type', 'Reader', 'interface'],
    ['class Foo::Bar', 'class', 'Foo::Bar', 'class'],
    ['func (b *Buffer) Write', 'func', 'Buffer.Write', 'method'],
    ['func (l *List[T]) Len(', 'func', 'List.Len', 'method'],
    ['func (Reader) Read', 'func', 'Reader.Read', 'method'],
    ['func main() {', 'func', 'main', 'function'],
  ])('reads %j as a declaration', (input, keyword, name, kind) => {
    const d = processQuery(input).declared;
    expect(d).toMatchObject({ keyword, name });
    if (kind === null) expect(d!.kinds).toBeNull();
    else expect(d!.kinds).toContain(kind);
  });

  it.each(['struct', 'page', 'page struct', 'struct page table', 'fn 2fast', 'struct user-name', 'static int foo', 'func (b *Buffer)'])(
    'reads %j as no declaration', (input) => {
      expect(processQuery(input).declared).toBeNull();
    },
  );

  it('in prose, each name of a qualified or slash-joined word is a term of its own', () => {
    const q = processQuery('Fixed using FloatParseHandling with DataTable/DataSet');
    expect(q.terms).toEqual(expect.arrayContaining(['datatable/dataset', 'datatable', 'dataset', 'data', 'table', 'set']));
    expect(processQuery('Refactor JsonSerializer.Binder').terms).toEqual(expect.arrayContaining(['jsonserializer', 'binder']));
    // A lookup of one qualified name keeps its parts only.
    expect(processQuery('Plug.Conn').terms).toEqual(['plug.conn', 'plug', 'conn']);
  });
  it('expands abbreviations both ways', () => {
    expect(expandAbbreviation('db')).toContain('database');
    expect(expandAbbreviation('database')).toContain('db');
    expect(expandAbbreviation('duplicate')).toContain('dup');
    expect(expandAbbreviation('seq')).toContain('sequence');
    expect(expandAbbreviation('authentication')).toContain('auth');
    expect(expandAbbreviation('constructor')).toEqual([]);
    expect(processQuery('alloc buffer').expandedTerms).toEqual(expect.arrayContaining(['alloc', 'buffer', 'allocate', 'buf']));
  });

  it('builds a quoted OR query with prefix markers outside the quotes', () => {
    expect(processQuery('db go').ftsQuery).toBe('"db" OR "go" OR "database"*');
    expect(processQuery('getUserName').ftsQuery).toBe('"getusername"* OR "get" OR "user"* OR "name"* OR "usr"');
  });

  it('a 3-letter term is a prefix only as the last word typed (search as you type), else exact', () => {
    expect(processQuery('kma').ftsQuery).toBe('"kma"*');
    expect(processQuery('atomic inc').ftsQuery).toBe('"atomic"* OR "inc"* OR "increment"*');
    expect(processQuery('inc atomic').ftsQuery).toBe('"inc" OR "atomic"* OR "increment"*');
    expect(processQuery('atomic_inc').ftsQuery).toBe('"atomic_inc"* OR "atomic"* OR "inc" OR "increment"*');
    expect(processQuery('page table').ftsQuery).toBe('"page"* OR "table"* OR "tbl"');
  });

  it('measures a prefix by the token it applies to: the last part of a multi-token word', () => {
    // `"substring_t"*` would be substring followed by any t… token.
    expect(processQuery('copy a substring_t').ftsQuery).toBe('"copy"* OR "substring_t" OR "substr"* OR "t"');
    expect(processQuery('size_t len').ftsQuery).toBe('"size_t" OR "len"* OR "size"* OR "t" OR "length"*');
    expect(processQuery('mutex_lo').ftsQuery).toMatch(/^"mutex_lo" OR /);
    expect(processQuery('mutex_loc').ftsQuery).toMatch(/^"mutex_loc"\* OR /);
    // Only the last token is stemmed, by lightStem's rule, so the marker never lands on a
    // stub: `…_spi0_cs` is not `"…_spi0_c"*` (every c… token), `p.bits` keeps "bits".
    expect(processQuery('the p.bits value').ftsQuery).toMatch(/^"p\.bits"\* OR /);
    expect(processQuery('PINMUX_GPIO49__FUNC_SCP_SPI0_CS').ftsQuery).toMatch(/^"pinmux_gpio49__func_scp_spi0_cs" OR /);
    expect(processQuery('crypto_stats_rng_seed').ftsQuery).toMatch(/^"crypto_stats_rng_seed"\* OR /);
    // A long last token is stemmed and keeps its marker: "p.return" alone would miss p.Returns.
    expect(processQuery('the p.returns value').ftsQuery).toMatch(/^"p\.return"\* OR /);
    expect(processQuery('allocate_pages').ftsQuery).toMatch(/^"allocate_page"\* OR /);
  });

  it('drops doc-comment filler but keeps code words', () => {
    expect(processQuery('Returns whether the given CPU is idle').terms).toEqual(['cpu', 'idle']);
    expect(processQuery('find the return value of a function').terms).toEqual(['find', 'return', 'value', 'function']);
    expect(processQuery('Returns whether the given CPU is idle').words).toEqual(expect.arrayContaining(['is', 'the', 'cpu']));
  });

  it('stems FTS terms so inflections match (allocates → "allocat"*), and prose is not abbreviation-expanded', () => {
    expect(processQuery('allocates pages').ftsQuery).toBe('"allocat"* OR "page"*');
    const prose = processQuery('allocate a buffer for the database connection');
    expect(prose.expandedTerms).toEqual(prose.terms);
    expect(prose.ftsQuery).toBe('"allocate"* OR "buff"* OR "database"* OR "connection"*');
  });

  it('empty and garbage input give an empty query', () => {
    for (const input of ['', '   ', '***', '"""', '(){}[]', '😀😀', '\u0000\u0001', '-- ;; //']) {
      expect(processQuery(input).ftsQuery, input).toBe('');
      expect(processQuery(input).terms, input).toEqual([]);
    }
  });
});

const HOSTILE: string[] = [
  '"unbalanced', "it's", 'NEAR(a b', 'NEAR(a b, 2)', 'AND OR NOT', 'a AND', 'OR', 'NOT x', '*', 'a*', '^start',
  'content:foo', 'names:x path_words:y', '{names content}:foo', '- foo', '+foo', 'a:b:c', '"a" "b"', '""',
  'x'.repeat(10_000), 'word '.repeat(2_000), '😀 emoji 🚀 rocket', 'a\u0000b\u0000c', 'עברית مرحبا', '\u202Eevil\u202C',
  'SELECT * FROM chunks; DROP TABLE chunks;--', "'; DROP TABLE files; --", '\\', '\\"', '%_%', 'a.b.c.d.e.f.g',
  'Foo::', '::bar', '->', 'a-', '$$$', '_', '__init__', 'NEAR', 'near/3', 'col : value', '(a OR b) AND (c',
  '\ud800', 'ÀÉÎÕÜ', 'İstanbul', 'ǅ', '\t\n\r', '0', '1e10', '-1',
  // Read as declarations (a Go method's shape with long whitespace runs, nested brackets).
  `func (a ${' '.repeat(5_000)}x`, `func (a *B${'['.repeat(3_000)}) C`, `struct ${'a'.repeat(5_000)}`, 'pub '.repeat(2_000) + 'fn x',
];

describe('fileNameTerms', () => {
  it('leaves out the parts of an identifier that the question does not write as words of their own', () => {
    const terms = fileNameTerms(processQuery('how the browser adapter builds an XMLHttpRequest'));
    expect(terms).toContain('xmlhttprequest');
    expect(terms).not.toContain('http');
    expect(terms).toContain('adapter');
    expect(fileNameTerms(processQuery('MissingJsonContentType rejection'))).not.toContain('json');
    // A part the question also writes as a word stays.
    expect(fileNameTerms(processQuery('json parsing in JsonReader'))).toContain('json');
    // A one-identifier query: its parts are all it says.
    expect(fileNameTerms(processQuery('ParseMediaType'))).toContain('media');
  });
});

describe('describesFunction (issue 35 class 5)', () => {
  it('a doc comment\'s first sentence: a verb in the third person or a docstring imperative, then its object', () => {
    for (const q of [
      'Returns the number of bytes that can be read', 'Checks whether a given variable is allowed', 'Return the canonical path of a file',
      'Determines if the node is a directive', 'NewReader returns a new Reader whose buffer has the default size', 'lookup_protocol finds the IP protocol number',
      'Converts from a two-complement value', 'applies the given patch to the tree',
      'Returns `true` if the path points at an existing entity.', 'Sets `count * size_of::<T>()` bytes of memory', 'Set the logging level of this logger.',
    ]) expect(describesFunction(q), q).toBe(true);
  });
  it('an imperative only with a sentence\'s capital: commit subjects often open in lower case', () => {
    expect(describesFunction('Copy the file attributes to the destination')).toBe(true);
    for (const q of ['set `argv0` when creating `Io.Threaded`', 'run `init()` before loading start plugins']) expect(describesFunction(q), q).toBe(false);
  });
  it('not questions about a file, a concept or a change', () => {
    for (const q of [
      'how plugins are discovered', 'Add unsigned numbers extensions', 'Fix the parser', 'flags that must be used together',
      'Show messages if deprecated flags are used', 'Add actions to exceptions that implement', 'error types', 'Options fieldLabelModifier',
      'retrying requests that fail with a delay', 'status of the connection', 'returns', '',
    ]) expect(describesFunction(q), q).toBe(false);
  });
});

describe('readsAsDocComment', () => {
  it('describesFunction, or a name then a verb in the third person whatever follows', () => {
    for (const q of ['Returns the number of bytes', 'Read copies bytes from the buffer into p.', 'init initializes conf and is only called once.', 'LookupGroup looks up a group by name.', 'lookupTypeParam searches for type parameters']) {
      expect(readsAsDocComment(q), q).toBe(true);
    }
    expect(describesFunction('Read copies bytes from the buffer into p.')).toBe(false);
    for (const q of ['making urls relative to the site root', 'how plugins are discovered', 'german translations of the error messages', 'Fix the parser', 'returns', 'Handle errors when the socket closes']) {
      expect(readsAsDocComment(q), q).toBe(false);
    }
  });

  it('any sentence of three words or more with its capital and its full stop, whatever its first word', () => {
    for (const q of ['Return internal state; can be passed to setstate() later.', 'Access an entry by hash.', 'The SSLSession for client socket.', 'Instantiate a new IPv6 address object.  ']) {
      expect(readsAsDocComment(q), q).toBe(true);
      expect(describesFunction(q), q).toBe(false);
    }
    // Without the stop: a question or a commit subject (none of the repository evals' 4,362 ends with one);
    // lower-case with it: a question written with a stop.
    for (const q of ['Return internal state; can be passed to setstate() later', 'Add icons to copy functionality in command menu', 'how is a schema turned into generated JavaScript source?', 'Fix it.', 'upgrade to v1.2', 'converting a schema into a JSON Schema document.']) {
      expect(readsAsDocComment(q), q).toBe(false);
    }
  });
});

describe('hostile input', () => {
  it.each(HOSTILE.map((h) => [h.length > 40 ? `${h.slice(0, 40)}…(${h.length})` : h, h]))('%j never throws', (_label, input) => {
    const q = processQuery(input);
    expect(Array.isArray(q.terms)).toBe(true);
    expect(Array.isArray(q.expandedTerms)).toBe(true);
    expect(q.expandedTerms.length).toBeLessThanOrEqual(MAX_EXPANDED_TERMS);
    expect(typeof q.ftsQuery).toBe('string');
  });

  it('every hostile query is valid FTS5 and searching returns an array', async () => {
    const store = await openMemoryStore();
    try {
      await store.writeFiles([{
        file: { path: 'a.ts', hash: 'h', size: 1, mtime: 0, language: 'typescript' },
        chunks: [{
          path: 'a.ts', startLine: 1, endLine: 1, language: 'typescript', chunkType: 'function', symbol: 'near',
          parent: null, signature: null, doc: null, content: 'function near() { return "content" }', contentHash: 'c1',
        }],
      }]);
      for (const input of HOSTILE) {
        const q = processQuery(input);
        // Straight to FTS5: a syntax error here would throw (searchBm25 would hide it).
        if (q.ftsQuery) await store.db.all('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1', [q.ftsQuery]);
        const hits = await searchBm25(store.db, q, { pathGlob: input.slice(0, 100) }, 5);
        expect(Array.isArray(hits)).toBe(true);
      }
    } finally {
      await store.close();
    }
  });
});

describe('questions about where one name is defined', () => {
  it.each([
    ['where is the Router class defined', 'Router', 'class'],
    ['the ArgMatches struct', 'ArgMatches', 'struct'],
    ['where is Plug.Conn defined', 'Plug.Conn', null],
    ['where is `parse_args` defined', 'parse_args', null],
    ['Find the Router class', 'Router', 'class'],
    ['which file defines Module::Class', 'Module::Class', null],
    // A plain word right after a kind cue is the name: C's `struct page`, Python's `class config`.
    ['where is struct page defined', 'page', 'struct'],
    ['the struct page', 'page', 'struct'],
    ['definition of struct page', 'page', 'struct'],
    ['where is the class config declared', 'config', 'class'],
    ['find function main', 'main', 'function'],
    ['where is func init defined', 'init', 'function'],
    ['where is def parse', 'parse', 'function'],
    ['where is struct file defined', 'file', 'struct'],
    // A cue that asks for a definition makes a plain word the name: `pipe`, `interpret`, `infof`.
    ['where is pipe defined', 'pipe', null],
    ['definition of interpret', 'interpret', null],
    ['infof implementation', 'infof', null],
  ])('reads %j as a lookup of %s', (input, name, kind) => {
    const d = processQuery(input).declared;
    expect(d?.name).toBe(name);
    if (kind) expect(d!.kinds).toContain(kind);
    else expect(d!.kinds).toBeNull();
  });
  it.each(['How does Router handle errors', 'Returns the Foo for a bar', 'Improve Error messages', 'find_subcommand in Command', 'where are retries with backoff done', 'where is type checking done', 'where is struct page freed', 'where is logging defined', 'where is the struct defined', 'which file is the class in', 'where is caching implemented', 'where is the retry policy implemented', 'how does pipe work'])(
    'reads %j as prose', (input) => expect(processQuery(input).declared).toBeNull(),
  );
});

describe('a query with no letter or digit', () => {
  it('is a literal (its text, trimmed, white space as one space) and a definition lookup of itself', () => {
    expect(processQuery(':<|>')).toMatchObject({ literal: ':<|>', terms: [], ftsQuery: '', targets: [{ symbol: ':<|>', parent: null }] });
    expect(processQuery('  >>=  ').literal).toBe('>>=');
    expect(processQuery('<.>').targets).toEqual([{ symbol: '<.>', parent: null, kinds: null }]);
    expect(processQuery('= =').literal).toBe('= =');
    expect(processQuery('   ').literal).toBeNull();
    expect(processQuery('operator<<').literal).toBeNull();
    expect(processQuery('a ++ b').literal).toBeNull();
  });
});

describe('acronyms of the question\'s words (ProcessedQuery.acronyms)', () => {
  it('gives the initials of each run of 3-4 words to each content word of the run', () => {
    const a = processQuery('push server sent events to a connected browser').acronyms;
    expect(a.server).toContain('sse');
    expect(a.sent).toContain('sse');
    expect(a.events).toContain('sse');
    expect(processQuery('cache entries by least recently used').acronyms.least).toEqual(expect.arrayContaining(['lru']));
    expect(processQuery('time to live of a record').acronyms.time).toContain('ttl');
    expect(processQuery('server-sent events').acronyms.server).toContain('sse');
  });

  it('starts and ends a run on a content word, skips words with digits or symbols, and is safe for any word', () => {
    // "events to a" ends on a function word; "a connected browser" starts on one.
    expect(Object.values(processQuery('push server sent events to a connected browser').acronyms).flat()).not.toContain('eta');
    expect(Object.values(processQuery('push server sent events to a connected browser').acronyms).flat()).not.toContain('acb');
    expect(processQuery('utf8 byte order mark').acronyms.byte).toEqual(['bom']);
    expect(processQuery('the constructor to string helper').acronyms).toBeTypeOf('object');
    expect(processQuery('parse').acronyms).toEqual({});
  });
});

describe('acronyms that spell a layout folder', () => {
  it('are left out: "splitting raw command" is not src/', () => {
    expect(Object.values(processQuery('splitting raw command line words').acronyms).flat()).not.toContain('src');
  });
});

describe('a question about one operator', () => {
  it.each([
    ['where is :<|> defined', ':<|>'], ['definition of :<|>', ':<|>'], ['what does `>>=` do', '>>='], ['the <$> operator', '<$>'],
    ['how does .: work?', '.:'], [':<|> implementation', ':<|>'],
  ])('reads %j as a lookup of the literal %s', (input, literal) => expect(processQuery(input).literal).toBe(literal));
  it.each(['parse a -> b arrows', 'where is :<|> used in routing', 'where is a ++ b defined', 'what does x do'])(
    'keeps %j as words', (input) => expect(processQuery(input).literal).toBeNull(),
  );
});

describe('a query that may be pasted from the code', () => {
  it('is looked for as one phrase of its words in order', () => {
    expect(processQuery('Cannot override method on final class').phrase).toBe('"cannot override method on final class"');
    expect(processQuery("config must export or return an object.").phrase).toBe('"config must export or return an object"');
  });
  it('takes the words a query puts in double quotes, in any query', () => {
    expect(processQuery('where is "connection refused" logged').phrase).toBe('"connection refused"');
    expect(processQuery('"retry-after" header').phrase).toBe('"retry after"');
    expect(processQuery('where is "the" used').phrase).toBeNull();
  });
  it.each(['how does the router match a path', 'where is the config file read', 'parse json input', 'Router', 'the of and to'])(
    'has no phrase for %j (a question, a short query, a name, stop words only)', (q) => expect(processQuery(q).phrase).toBeNull(),
  );
});

describe('a query that names a file', () => {
  it.each([
    ['sizes.test.ts', 'sizes.test.ts', true], ['./src/core/Query.ts', 'src/core/query.ts', true], ['middlewares/proxy', 'middlewares/proxy', false],
    ['end_to_end file', 'end_to_end', false], ['the cfg file', 'cfg', false], ['file package.json', 'package.json', true],
  ])('reads %j as the file %s', (q, path, extension) => expect(processQuery(q).pathQuery).toEqual({ path, extension }));
  it.each(['Value.Diff', 'flask.g', 'parse the config file', 'https://example.com/a.ts', 'Router', '1.2.3'])(
    'reads %j as no file name', (q) => expect(processQuery(q).pathQuery).toBeNull(),
  );
});

describe('a file and line as a stack trace writes them', () => {
  it.each([
    ['src/foo.ts:120', 'src/foo.ts', 120],
    ['foo.py:12:5', 'foo.py', 12],
    ['    at handle (/home/me/app/src/server/router.ts:88:13)', 'home/me/app/src/server/router.ts', 88],
    ['at com.acme.Bar.baz(Bar.java:42)', 'bar.java', 42],
    ['Traceback (most recent call last):\n  File "/usr/lib/python3/black/linegen.py", line 123, in visit_stmt', 'usr/lib/python3/black/linegen.py', 123],
    ['panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/go/src/app/main.go:42 +0x1d', 'go/src/app/main.go', 42],
  ])('reads %j as %s line %i', (q, path, line) => expect(processQuery(q).pathQuery).toEqual({ path, extension: true, line }));
  it.each(['version 1.2:3', 'see http://x.io/a.ts:80 for more', 'ratio 16:9', 'Value.Diff', 'run only the test at a given line when the CLI argument looks like file.test.ts:42'])(
    'reads %j as no file and line', (q) => expect(processQuery(q).pathQuery?.line).toBeUndefined(),
  );
});
