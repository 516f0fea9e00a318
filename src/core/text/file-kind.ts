/**
 * The kind of a file — code, test, docs, config, generated (or vendored), example — from its
 * path and language alone, so the store (the `kind` column, schema 11), the filters (`--kind`,
 * the app's kind chips) and the ranking (search/signals.ts: for a code question, tests, prose,
 * examples and vendored code rank below the implementation) can never disagree.
 *
 * Also: a query's intent (which kinds lead) from its words or an explicit parameter.
 *
 * Invariants: pure and cheap (a few regex tests per path); every path has exactly one kind;
 * rules are checked in a fixed order: generated > test > example > build/config file names >
 * docs > config languages > code.
 */

import { splitIdentifier } from './identifiers.ts';

export const FILE_KINDS = ['code', 'test', 'docs', 'config', 'generated', 'example'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

/** What a search is for: which file kinds lead. `any` ranks every kind alike. */
export const SEARCH_INTENTS = ['code', 'test', 'docs', 'config', 'example', 'any'] as const;
export type SearchIntent = (typeof SEARCH_INTENTS)[number];

/** Kind names a person may type for a kind (`--kind vendored`, `kind:tests`). */
const KIND_ALIASES: Readonly<Record<string, FileKind>> = {
  code: 'code', src: 'code', source: 'code', implementation: 'code',
  test: 'test', tests: 'test', spec: 'test', specs: 'test',
  doc: 'docs', docs: 'docs', documentation: 'docs', prose: 'docs',
  config: 'config', configuration: 'config', build: 'config',
  generated: 'generated', vendored: 'generated', vendor: 'generated',
  example: 'example', examples: 'example', sample: 'example', samples: 'example', demo: 'example',
};

/** A kind from a name a person typed, or null. */
export function parseFileKind(s: string): FileKind | null {
  return KIND_ALIASES[s.trim().toLowerCase()] ?? null;
}

/** Agent-style intents (MCP `intent`) and kind names → a search intent, or null. */
const INTENT_ALIASES: Readonly<Record<string, SearchIntent>> = {
  any: 'any', all: 'any',
  code: 'code', understand: 'code', implement: 'code', debug: 'code', fix: 'code', navigate: 'code',
  test: 'test', tests: 'test', testing: 'test',
  docs: 'docs', doc: 'docs', document: 'docs', documentation: 'docs', learn: 'docs',
  config: 'config', configure: 'config', configuration: 'config', setup: 'config', build: 'config',
  example: 'example', examples: 'example', usage: 'example',
};

export function parseIntent(s: string): SearchIntent | null {
  return INTENT_ALIASES[s.trim().toLowerCase()] ?? null;
}

/**
 * Vendored or generated code: copied or produced, rarely what is asked for. TypeScript declaration
 * files (`.d.ts`) are too: tsc writes them, or they restate the API of code defined elsewhere (a
 * JavaScript library's `index.d.ts`, which holds every word of its documented API).
 */
const GENERATED_DIR = /(^|\/)(vendor|_vendor|vendored|third[_-]?party|thirdparty|external|extern|node_modules|bower_components|Pods|Carthage|__generated__|generated|gen|autogen|single_include|amalgamation)\//i;
/**
 * A JavaScript or CSS bundle a build wrote into a `dist/` folder (`dist/axios.js`, socket.io's
 * `client-dist/socket.io.js`, `dist-cli/main.mjs`): one file of a whole package's code, which
 * holds every word of the sources it was built from. Only scripts and styles: Go's `cmd/dist/`
 * is the toolchain's own source. Also an Elixir project's `priv/static/` (Phoenix's compiled assets:
 * `priv/static/phoenix.mjs`), and a bundler's output named for its module format
 * (`phoenix.cjs.js`, `vue.esm.js`, `lib.umd.js`).
 */
const BUILT_BUNDLE = /(^|\/)(dist|[\w.-]+-dist|dist-[\w.-]+|priv\/static)\/(?:[^/]+\/)*[^/]+\.(?:[cm]?js|css)$|\.(?:cjs|esm|umd|iife)\.js$/i;
/** A TypeScript declaration file (`index.d.ts`, `types.d.cts`). */
const DECLARATION_FILE = /\.d\.[cm]?ts$/i;
const GENERATED_NAME = new RegExp(String.raw`${DECLARATION_FILE.source}|(?:^|/)(?:gradlew|mvnw)(?:\.bat|\.cmd)?$|\.pb\.go$|\.pb\.(cc|h)$|_pb2(_grpc)?\.pyi?$|[._-]generated\.[^/.]+$|\.gen\.[^/.]+$|\.g\.dart$|\.freezed\.dart$|\.min\.(js|css)$|\.designer\.cs$|_string\.go$|zz_generated[^/]*$|[._-]amalgamation\.[^/.]+$`, 'i');
/**
 * Test code and test data. JavaScript's double-underscore folders too: `__tests__`, `__mocks__`,
 * `__fixtures__`, `__snapshots__`, any `__…_tests__` (immer's `__performance_tests__/`) and any
 * other whose name starts with test, fixture, mock or snapshot, or has one after a `_`
 * (jscodeshift's `__testfixtures__/`, the input and output files of a codemod's tests;
 * `__test_utils__/`, `__image_snapshots__/`; not `__latest__/`). Not `testing/`: a package of
 * that name is what a library ships for its users' tests (Go's `testing` and `testing/fstest`,
 * `numpy.testing`, Angular's `core/testing`), code like .NET's `Polly.Testing/` below; the
 * tests beside it are named as tests (`*_test.go`, `test_*.py`, `FooTest.java`).
 */
const TEST_DIR = /(^|\/)(tests?|testes|__(?:[a-z0-9]+_)*(?:test|fixture|mock|snapshot)[a-z0-9_]*__|testdata|test[_-]?data|testsuite|test[_-]?utils|fixtures?|spec|specs|e2e|integration[_-]tests?|unittests|perf[_-]?tests?|bench|benches|benchmarks?)\//i;
/**
 * `unittest/`, singular: a folder of unit tests, except in Python, where a package of that name is
 * the standard library's test framework (`Lib/unittest/case.py`; any other would shadow it).
 */
const UNITTEST_DIR = /(^|\/)unittest\//i;
/**
 * Maven's, Gradle's and Kotlin Multiplatform's main source sets (`src/main/`, `src/commonMain/`,
 * `src/jvmMain/`), where a class named `…Spec` or `…Suite` is production code: JavaPoet's
 * `MethodSpec.java`, Caffeine's `CaffeineSpec.java` and the JDK's `KeySpec` name specifications,
 * not Spock or Kotest specs (TEST_NAME); JUnit's `Suite.java` is its runner. A `…Benchmark.java`
 * there is still a benchmark (gson's `metrics/src/main/…/ParseBenchmark.java`).
 */
const MAIN_SOURCE_SET = /(^|\/)src\/(?:main|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*Main)\//;
const SPEC_NAME = /[a-z0-9](?:Spec|Suite)\.(?:java|kt|kts|scala|swift|cs|groovy|dart|php|m)$/;
/**
 * A Gradle or Kotlin Multiplatform source set of tests, directly under `src/`: `src/testFixtures/`
 * (caffeine's cache stubs), `src/jmh/` and `src/jcstress/` (benchmarks and stress tests), and any
 * `src/<name>Test/` (`jvmTest`, `commonTest`, `androidTest`, `integrationTest`), whose helpers are
 * not named as tests. And `regress/`, the regression tests' folder of tmux, OpenSSH and
 * PostgreSQL (not `regression/`: a statistics library's code may be named so).
 */
const TEST_SOURCE_SET = /(^|\/)src\/(?:[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*Test|testFixtures|jmh|jcstress)\/|(^|\/)regress\//;
/**
 * A project or package of tests named for what it tests: .NET's `Newtonsoft.Json.Tests/`,
 * `Foo.UnitTests/`, `Foo.FuzzTests/`, a package `web_socket_conformance_tests/`, `clap_bench/`;
 * or one whose name starts with the test word (gson's `test-shrinker/`, `test-jpms/` modules);
 * `testing` after `_` or `-` names one too (immer's `perf-testing/`, `load_testing/`; not .NET's
 * `Polly.Testing/`, a package of helpers the library ships for its users' tests).
 * The test word comes after `.`, `_` or `-`, alone or after one qualifying word (`Unit`,
 * `conformance_`), so `latest/` and `contest/` stay code. A .NET test project may also be named
 * by its kind of test alone, in PascalCase: `IntegrationTests/`, `FunctionalTests/`,
 * `AcceptanceSpecs/` (AutoMapper's `src/IntegrationTests/`); the capital T of the plural after a
 * lower-case letter keeps `Latest/` and `Contests/` code.
 */
const TEST_PROJECT_DIR = /(^|\/)(?:[A-Z][a-z]+(?:[A-Z][a-z]+)*(?:Tests|Specs)|[^/]*[^/._-][._-](?:[A-Z][a-z]+|[a-z]+[_-])?(?:[Tt]ests?|[Ss]pecs?|[Bb]ench(?:es|marks?)?)|[^/]*[^/._-][_-][Tt]esting|[Tt]ests?[_-][^/]+)\//;
const TEST_NAME = /(^|\/)(test_[^/]*|tests?\.[^/.]+|conftest\.py)$|[._-](test|tests|spec|specs|bench|benchmarks?)\.[^/.]+$|\.(test-d|spec-d|e2e-spec|cy)\.[^/.]+$|[a-z0-9](Tests?|Spec|Suite|IT|Benchmarks?)\.(java|kt|kts|scala|swift|cs|groovy|dart|php|m)$|_(test|spec)\.[^/.]+$/;
/**
 * Examples, samples and demos (and `docs_src/`: the programs FastAPI's and Typer's documentation
 * shows); not a Java/Kotlin package path's `com/example/` or
 * `org/sample/` (reverse-domain package names put "example" inside the implementation).
 */
const EXAMPLE_DIR = /(^|\/)(?<!(?:^|\/)(?:com|org|net|io|dev|edu|gov|co|me|app)\/)(_?examples?|samples?|demos?|playground|tutorials?|cookbook|docs_src)\//i;
/**
 * Storybook stories: a component rendered in its example states (`Button.stories.tsx`,
 * `.storybook/`), next to the component they show.
 */
const STORY = /(^|\/)\.storybook\/|\.stor(y|ies)\.[^/.]+$/;
/** A directory named for what it exemplifies: `watchOS Example/`, `react-demo/`, `basic_samples/`. */
const EXAMPLE_SUFFIX_DIR = /(^|\/)[^/]*[^/\s_-][\s_-](examples?|samples?|demos?)\//i;
/**
 * Prose: a file in a prose language, one in a documentation folder, or a file named as a
 * project's prose (README, LICENSE, CHANGELOG …) that is not source code: `history.ts`,
 * `Security.tsx`, `notice.go` are code named for what they do. A Go file in a `doc/` folder is
 * code too: in Go a folder of .go files is a package (`go/doc`, cobra's `doc` generator). A
 * folder named as a web domain (`apps/rxjs.dev/`, `sites/svelte.dev/`) is the project's website.
 */
const DOCS_DIR = /(^|\/)(docs?|documentation|man|manual|guides?|wiki|website|site|[a-z0-9-]+\.(?:dev|org|com|net))\//i;
const DOCS_NAME = /(^|\/)(README|CHANGELOG|CHANGES|HISTORY|NEWS|CONTRIBUTING|AUTHORS|CODE_OF_CONDUCT|SECURITY|LICEN[CS]E|COPYING|NOTICE|UPGRADING|MIGRATION)([._-][^/]*)?$/i;
const PROSE_LANGUAGES: ReadonlySet<string> = new Set(['markdown', 'rst', 'text', 'asciidoc', 'org', 'latex', 'tex', 'html']);
/** Configuration, build and data files. */
const CONFIG_LANGUAGES: ReadonlySet<string> = new Set([
  'json', 'yaml', 'toml', 'ini', 'properties', 'xml', 'make', 'cmake', 'dockerfile', 'kconfig', 'hcl', 'nix', 'csv', 'protobuf',
]);
/**
 * Build, project and tool files by name. A JavaScript tool reads its configuration from
 * `<tool>.config.<js|ts|mjs|cjs|mts|cts>` (or `<tool>.conf.js`): vite, vitest, tsdown, tsup,
 * next, jest, babel, playwright, tailwind; tanstack-query has a `tsdown.config.ts` and a
 * `vitest.config.ts` in each of its packages, each holding the package's words.
 */
const CONFIG_NAME = /(^|\/)(\.[^/]+rc|\.editorconfig|\.gitattributes|\.gitignore|\.siftignore|Gemfile|Rakefile|Podfile|Vagrantfile|Jenkinsfile|Package\.swift|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|pom\.xml|setup\.py|setup\.cfg|mix\.exs|rebar\.config|stack\.yaml|[^/]*\.cabal|build\.zig|build\.zig\.zon|pubspec\.yaml|Cargo\.toml|go\.mod|go\.sum|[^/]*\.gemspec|composer\.json|package\.json|tsconfig[^/]*\.json|[^/]+\.(?:config|conf)\.[cm]?[jt]s|[^/]*\.csproj|[^/]*\.sln|build\.sbt|Makefile|CMakeLists\.txt|configure(\.ac)?)$/i;

/** Is `language` one of prose (Markdown, reStructuredText, plain text…), whose pieces are named by their headings? */
export function isProseLanguage(language: string): boolean {
  return PROSE_LANGUAGES.has(language);
}

/**
 * Is `language` one of source code (not configuration, data or prose, nor unknown)? A test file in
 * such a language is a test itself; one in JSON, YAML or plain text is a test's data (search/
 * signals.ts kindFactor).
 */
export function isSourceLanguage(language: string): boolean {
  return language !== '' && !CONFIG_LANGUAGES.has(language) && !PROSE_LANGUAGES.has(language);
}

/** Kinds worked out, by language and path: a search asks for each candidate's several times (a dozen regular expressions each). */
const KINDS_KEPT = new Map<string, FileKind>();
const KINDS_KEPT_MAX = 20_000;

/** The kind of the file at `path` (`/`-separated, relative to the codebase root) in `language`. */
export function fileKind(path: string, language: string): FileKind {
  const key = `${language}\0${path}`;
  let kind = KINDS_KEPT.get(key);
  if (kind === undefined) {
    if (KINDS_KEPT.size >= KINDS_KEPT_MAX) KINDS_KEPT.clear();
    kind = judgeKind(path, language);
    KINDS_KEPT.set(key, kind);
  }
  return kind;
}

function judgeKind(path: string, language: string): FileKind {
  if (GENERATED_DIR.test(path) || GENERATED_NAME.test(path) || BUILT_BUNDLE.test(path)) return 'generated';
  if (TEST_DIR.test(path) || TEST_PROJECT_DIR.test(path) || (TEST_NAME.test(path) && !(MAIN_SOURCE_SET.test(path) && SPEC_NAME.test(path))) || TEST_SOURCE_SET.test(path)) return 'test';
  if (language !== 'python' && UNITTEST_DIR.test(path)) return 'test';
  if (EXAMPLE_DIR.test(path) || EXAMPLE_SUFFIX_DIR.test(path) || STORY.test(path)) return 'example';
  if (CONFIG_NAME.test(path)) return 'config';
  if (PROSE_LANGUAGES.has(language)) return 'docs';
  const notSource = language === '' || CONFIG_LANGUAGES.has(language);
  if ((notSource && DOCS_NAME.test(path)) || (language !== 'go' && DOCS_DIR.test(path))) return 'docs';
  if (CONFIG_LANGUAGES.has(language)) return 'config';
  return 'code';
}

/**
 * A module of unit tests inside a source file, by the name the language's convention gives it:
 * Rust's `#[cfg(test)] mod tests { … }` (or `mod test`), which the Rust book and `cargo new`
 * put at the end of the file under test. Its pieces are tests although the file is code
 * (`clap_builder/src/output/textwrap/mod.rs`'s `test::multiple_words_on_first_line`), so the
 * ranking weighs them as tests (search/signals.ts `kind`); the file's kind stays code.
 */
const INLINE_TEST_MODULE: Readonly<Record<string, RegExp>> = {
  rust: /^(tests?|[a-z0-9_]+_tests?)$/,
};

/** The kind of a piece whose parent is `parent` in a file of `kind` in `language`: 'test' inside an inline test module. */
export function pieceKind(kind: FileKind, language: string, parent: string | null | undefined): FileKind {
  if (kind !== 'code' || !parent) return kind;
  return INLINE_TEST_MODULE[language]?.test(parent) ? 'test' : kind;
}

/**
 * Test words: they ask for tests, except in a codebase whose own code is about tests (a test
 * runner, a mocking library: TEST_WORD), where "test files", "skipped tests" and "a
 * test's hooks" name what its code handles; "spec files" too where the code is about specs (SPEC_WORD).
 */
const TEST_ONLY_WORDS = /\b(tests?|testing|tested|unit[- ]?tests?|spec files?|test[- ]?cases?)\b/i;
/** Every one of TEST_ONLY_WORDS in a text (replace, matchAll). */
const TEST_ONLY_WORDS_ALL = new RegExp(TEST_ONLY_WORDS.source, 'gi');
/**
 * Tests asked for by what they test ("tests for the sequencer") or by their kind ("unit tests of the
 * parser", "integration tests that check retries"): tests even in a test runner's code, whose own
 * words are "test files", "failing tests", "the tests that failed last time".
 */
const TESTS_OF = /\b(?:(?:unit|integration|e2e|end-to-end|functional|regression)[- ]tests?\b|(?:tests?|specs?|spec files?)\s+(?:for|of)\b)/i;
/**
 * The word codeNamed is asked about for a question's test words (TEST_ONLY_WORDS): does this
 * codebase's code hold it as its own vocabulary (search/bm25.ts codeNamedBy: a share of its code
 * pieces, config.ts TEST_WORD_CODE_SHARE)? A walk's paths cannot tell (codeNamedByPaths: no).
 */
export const TEST_WORD = 'test';
/**
 * The word codeNamed is asked about for a question whose only test words are "spec file(s)", and
 * for its "specs": RSpec's code and javapoet's (`TypeSpec`, `MethodSpec`) write "spec" in a third
 * to a half of their pieces, where "loading spec files" or "the smallest subset of specs" name
 * what the code handles. Judged like TEST_WORD, by the share of code pieces that hold it (a test
 * runner's code, about tests, handles spec files too: mocha).
 */
export const SPEC_WORD = 'spec';
/** "spec file(s)", the test-only words SPEC_WORD stands for. */
const SPEC_FILES = /^spec files?$/i;
/**
 * The word codeNamed is asked about for a question's "example(s)": RSpec calls a test an example
 * (`Example`, `ExampleGroup`, `example_status_persister.rb`), so "pending examples" and "the
 * slowest examples" name what its code handles. Judged by the share of code pieces whose names or
 * path hold it (search/bm25.ts codeWordShare, config.ts EXAMPLE_WORD_NAME_SHARE): doc comments
 * write "Examples" as a heading in many languages, so the pieces' text cannot tell.
 */
export const EXAMPLE_WORD = 'example';
/** The example words a codebase may hold as its own vocabulary ("example", "examples"). */
const EXAMPLE_WORDS = /\bexamples?\b/gi;
/** Examples asked for by what they show ("an example of …", "examples for …", "usage example"): examples everywhere. */
const EXAMPLES_OF = /\b(?:examples?|samples?|demos?)\s+(?:of|for|showing|that shows?)\b|\busage examples?\b/i;
/**
 * Test words a codebase may use for its own code: retrofit's `retrofit-mock/` library ("a mock
 * server"), lazy.nvim's `community/specs.lua` (plugin specs), pytest's `fixtures.py`. They ask for
 * tests unless this codebase names code with them (search.ts asks the index: codeNamedBy).
 */
const SOFT_TEST_WORDS = /\b(specs|fixtures?|mocks?)\b/gi;

/** Query words that ask for a kind of file: "tests for the router", "an example of …", "docs for …" (configuration: CONFIG_ITSELF below). */
const INTENT_WORDS: ReadonlyArray<[RegExp, SearchIntent]> = [
  [new RegExp(`${TEST_ONLY_WORDS.source}|${SOFT_TEST_WORDS.source}`, 'i'), 'test'],
  [/\b(examples?|samples?|demos?|usage example)\b/i, 'example'],
  [/\b(docs?|documentation|documented|readme|changelog|guide|tutorial|manual|design\s+(?:proposals?|documents?))\b/i, 'docs'],
];

/**
 * The soft test words (lower-case) of a query whose test intent comes from them alone: if the
 * codebase names code with every one, they are its vocabulary and the question asks for code.
 * [] when other test words ask for tests anyway, or there are none.
 */
export function softTestWords(query: string): string[] {
  const text = query.replace(FOR_TESTS, ' ');
  return TEST_ONLY_WORDS.test(text) ? [] : softWordsIn(text);
}

/** The soft test words `text` holds (lower-case, each once). */
function softWordsIn(text: string): string[] {
  return [...new Set([...text.matchAll(SOFT_TEST_WORDS)].map((m) => m[1].toLowerCase()))];
}

/**
 * The test words of a query that asks for tests (intentOfQuery 'test'), which a codebase may hold
 * as its own vocabulary: its soft test words (softTestWords), or TEST_WORD with them when the
 * test-only words ask for nothing more than what a test runner's code is about — not "tests
 * for …" (TESTS_OF) nor test helpers. [] when no codebase can make them ask for code.
 */
export function codebaseTestWords(query: string): string[] {
  const text = query.replace(FOR_TESTS, ' ');
  // "tests for …", "specs of …": tests wherever they are asked for so.
  if (TESTS_OF.test(text)) return [];
  if (!TEST_ONLY_WORDS.test(text)) return softWordsIn(text);
  if (text.search(TEST_HELPERS) >= 0) return [];
  const only = [...text.matchAll(TEST_ONLY_WORDS_ALL)].map((m) => m[0]);
  return [only.every((w) => SPEC_FILES.test(w)) ? SPEC_WORD : TEST_WORD, ...softWordsIn(text)];
}

/**
 * The example words of a query that asks for examples (intentOfQuery 'example') and names them
 * as a test runner does ("pending examples", "an example group"), not examples of something
 * (EXAMPLES_OF): [EXAMPLE_WORD], else [].
 */
export function codebaseExampleWords(query: string): string[] {
  return query.search(EXAMPLE_WORDS) >= 0 && !EXAMPLES_OF.test(query) ? [EXAMPLE_WORD] : [];
}

/** The words of configuration; alone they ask for it only in a short query (CONFIG_ITSELF). */
const CONFIG_WORDS = /\b(config|configs|configure[sd]?|configuring|configuration|settings|dependenc(y|ies))\b/i;
/**
 * Configuration asked for itself: its files, a build's setup, how to configure something, or a
 * query that opens with it ("configuring webpack for production"). Elsewhere in a question a
 * configuration word describes what code does with it ("reading proxy settings from environment
 * variables", "redirecting http requests to https for the configured hosts", "resolving
 * dependencies between rules") and the question asks for that code (session 12: in the repos
 * eval 11 of the 15 questions config words sent to configuration ranked their answer higher as
 * code questions, none lower).
 */
const CONFIG_ITSELF = /\b(config|configuration|settings)\s+files?\b|\bbuild\s+(scripts?|files?|system|configuration|settings)\b|\bhow\s+(to|do|does|can|should)\b.*\bconfigur(e|es|ed|ing)\b|^\s*(configure|configuring|configuration)\b/i;
/** A query this short is a name, and one with a configuration word names configuration ("linter settings", "eslint config"). */
const CONFIG_NAME_WORDS = 3;

/**
 * Tests as the place or purpose of what is asked for ("a fake client that returns canned
 * responses in tests", "an in-memory file system to use in tests", "a shortcut for e2e tests",
 * "canned responses so unit tests don't hit the network"):
 * the answer is a helper the library ships for tests, not a test. And the thing a test tests
 * ("the constructor of the tested object", "the class under test"): the answer is code. So is
 * what a way of testing is made of ("shortest paths for model based testing", "property-based
 * testing generators"): the library's code for it (xstate's `graph/shortestPaths.ts`). And "test"
 * as the verb check ("ping to test if a connection is still alive", "does not need to test whether
 * Keys is nil"): the code that checks.
 */
const FOR_TESTS = /\b(?:(?:in|for|during|within|so(?:\s+that)?)\s+(?:unit |e2e |integration |end-to-end )?(?:tests|testing)|(?:the|a|an|its)\s+tested|under\s+test|[a-z]+[- ](?:based|driven)\s+testing|(?:tests?|testing)(?=\s+(?:if|whether)\b))\b/gi;

/**
 * A configuration word naming a piece of code: "use official Config type for options", "the
 * settings method", "a config object", "the options interface" ask for the code that defines
 * it, not for config files. Only the word before a code noun is dropped: "build configuration",
 * "linter settings", "how to configure logging" still ask for configuration.
 */
const CONFIG_AS_CODE = /\b(config|configs|configuration|settings)\s+(types?|interfaces?|class(es)?|structs?|objects?|methods?|functions?|fields?|propert(y|ies)|parameters?|params|schemas?|enums?)\b/gi;

/**
 * Helpers for tests ("testing helpers that assert a validator has an error", "test utilities",
 * "helpers for creating a test context"): code written for tests, which a library ships as its
 * own code (FluentValidation's `TestHelper/`, Go's `httptest`, `numpy.testing`) and an
 * application keeps among its tests (`tests/helpers.py`). The question asks for the helpers
 * wherever they live, so no kind leads (intent `any`), unless it asks for another kind too.
 */
const TEST_HELPERS = /\b(?:test|testing)\s+(?:helpers?|utilit(?:y|ies)|utils?|support|tools?|harness(?:es)?)\b|\bhelpers?\s+for\s+(?:[\w-]+\s+){0,2}(?:tests?|testing)\b/gi;

/** Words that ask for type declarations ("TypeScript type definitions for the config", "typings", "index.d.ts"). */
const DECLARATION_WORDS = /\b(?:typings|type\s+(?:definitions?|declarations?)|declaration\s+files?|d\.[cm]?ts)\b/i;

/** Is `path` a TypeScript declaration file? */
export function isDeclarationFile(path: string): boolean {
  return DECLARATION_FILE.test(path);
}

/**
 * Does the question ask for type declarations? Then a declaration file, generated by kind, is
 * weighed as code (search/signals.ts kindFactor): it is what is asked for, and the kind that
 * would lead with no kind first (`any`) is the README that mentions them.
 */
export function asksForDeclarations(query: string): boolean {
  return DECLARATION_WORDS.test(query);
}

/**
 * A configuration file that the question's code acts on or is made of: the object of a verb, up
 * to four words after it ("watching the config file for changes", "loads settings files from the
 * search paths", "handling a missing config file", "search several directories for a config
 * file"), a file things come from or go into ("settings combined from the config file"), its
 * subject ("where is the config file read", "reloading when the config file changes") or before a code noun ("the config file parser",
 * "config file formats and their encoders"). The question asks for the code that reads, watches
 * or writes it; "the config files", "where are the config files", "config files for the linter"
 * still ask for configuration. Words ending in -ing that describe the file rather than act on it
 * (`existing`, `missing`, `matching`) are no verb.
 */
const CONFIG_FILE_ACTED_ON = /\b(?!(?:existing|missing|following|remaining|corresponding|matching|pending|incoming|outgoing|upcoming|leading|trailing|containing|nothing|something|anything|everything)\b)(?:[a-z]{2,}ing|reads?|loads?|reloads?|watch(?:es)?|parses?|writes?|finds?|locates?|search(?:es)?|looks?\s+(?:up|for)|saves?|opens?|merges?|validates?|generates?|creates?|detects?|discovers?|resolves?|upgrades?|migrates?|converts?)\s+(?:[\w.'-]+\s+){0,4}(?:config|configuration|settings)\s+(files?)\b|\b(?:from|into)\s+(?:(?:the|a|an|its|their|each|every)\s+)?(?:[\w.'-]+\s+)?(?:config|configuration|settings)\s+(files?)\b|\b(?:config|configuration|settings)\s+(files?)(?=(?:\s+[\w'-]+){0,2}\s+(?:read|loaded|reloaded|parsed|watched|written|saved|opened|merged|validated|found|located|searched|created|generated|changes|changed|modified)\b)|\b(?:config|configuration|settings)\s+(files?)(?=\s+(?:parsers?|parsing|loaders?|loading|readers?|reading|writers?|writing|watch(?:ers?|ing)?|formats?|paths?|lookups?|discovery|search(?:ing)?|handling|support|encoders?|decoders?)\b)/gi;

/**
 * The intent a query's words express, else 'code'. `namesCode`: the query is a name lookup (one
 * identifier: `TestRouter`, `config`; a declaration) or a function's doc comment (search/query.ts
 * readsAsDocComment: "Tests whether this file type represents a regular file.", "Set the HTML
 * title of the generated server documentation"), whose answer is code whatever its words: it
 * stays 'code'. Test words that only say where the thing is used (FOR_TESTS) and a configuration
 * word before a code noun (CONFIG_AS_CODE: "Config type") and a configuration file the code acts on
 * (CONFIG_FILE_ACTED_ON: "watching the config file") ask for code; helpers for tests
 * (TEST_HELPERS: "test utilities") for no kind first ('any'). `codeWords`: soft test words
 * (softTestWords) this codebase names its code with, which ask for nothing.
 */
export function intentOfQuery(query: string, namesCode: boolean, codeWords?: readonly string[]): SearchIntent {
  if (namesCode) return 'code';
  let text = query.replace(FOR_TESTS, ' ').replace(CONFIG_AS_CODE, ' $2').replace(CONFIG_FILE_ACTED_ON, (_m, a, b, c, d) => ` ${a ?? b ?? c ?? d} `);
  if (codeWords?.length) text = text.replace(SOFT_TEST_WORDS, (w) => (codeWords.includes(w.toLowerCase()) ? ' ' : w));
  if (codeWords?.includes(TEST_WORD) || codeWords?.includes(SPEC_WORD)) text = text.replace(TEST_ONLY_WORDS_ALL, ' ');
  if (codeWords?.includes(EXAMPLE_WORD)) text = text.replace(EXAMPLE_WORDS, ' ');
  const forTests = text.replace(TEST_HELPERS, ' helpers ');
  const helpers = forTests !== text;
  text = forTests;
  for (const [re, intent] of INTENT_WORDS) if (re.test(text)) return intent;
  if (CONFIG_ITSELF.test(text) || (CONFIG_WORDS.test(text) && text.trim().split(/\s+/).length <= CONFIG_NAME_WORDS)) return 'config';
  return helpers ? 'any' : 'code';
}

/**
 * The intent a search's words ask for: intentOfQuery, with the soft test words it finds judged by
 * `codeNamed` (does this codebase name code with every one: search/bm25.ts codeNamedBy over an
 * index, the walked paths before there is one). One rule for the search and for the files a
 * first answer stores ahead of the first index (cli/mcp-disk.ts filesHoldingMost).
 */
export async function queryIntent(query: string, namesCode: boolean, codeNamed: (words: string[]) => boolean | Promise<boolean>): Promise<SearchIntent> {
  let intent = intentOfQuery(query, namesCode);
  let words: string[] = [];
  // Twice at most: the test words a codebase's code holds may leave its example words to judge
  // (RSpec's "loading spec files and running all example groups"), or the other way round.
  for (let round = 0; round < 2; round++) {
    const asked = intent === 'test' ? codebaseTestWords(query) : intent === 'example' ? codebaseExampleWords(query) : [];
    const more = asked.filter((w) => !words.includes(w));
    if (!more.length || !(await codeNamed(more))) return intent;
    words = [...words, ...more];
    intent = intentOfQuery(query, namesCode, words);
  }
  return intent;
}

/** A soft test word and its singular or plural (`mock` → mocks, `specs` → spec): the path words codeNamedBy and codeNamedByPaths look for. */
export function pathWordForms(word: string): string[] {
  return [...new Set([word, word.endsWith('s') ? word.slice(0, -1) : `${word}s`])];
}

/**
 * Does a code file of `paths` hold each of `words` — or its singular / plural — as a word of its
 * path (`retrofit-mock/…`, `community/specs.lua`)? search/bm25.ts codeNamedBy's rule over a walk,
 * before there is an index (queryIntent's `codeNamed` for a first answer). `kindOf`: the file's
 * kind (fileKind with its language).
 */
export function codeNamedByPaths(paths: Iterable<string>, words: readonly string[], kindOf: (path: string) => FileKind): boolean {
  const list = [...paths];
  if (words.includes(TEST_WORD) || words.includes(EXAMPLE_WORD) || words.includes(SPEC_WORD)) return false;
  return words.length > 0 && words.every((w) => {
    const forms = new Set(pathWordForms(w));
    return list.some((p) => splitIdentifier(p).some((part) => forms.has(part.toLowerCase())) && kindOf(p) === 'code');
  });
}

/** The SQL function migration 11 fills `chunks.kind` with: sift_file_kind(path, language). */
export const FILE_KIND_FUNCTION = 'sift_file_kind';

export function registerFileKind(db: { createFunction(name: string, nArg: number, fn: (...args: Array<string | number | null | Uint8Array | bigint>) => string): void }): void {
  db.createFunction(FILE_KIND_FUNCTION, 2, (path, language) => fileKind(String(path ?? ''), String(language ?? '')));
}
