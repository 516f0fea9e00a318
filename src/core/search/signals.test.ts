import { describe, expect, it } from 'vitest';
import { FILE_SIGNALS, FUNCTION_KIND_FACTORS, FUNCTION_QUESTION, KIND_FACTORS, TEST_DATA_FACTOR } from '../config.ts';
import { processQuery } from './query.ts';
import { lightStem } from '../text/word-forms.ts';
import { asksForDeclarations } from '../text/file-kind.ts';
import { addScore, applyCover, applyFileSignals, applySpread, asksHowOrWhere, applyNamedLeaf, applyPieceKind, applyProse, commentOnly, coverFiles, namedLeafFiles, fileNameSignal, fileNameWords, kindFactor, pathSignal, type FileCandidate } from './signals.ts';

const cand = (id: number, path: string, score: number, language = 'go'): FileCandidate => ({ id, path, language, score, signals: {} });

describe('pathSignal', () => {
  it('counts query words in the file name above words in a directory', () => {
    const inName = pathSignal('pkg/http/retry.go', ['retry', 'backoff']);
    const inDir = pathSignal('pkg/retry/client.go', ['retry', 'backoff']);
    expect(inName).toBeGreaterThan(inDir);
    expect(inDir).toBeGreaterThan(0);
    expect(pathSignal('pkg/http/client.go', ['retry', 'backoff'])).toBe(0);
  });
  it('matches identifier parts and light stems of path words', () => {
    expect(pathSignal('lib/PluginLoader.kt', ['plugins', 'loaded'])).toBe(1);
    expect(pathSignal('src/routing/router.rs', ['routing'])).toBe(1);
  });
  it("does not count a test file's test mark as a word of its name", () => {
    for (const p of ['lua/plugin_spec.lua', 'src/plugin.test.ts', 'lib/test_plugin.py', 'src/PluginTest.java', 'pkg/plugin_test.go', 'src/PluginTests.cs']) {
      expect(pathSignal(p, ['plugin']), p).toBe(1);
      expect(pathSignal(p, ['specs']), p).toBe(0);
      expect(pathSignal(p, ['tests']), p).toBe(0);
    }
    // Nor a folder that only says its files are tests.
    expect(pathSignal('spec/unit/router_spec.rb', ['specs'])).toBe(0);
    expect(pathSignal('tests/unit/router.py', ['tests', 'router'])).toBe(0.5);
    // A name that is only the mark keeps it; a word that merely ends in one is no mark.
    expect(pathSignal('spec/spec.rb', ['spec'])).toBeGreaterThan(0);
    expect(pathSignal('src/latest.ts', ['latest'])).toBe(1);
    expect(pathSignal('src/contest.rs', ['contest'])).toBe(1);
  });
  it('finds a three-letter file name for its plural, and for nothing else it starts', () => {
    expect(pathSignal('src/Data/Aeson/Key.hs', ['keys'])).toBe(1);
    expect(pathSignal('pkg/tag.go', ['tags'])).toBe(1);
    expect(pathSignal('src/key.rs', ['keyboard'])).toBe(0);
    expect(pathSignal('src/map.rs', ['mapper'])).toBe(0);
  });
  it('matches another form of the word and abbreviations in file and directory names (issue 35)', () => {
    expect(pathSignal('src/compose.ts', ['composition'])).toBe(1);
    expect(pathSignal('src/StringUtils.java', ['string', 'utility'])).toBe(1);
    expect(pathSignal('pkg/errs/err.go', ['error'])).toBe(1);
    expect(pathSignal('lib/cfg/loader.go', ['configuration'])).toBeGreaterThan(0);
    expect(pathSignal('src/generic.rs', ['general'])).toBe(0);
  });
  it('an abbreviation\'s plural names the word in a file name (`utils` for "utility", `params` for "parameter")', () => {
    expect(fileNameSignal('src/StringUtils.java', ['string', 'utility'])).toBe(1);
    expect(fileNameSignal('lib/sinatra/required_params.rb', ['required', 'parameter'])).toBe(1);
    // Only abbreviations of 4+ letters: `errs` is no plural read for "error".
    expect(fileNameSignal('src/errs.go', ['error'])).toBe(0);
  });
  it('finds a file named for the plural of a word ending in y (text/word-forms.ts isIForm)', () => {
    expect(pathSignal('lib/Hakyll/Core/Dependencies.hs', ['dependency'])).toBe(1);
    expect(pathSignal('lib/telescope/pickers/layout_strategies.lua', ['strategy'])).toBe(1);
    expect(pathSignal('src/keys.rs', ['key'])).toBe(1);
    expect(pathSignal('src/display.rs', ['displays'])).toBe(1);
  });
});

describe('fileNameSignal', () => {
  it('is the share of the file name\'s words the question names (issue 35: the concept is the file)', () => {
    expect(fileNameSignal('lib/Hakyll/Web/Html/RelativizeUrls.hs', ['making', 'urls', 'relative', 'site', 'root'])).toBe(1);
    expect(fileNameSignal('lib/Hakyll/Web/Html.hs', ['making', 'urls', 'relative', 'site', 'root'])).toBe(0);
    expect(fileNameSignal('sinatra-contrib/lib/sinatra/quiet_logger.rb', ['keeping', 'request', 'paths', 'logger'])).toBe(0.25);
    expect(fileNameSignal('src/click/_winconsole.py', ['windows', 'console'])).toBe(0.5);
  });
  it('reads a generic file name\'s directory instead, and leaves numbers out', () => {
    expect(fileNameWords('lua/telescope/_extensions/init.lua')).toEqual(['extensions']);
    expect(fileNameWords('clap_builder/src/parser/mod.rs')).toEqual(['parser']);
    // A function word joining the name's words is no word a question names (its query drops it).
    expect(fileNameWords('src/util/str_to_bool.rs')).toEqual(['str', 'bool']);
    expect(fileNameSignal('src/util/str_to_bool.rs', ['strings', 'booleans'])).toBe(1);
    expect(fileNameWords('src/other.rs')).toEqual(['other']);
    expect(fileNameSignal('lib/Hakyll/Web/Template/List.hs', ['splitting', 'list', 'posts'])).toBe(0.5);
  });
});

describe('applyFileSignals', () => {
  it('puts the implementation above its test and docs for a code question, and the test first for a test question', () => {
    const make = () => [cand(1, 'router_test.go', 1), cand(2, 'docs/router.md', 1, 'markdown'), cand(3, 'router.go', 0.9)];
    const code = make();
    applyFileSignals(code, ['router'], 'code');
    expect(code.sort((a, b) => b.score - a.score).map((c) => c.id)).toEqual([3, 1, 2]);
    expect(code.find((c) => c.id === 1)!.signals.kind).toBeLessThan(1);
    const test = make();
    applyFileSignals(test, ['router'], 'test');
    expect(test.sort((a, b) => b.score - a.score)[0].id).toBe(1);
  });
  it('weighs a TypeScript declaration file as generated, and as code when the question asks for type declarations', () => {
    const make = () => [cand(1, 'index.d.ts', 1, 'typescript'), cand(2, 'lib/core/Axios.js', 0.9, 'javascript')];
    const code = make();
    applyFileSignals(code, ['interceptors'], 'code');
    expect(code.find((c) => c.id === 1)!.signals.kind).toBe(KIND_FACTORS.code.generated);
    expect(code.sort((a, b) => b.score - a.score)[0].id).toBe(2);
    const typings = make();
    applyFileSignals(typings, ['interceptors'], 'code', false, asksForDeclarations('TypeScript type definitions for the interceptors'));
    expect(typings.find((c) => c.id === 1)!.signals.kind ?? 1).toBe(KIND_FACTORS.code.code);
    expect(typings.sort((a, b) => b.score - a.score)[0].id).toBe(1);
    expect(asksForDeclarations('the typings of the store')).toBe(true);
    expect(asksForDeclarations('how interceptors run')).toBe(false);
  });
  it('weighs a piece of a Rust inline test module (`mod tests`) as a test, the file\'s other pieces as code', () => {
    const make = () => [
      { ...cand(1, 'src/wrap.rs', 1, 'rust'), parent: 'tests' },
      { ...cand(2, 'src/wrap.rs', 0.9, 'rust'), parent: null },
      { ...cand(3, 'src/other.rs', 0.8, 'rust'), parent: 'Other' },
    ];
    const code = make();
    applyFileSignals(code, ['wrap'], 'code');
    const by = new Map(code.map((c) => [c.id, c]));
    expect(by.get(1)!.signals.kind).toBe(KIND_FACTORS.code.test);
    expect(by.get(2)!.signals.kind ?? 1).toBe(KIND_FACTORS.code.code);
    expect(by.get(3)!.signals.kind ?? 1).toBe(KIND_FACTORS.code.code);
    const test = make();
    applyFileSignals(test, ['wrap'], 'test');
    expect(test.find((c) => c.id === 1)!.signals.kind ?? 1).toBe(KIND_FACTORS.test.test);
    expect(test.find((c) => c.id === 2)!.signals.kind).toBe(KIND_FACTORS.test.code);
    // Another language's module named `tests` is not a convention for unit tests there.
    const go = [{ ...cand(1, 'tests.go', 1), parent: 'tests' }];
    applyFileSignals(go, ['x'], 'code');
    expect(go[0].signals.kind).toBe(KIND_FACTORS.code.test); // tests.go is a test file by name
    const py = [{ ...cand(1, 'pkg/runner.py', 1, 'python'), parent: 'tests' }];
    applyFileSignals(py, ['x'], 'code');
    expect(py[0].signals.kind ?? 1).toBe(KIND_FACTORS.code.code);
  });
  it('demotes tests and docs less for a question about one function (a doc comment) than for one about a file', () => {
    // A documented helper in a folder of tests (Rust's `alloc/…/btree/testing/crash_test.rs`).
    const make = () => [cand(1, 'alloc/src/collections/btree/testing/crash_test.rs', 1, 'rust'), cand(2, 'alloc/src/collections/btree/map.rs', 0.38, 'rust')];
    const file = make();
    applyFileSignals(file, ['x'], 'code');
    expect(file[0].signals.kind).toBe(KIND_FACTORS.code.test);
    const fn = make();
    applyFileSignals(fn, ['x'], 'code', true);
    expect(fn[0].signals.kind).toBe(FUNCTION_KIND_FACTORS.test);
    expect(FUNCTION_KIND_FACTORS.docs).toBeGreaterThan(KIND_FACTORS.code.docs);
    expect(FUNCTION_KIND_FACTORS.test).toBeGreaterThan(KIND_FACTORS.code.test);
    // The described function's file leads only where it is demoted less.
    expect(fn.sort((a, b) => b.score - a.score)[0].id).toBe(1);
    expect(file.sort((a, b) => b.score - a.score)[0].id).toBe(2);
    // Other intents keep their own rows.
    const tests = make();
    applyFileSignals(tests, ['x'], 'test', true);
    expect(tests[1].signals.kind).toBe(KIND_FACTORS.test.code);
  });
  it('adds evidence from other matching pieces of the same file', () => {
    const cs = [cand(1, 'a.go', 1), cand(2, 'b.go', 1), cand(3, 'b.go', 0.5)];
    applyFileSignals(cs, ['x'], 'any');
    expect(cs[1].score).toBeGreaterThan(cs[0].score);
    expect(cs[1].signals.file).toBeGreaterThan(0);
    expect(cs[0].signals.file).toBeUndefined();
  });
  it('cover: a file whose pieces together hold more of the query\'s words gets more, × its kind', () => {
    // terms: 3; a.go's one piece holds term 0; b.go's pieces hold terms 0-2 between them; b_test.go all 3 but is a test.
    const cs = [cand(1, 'a.go', 1), cand(2, 'b.go', 0.9), cand(3, 'b.go', 0.2), cand(4, 'b_test.go', 0.8)];
    applyFileSignals(cs, ['x'], 'code');
    const before = cs.map((c) => c.score);
    applyCover(cs, new Map([['a.go', 0b001], ['b.go', 0b111], ['b_test.go', 0b111]]), 3);
    const w = FILE_SIGNALS.fileCoverWeight;
    expect(w).toBeGreaterThan(0);
    expect(cs[0].signals.cover).toBeCloseTo(w / 3);
    expect(cs[1].signals.cover).toBeCloseTo(w);
    expect(cs[2].signals.cover).toBeCloseTo(w);
    expect(cs[3].signals.cover).toBeCloseTo(w * cs[3].signals.kind);
    expect(cs[3].signals.kind).toBeLessThan(1);
    expect(cs[1].score - before[1]).toBeCloseTo(w);
    const off = [cand(1, 'c.go', 1)];
    applyCover(off, new Map([['a.go', 1]]), 3);
    expect(off[0].signals.cover).toBeUndefined();
  });
  it('asksHowOrWhere: a question how or where something happens, in prose', () => {
    const asks = (q: string) => asksHowOrWhere(q, processQuery(q).identifiers);
    expect(asks('how plugins are discovered')).toBe(true);
    expect(asks('Where are uploaded files written to a temporary folder')).toBe(true);
    expect(asks('Make error messages more verbose')).toBe(false); // a commit subject
    expect(asks('Stop the server and this thread nicely')).toBe(false); // a docstring without its full stop
    expect(asks('however the parser fails')).toBe(false);
    expect(asks('Remove an event from the queue.')).toBe(false); // a docstring's sentence
    expect(asks('Returns the number of bytes in the buffer')).toBe(false); // reads as a doc comment
    expect(asks('how clap::builder::Styles sets the colors of help output')).toBe(false);
  });
  it('spread: a file whose definitions name the question\'s words one by one', () => {
    const q = processQuery('how a client sends a request: the auth flow applied, redirects followed');
    const terms = q.terms.filter((t) => t.length >= 3);
    const stems = terms.map(lightStem);
    const cs = [cand(1, 'client.py', 0.9), cand(2, 'client.py', 0.8), cand(3, 'client.py', 0.7), cand(4, 'auth.py', 1), cand(5, 'auth.py', 0.5), cand(6, 'far.py', 0.1)];
    const symbols = new Map<number, string | null>([[1, '_send_handling_auth'], [2, '_send_handling_redirects'], [3, 'send'], [4, 'AuthFlow'], [5, 'auth_flow'], [6, 'redirect_and_auth']]);
    const files = new Map([['client.py', [1, 2, 3]], ['auth.py', [4, 5]]]);
    applySpread(cs, symbols, files, terms, stems);
    const w = FILE_SIGNALS.fileSpreadWeight;
    expect(w).toBeGreaterThan(0);
    // client.py: send, auth, redirects in two definitions that each add a word.
    expect(cs[0].signals.spread).toBeGreaterThan(0);
    expect(cs[0].signals.spread).toBe(cs[2].signals.spread);
    // auth.py: two definitions, but the second adds nothing (auth, flow again): one definition's words.
    expect(cs[3].signals.spread).toBeUndefined();
    // far.py is not among the files cover read.
    expect(cs[5].signals.spread).toBeUndefined();
  });
  it('coverFiles: the best pieces of the best files, by their best piece', () => {
    const cs = [cand(1, 'a.go', 0.1), cand(2, 'b.go', 0.9), cand(3, 'b.go', 0.5), cand(4, 'c.go', 0.8), cand(5, 'b.go', 0.7)];
    for (let i = 0; i < 6; i++) cs.push(cand(10 + i, 'b.go', 0.05));
    const files = coverFiles(cs);
    expect([...files.keys()].slice(0, 3)).toEqual(['b.go', 'c.go', 'a.go']);
    expect(files.get('b.go')).toEqual([2, 5, 3, 10].slice(0, FILE_SIGNALS.coverPieces));
    const many = Array.from({ length: FILE_SIGNALS.coverFiles + 5 }, (_, i) => cand(i, `f${i}.go`, 1 - i / 100));
    const kept = coverFiles(many);
    expect(kept.size).toBe(FILE_SIGNALS.coverFiles);
    expect(kept.has(`f${FILE_SIGNALS.coverFiles}.go`)).toBe(false);
  });
  it('records every contribution by name so explain sums to the score', () => {
    const c = cand(1, 'retry.go', 2);
    c.signals.bm25 = 2;
    applyFileSignals([c], ['retry'], 'code');
    expect(c.signals.path).toBeGreaterThan(0);
    expect(c.score).toBeCloseTo(c.signals.bm25 + c.signals.path + c.signals.file_name);
    addScore(c, 'x', 0);
    expect('x' in c.signals).toBe(false);
  });
});

describe('path word forms (issue 35)', () => {
  it('three-letter words with a suffix, a final y before a suffix, stems of abbreviations, the tail of a word written as one', () => {
    expect(pathSignal('lib/sinatra/quiet_logger.rb', ['log'])).toBe(1);
    expect(pathSignal('src/mapping.rs', ['map'])).toBe(1);
    expect(pathSignal('src/manager.rs', ['man'])).toBe(0);
    expect(pathSignal('internal/LazilyParsedNumber.java', ['lazy'])).toBe(1);
    expect(pathSignal('src/os/win.go', ['windows'])).toBe(1);
    expect(pathSignal('include/fmt/ostream.h', ['streams'])).toBe(1);
    expect(pathSignal('src/unlock.c', ['lock'])).toBe(0);
  });
});

describe('path names for words the code does not use (issue 35 class 6)', () => {
  it('a language by its ISO 639-1 code, translations by their folder; one direction, path signals only', () => {
    expect(pathSignal('packages/zod/src/v4/locales/de.ts', ['german'])).toBe(1);
    expect(fileNameSignal('packages/zod/src/v4/locales/de.ts', ['german', 'translations'])).toBeGreaterThan(0);
    expect(pathSignal('packages/zod/src/v4/locales/pt.ts', ['german'])).toBe(0);
    expect(pathSignal('src/i18n/messages.ts', ['translations'])).toBeGreaterThan(0);
    // No synonyms beyond those conventions: a reply is not a response here.
    expect(pathSignal('lib/src/response.dart', ['reply'])).toBe(0);
    // Not the reverse: a question about `de` is not about German.
    expect(pathSignal('docs/german.md', ['de'])).toBe(0);
  });
  it('joins the FTS groups restricted to the path column, never as a word of the text', () => {
    const q = processQuery('german translations of the error messages');
    expect(q.ftsGroups.flat().map((p) => p.phrase)).toContain('path_words : "de"');
    expect(q.ftsQuery).not.toContain('"de"');
    expect(processQuery('error messages').ftsGroups.flat().some((p) => p.phrase.startsWith('path_words'))).toBe(false);
  });
});

describe('applyPieceKind', () => {
  it('scales every piece that is not a function or a method, and names it', () => {
    const cand = (id: number): FileCandidate => ({ id, score: 2, signals: {}, path: 'core/mem/maybe_uninit.rs', language: 'rust' });
    const cs = [cand(1), cand(2), cand(3), cand(4)];
    applyPieceKind(cs, new Map([[1, 'struct'], [2, 'method'], [3, 'function'], [4, 'module']]));
    expect(cs.map((c) => c.score)).toEqual([2 * FUNCTION_QUESTION.otherPieceFactor, 2, 2, 2 * FUNCTION_QUESTION.otherPieceFactor]);
    expect(cs[0].signals.piece_kind).toBe(FUNCTION_QUESTION.otherPieceFactor);
    expect(cs[1].signals.piece_kind).toBeUndefined();
  });
});

describe('named_leaf', () => {
  const head = { head: true, scope: 1 };
  const rows = [
    { id: 1, path: 'src/DefaultValueHandling.cs', symbol: 'DefaultValueHandling' },
    { id: 2, path: 'src/JsonSyntaxException.java', symbol: 'JsonSyntaxException' },
    { id: 3, path: 'src/JsonArray.java', symbol: 'JsonArray' },
    { id: 4, path: 'src/TraceLevel.cs', symbol: 'TraceLevel' },
    { id: 5, path: 'src/Other.java', symbol: 'OtherException' },
  ];
  const types = new Map([[1, 'enum'], [2, 'class'], [3, 'class'], [4, 'enum'], [5, 'class']]);
  it('finds the files that define an enum or an exception the question names, at its head and under its qualifier', () => {
    // 4 is an enum under another qualifier (scope < 1), 5 a later piece of its exception.
    const tiers = new Map([[1, head], [2, head], [3, head], [4, { head: true, scope: 0.3 }], [5, { head: false, scope: 1 }]]);
    expect([...namedLeafFiles(rows, tiers, types)].sort()).toEqual(['src/DefaultValueHandling.cs', 'src/JsonSyntaxException.java']);
    expect(namedLeafFiles(rows, new Map(), types).size).toBe(0);
  });
  it('scales every piece of those files by namedLeafFactor, named', () => {
    const cs = [cand(1, 'src/DefaultValueHandling.cs', 2), cand(6, 'src/DefaultValueHandling.cs', 1), cand(7, 'src/MathUtils.cs', 1.5)];
    applyNamedLeaf(cs, new Set(['src/DefaultValueHandling.cs']));
    expect(cs[0].score).toBeCloseTo(2 * FILE_SIGNALS.namedLeafFactor);
    expect(cs[1].signals.named_leaf).toBe(FILE_SIGNALS.namedLeafFactor);
    expect(cs[2].score).toBe(1.5);
    expect(cs[2].signals.named_leaf).toBeUndefined();
  });
});

describe('prose', () => {
  it("commentOnly: the language's own line comments and C-style blocks, Rust doc attributes; not code", () => {
    expect(commentOnly('//! ## Feature flags\n//!\n//! * `std`: …\n', 'rust')).toBe(true);
    expect(commentOnly('#![doc = include_str!("../../examples/demo.md")]\n//! Guide\n', 'rust')).toBe(true);
    expect(commentOnly('/*\n * Copyright\n * Licensed…\n */\n', 'java')).toBe(true);
    expect(commentOnly('-- a note\n-- another\n', 'lua')).toBe(true);
    expect(commentOnly('# a note\n\n# another\n', 'python')).toBe(true);
    expect(commentOnly('#!/usr/bin/env python\n# tool\n', 'python')).toBe(true);
    expect(commentOnly('// Package foo does x.\npackage foo\n', 'go')).toBe(false);
    expect(commentOnly('/** Doc. */\nfn parse() {}\n', 'rust')).toBe(false);
    expect(commentOnly('#[derive(Debug)]\nstruct A;\n', 'rust')).toBe(false);
    expect(commentOnly('//! Crate docs.\n#![allow(dead_code)]\n', 'rust')).toBe(false);
    expect(commentOnly('/* a */\n*out = 1;\n', 'c')).toBe(false);
    expect(commentOnly('\n  \n', 'rust')).toBe(false);
    // Another language's marker is code: C's `# define` and `--i;`, a `/*` in Python.
    expect(commentOnly('# define MAX 10\n# define MIN 0\n', 'c')).toBe(false);
    expect(commentOnly('--i;\n--j;\n', 'c')).toBe(false);
    expect(commentOnly('// not a comment in Python\n', 'python')).toBe(false);
    expect(commentOnly('# a note\n', 'lua')).toBe(false);
  });
  it('applyProse: a code file whose read pieces are all comments (2 or more) weighs as docs; one with code keeps its weight', () => {
    const cs = [cand(1, 'src/_features.rs', 1, 'rust'), cand(2, 'src/_features.rs', 0.9, 'rust'), cand(3, 'src/parser.rs', 0.8, 'rust'), cand(4, 'src/parser.rs', 0.7, 'rust'), cand(5, 'src/json_schema.rs', 0.6, 'rust')];
    const read = [
      { id: 1, path: 'src/_features.rs', language: 'rust', content: '//! ## Feature flags\n//! * `env`: …' },
      { id: 2, path: 'src/_features.rs', language: 'rust', content: '//! #### Optional features' },
      { id: 3, path: 'src/parser.rs', language: 'rust', content: '// The flags, in order.' },
      { id: 4, path: 'src/parser.rs', language: 'rust', content: 'fn parse() {}' },
      // One commented-out block is no guide.
      { id: 5, path: 'src/json_schema.rs', language: 'rust', content: '// pub struct Old {\n//   a: u8,\n// }' },
    ];
    applyProse(cs, read, 'code');
    const factor = KIND_FACTORS.code.docs / KIND_FACTORS.code.code;
    expect(cs[0].signals.prose).toBe(factor);
    expect(cs[1].signals.prose).toBe(factor);
    expect(cs[0].score).toBeCloseTo(factor);
    expect(cs[2].signals.prose).toBeUndefined();
    expect(cs[3].signals.prose).toBeUndefined();
    expect(cs[4].signals.prose).toBeUndefined();
    // A docs file already weighs as docs; `any` ranks every kind alike.
    const md = [cand(1, 'docs/flags.md', 1, 'markdown'), cand(2, 'docs/flags.md', 1, 'markdown')];
    applyProse(md, [{ id: 1, path: 'docs/flags.md', language: 'markdown', content: '# Flags' }, { id: 2, path: 'docs/flags.md', language: 'markdown', content: '# More' }], 'code');
    expect(md[0].signals.prose).toBeUndefined();
    // A question that names the file asks for what it documents: no prose.
    const named = [cand(1, 'src/_features.rs', 1, 'rust'), cand(2, 'src/_features.rs', 0.9, 'rust')];
    applyFileSignals(named, ['feature', 'flags', 'crate'], 'code');
    expect(named[0].signals.file_name).toBeGreaterThan(0);
    applyProse(named, read.slice(0, 2), 'code');
    expect(named[0].signals.prose).toBeUndefined();
    expect(named[1].signals.prose).toBeUndefined();
    const any = [cand(1, 'src/_features.rs', 1, 'rust'), cand(2, 'src/_features.rs', 1, 'rust')];
    applyProse(any, read.slice(0, 2), 'any');
    expect(any[0].signals.prose).toBeUndefined();
  });
});

describe('acronyms in the path signals', () => {
  it('a path that writes the initials of a run of the question\'s words names those words', () => {
    const pq = processQuery('push server sent events to a connected browser');
    const cands = (): FileCandidate[] => [
      { id: 1, score: 1, signals: {}, path: 'src/http/sse/SseClient.kt', language: 'kotlin', parent: null },
      { id: 2, score: 1, signals: {}, path: 'src/http/Cookie.kt', language: 'kotlin', parent: null },
    ];
    const without = cands();
    applyFileSignals(without, pq.terms, 'code');
    const withAcronyms = cands();
    applyFileSignals(withAcronyms, pq.terms, 'code', false, false, undefined, pq.acronyms);
    expect(without[0].signals.path ?? 0).toBe(0);
    expect(withAcronyms[0].signals.path).toBeGreaterThan(0);
    expect(withAcronyms[0].signals.file_name).toBeGreaterThan(0);
    expect(withAcronyms[0].score).toBeGreaterThan(without[0].score);
    expect(withAcronyms[1].score).toBe(without[1].score);
  });
});

describe('kindFactor', () => {
  it('weighs a test in a data language below a test in source code when tests are asked for', () => {
    expect(kindFactor('test/typebox/runtime/format/ipv6.ts', 'typescript', 'test')).toBe(KIND_FACTORS.test.test);
    expect(kindFactor('test/jsonschema/cases/v1/format/ipv6.json', 'json', 'test')).toBe(TEST_DATA_FACTOR);
    expect(kindFactor('tests/data/test1976', '', 'test')).toBe(TEST_DATA_FACTOR);
    expect(TEST_DATA_FACTOR).toBeLessThan(KIND_FACTORS.test.test);
    // Other intents weigh test data as tests, and a data file outside tests keeps its kind's factor.
    expect(kindFactor('test/jsonschema/cases/v1/format/ipv6.json', 'json', 'code')).toBe(KIND_FACTORS.code.test);
    expect(kindFactor('package.json', 'json', 'test')).toBe(KIND_FACTORS.test.config);
  });
});
