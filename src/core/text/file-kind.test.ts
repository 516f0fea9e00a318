import { describe, expect, it } from 'vitest';
import { EXAMPLE_WORD, SPEC_WORD, TEST_WORD, codeNamedByPaths, codebaseExampleWords, codebaseTestWords, fileKind, intentOfQuery, parseFileKind, parseIntent, pieceKind, queryIntent, softTestWords } from './file-kind.ts';

describe('fileKind', () => {
  it.each([
    ['lib/test_maple_tree.c', 'c', 'test'], ['pkg/foo/foo_test.go', 'go', 'test'], ['src/a.test.ts', 'typescript', 'test'],
    ['src/a.spec.js', 'javascript', 'test'], ['tests/unit/x.py', 'python', 'test'], ['a/testdata/x.go', 'go', 'test'], ['testes/events.lua', 'lua', 'test'],
    ['src/test/java/com/x/RouterTest.java', 'java', 'test'], ['Tests/AlamofireTests/SessionTests.swift', 'swift', 'test'],
    ['spec/router_spec.rb', 'ruby', 'test'], ['test/plug/conn_test.exs', 'elixir', 'test'], ['okio/src/jvmTest/kotlin/BufferTest.kt', 'kotlin', 'test'],
    ['vendor/github.com/x/y.go', 'go', 'generated'], ['api/x.pb.go', 'go', 'generated'], ['src/types.generated.ts', 'typescript', 'generated'],
    ['third_party/zlib/inflate.c', 'c', 'generated'], ['single_include/nlohmann/json.hpp', 'cpp', 'generated'], ['sqlite3-amalgamation.c', 'c', 'generated'], ['lib/model.g.dart', 'dart', 'generated'],
    ['examples/basic/main.rs', 'rust', 'example'], ['_examples/chat/main.go', 'go', 'example'], ['crates/x/examples/a.rs', 'rust', 'example'],
    ['src/main/kotlin/net/example/http/RetryPolicy.kt', 'kotlin', 'code'], ['src/main/java/com/example/App.java', 'java', 'code'],
    ['src/test/java/com/example/AppTest.java', 'java', 'test'], ['org/sample/Util.java', 'java', 'code'],
    ['packages/bench/compile-validate-vs-parse.ts', 'typescript', 'test'], ['metrics/src/main/java/com/google/gson/metrics/ParseBenchmark.java', 'java', 'test'], ['src/workbench/view.ts', 'typescript', 'code'],
    ['test.c', 'c', 'test'], ['library/core/src/tests.rs', 'rust', 'test'], ['src/testing/testing.go', 'go', 'code'], ['src/testing/fstest/mapfs_test.go', 'go', 'test'], ['pkg/testify.go', 'go', 'code'],
    ['watchOS Example/App/Networking.swift', 'swift', 'example'], ['packages/react-demo/src/app.tsx', 'typescript', 'example'], ['src/code_samples_reader.go', 'go', 'code'],
    ['README.md', 'markdown', 'docs'], ['docs/guide/intro.md', 'markdown', 'docs'], ['CHANGELOG', 'text', 'docs'], ['doc/conf.py', 'python', 'docs'],
    ['package.json', 'json', 'config'], ['Cargo.toml', 'toml', 'config'], ['.github/workflows/ci.yml', 'yaml', 'config'], ['Makefile', 'make', 'config'],
    ['mix.exs', 'elixir', 'config'],
    // A JavaScript tool's configuration file is named `<tool>.config.<ext>` (or `.conf.js`): vitest, tsdown, next, jest, babel, playwright.
    ['packages/query-core/tsdown.config.ts', 'typescript', 'config'], ['vitest.config.mts', 'typescript', 'config'], ['apps/web/next.config.js', 'javascript', 'config'],
    ['karma.conf.js', 'javascript', 'config'], ['src/app/app.config.ts', 'typescript', 'config'],
    ['src/config.ts', 'typescript', 'code'], ['src/configure.ts', 'typescript', 'code'], ['lib/config/index.js', 'javascript', 'code'], ['src/lib/config.rs', 'rust', 'code'],
    ['src/latest.ts', 'typescript', 'code'], ['lib/string.c', 'c', 'code'], ['kernel/testing.c', 'c', 'code'], ['src/contest/x.ts', 'typescript', 'code'],
    ['Src/Newtonsoft.Json.Tests/TestObjects/Person.cs', 'csharp', 'test'], ['src/Foo.UnitTests/A.cs', 'csharp', 'test'], ['Src/Newtonsoft.Json.FuzzTests/Fuzz.cs', 'csharp', 'test'],
    ['pkgs/web_socket_conformance_tests/lib/src/echo_server.dart', 'dart', 'test'], ['clap_bench/src/lib.rs', 'rust', 'test'],
    ['test-shrinker/src/main/java/com/example/ClassWithVersionAnnotations.java', 'java', 'test'], ['src/testify/a.go', 'go', 'code'],
    ['Src/Newtonsoft.Json/JsonReader.cs', 'csharp', 'code'], ['src/foo_latest/a.ts', 'typescript', 'code'], ['pkg/my-contest/a.go', 'go', 'code'], ['Src/Newtonsoft.Json.TestConsole/Program.cs', 'csharp', 'code'],
    ['lib/plug/conn.ex', 'elixir', 'code'], ['src/attest.rs', 'rust', 'code'], ['Sources/Alamofire/Session.swift', 'swift', 'code'],
    ['__performance_tests__/todo.mjs', 'javascript', 'test'], ['src/__fixtures__/user.ts', 'typescript', 'test'], ['src/__snapshots__/a.test.ts.snap', 'text', 'test'],
    ['perf-testing/read-cpuprofile.js', 'javascript', 'test'], ['tools/load_testing/run.py', 'python', 'test'], ['src/Polly.Testing/ResiliencePipelineExtensions.cs', 'csharp', 'code'],
    ['perf-testing/immutability-benchmarks.mjs', 'javascript', 'test'], ['lib/find_bit_benchmark.c', 'c', 'test'], ['src/router.test-d.ts', 'typescript', 'test'],
    ['test/app.e2e-spec.ts', 'typescript', 'test'], ['cypress/e2e/login.cy.ts', 'typescript', 'test'], ['src/policy.ts', 'typescript', 'code'], ['src/legacy.ts', 'typescript', 'code'],
    ['src/components/Button.stories.tsx', 'tsx', 'example'], ['.storybook/preview.ts', 'typescript', 'example'], ['src/stories/StoryList.tsx', 'tsx', 'code'], ['src/story.ts', 'typescript', 'code'],
    ['src/__tests_helpers/a.ts', 'typescript', 'code'],
    ['packages/query-codemods/src/v4/__testfixtures__/default-import.input.tsx', 'tsx', 'test'], ['src/__test_utils__/render.ts', 'typescript', 'test'],
    ['src/__generated__/schema.ts', 'typescript', 'generated'], ['src/__init__.py', 'python', 'code'], ['lib/__internal__/a.ts', 'typescript', 'code'], ['src/__latest__/a.ts', 'typescript', 'code'], ['src/__image_snapshots__/a.png.ts', 'typescript', 'test'],
    ['src/IntegrationTests/Inheritance/ProxyTests.cs', 'csharp', 'test'], ['test/FunctionalTests/Routing.cs', 'csharp', 'test'], ['src/AcceptanceSpecs/A.cs', 'csharp', 'test'],
    // Named like a project's prose, but source code; prose and data files of those names stay docs.
    ['src/utils/history.ts', 'typescript', 'code'], ['app/scenes/Settings/Security.tsx', 'tsx', 'code'], ['lua/x/actions/history.lua', 'lua', 'code'],
    ['crypto/x509/internal/macos/security.go', 'go', 'code'], ['LICENSE', 'text', 'docs'], ['LICENSE-MIT', 'text', 'docs'], ['NOTICE', 'text', 'docs'],
    ['HISTORY.rst', 'rst', 'docs'], ['www/blog/authors.yml', 'yaml', 'docs'], ['docs/Readme.cs', 'csharp', 'docs'], ['src/Readme.cs', 'csharp', 'code'],
    // A Go folder of .go files is a package, in doc/ too; other languages' code in doc folders is documentation.
    ['src/go/doc/reader.go', 'go', 'code'], ['src/go/doc/comment/parse.go', 'go', 'code'], ['docs/site/main.go', 'go', 'code'], ['docs/src/Button.tsx', 'tsx', 'docs'],
    // A folder named as a web domain is a website; a package named `socket.io` is code.
    ['apps/rxjs.dev/src/app/shared/scroll.service.ts', 'typescript', 'docs'], ['sites/svelte.dev/src/routes/+page.ts', 'typescript', 'docs'],
    ['packages/socket.io/lib/index.ts', 'typescript', 'code'], ['packages/engine.io/lib/server.ts', 'typescript', 'code'], ['Documentation/scripts/x.py', 'python', 'docs'],
    // testing/ packages ship helpers for users' tests; their tests are named as tests. Python's unittest/ is the framework.
    ['numpy/testing/_private/utils.py', 'python', 'code'], ['packages/core/testing/src/fake_async.ts', 'typescript', 'code'], ['testing/test_assertion.py', 'python', 'test'],
    ['python3.11/unittest/case.py', 'python', 'code'], ['python3.11/unittest/test/test_case.py', 'python', 'test'], ['src/unittest/parser.cc', 'cpp', 'test'], ['llvm/unittests/ADT/APInt.cpp', 'cpp', 'test'],
    ['include/spdlog/fmt/bundled/format.h', 'cpp', 'code'], ['javalin/src/main/java/io/javalin/plugin/bundled/CorsPlugin.kt', 'kotlin', 'code'], ['pip/_vendor/rich/console.py', 'python', 'generated'], ['packages/socket.io/client-dist/socket.io.js', 'javascript', 'generated'], ['docs_src/subcommands/tutorial003_py310/users.py', 'python', 'example'], ['dist/axios.cjs', 'javascript', 'generated'], ['dist/esm/index.mjs', 'javascript', 'generated'], ['dist-cli/main.mjs', 'javascript', 'generated'], ['dist/style.css', 'css', 'generated'], ['src/cmd/dist/build.go', 'go', 'code'], ['src/distance.js', 'javascript', 'code'], ['src/redistribute/a.js', 'javascript', 'code'], ['index.d.ts', 'typescript', 'generated'], ['src/types.d.cts', 'typescript', 'generated'], ['lib/dom.d.mts', 'typescript', 'generated'], ['src/d.ts', 'typescript', 'code'], ['src/Latest/A.cs', 'csharp', 'code'], ['src/Contests/A.cs', 'csharp', 'code'], ['src/RequestsTests.cs', 'csharp', 'test'], ['src/Manifests/A.cs', 'csharp', 'code'],
    ['caffeine/src/testFixtures/java/com/github/benmanes/caffeine/cache/ExpireAfterWrite.java', 'java', 'test'], ['caffeine/src/jmh/java/com/github/benmanes/caffeine/cache/GetPutBenchmark.java', 'java', 'test'], ['koin-core/src/jvmTest/kotlin/Helpers.kt', 'kotlin', 'test'], ['koin-core/src/commonTest/kotlin/Simple.kt', 'kotlin', 'test'], ['app/src/androidTest/java/Rule.java', 'java', 'test'], ['koin-core/src/commonMain/kotlin/Koin.kt', 'kotlin', 'code'], ['src/main/java/a/Test.java', 'java', 'code'], ['src/contest/A.java', 'java', 'code'], ['regress/hooks.sh', 'shell', 'test'], ['perftests/resources/GenJSCode.scala', 'scala', 'test'], ['tests/perf_tests/a.py', 'python', 'test'], ['tools/perf/builtin-record.c', 'c', 'code'], ['gradlew', 'bash', 'generated'], ['mvnw.cmd', 'text', 'generated'], ['priv/static/phoenix.mjs', 'javascript', 'generated'], ['assets/js/phoenix/presence.js', 'javascript', 'code'], ['dist/vue.esm.js', 'javascript', 'generated'], ['src/phoenix.cjs.js', 'javascript', 'generated'], ['lib/upgradlew.sh', 'bash', 'code'], ['src/main/java/com/squareup/javapoet/MethodSpec.java', 'java', 'code'], ['src/commonMain/kotlin/io/kotest/FooSpec.kt', 'kotlin', 'code'], ['src/test/groovy/FooSpec.groovy', 'groovy', 'test'], ['lib/FooSpec.java', 'java', 'test'], ['src/regression/linear.py', 'python', 'code'],
  ])('%s (%s) → %s', (p, lang, want) => expect(fileKind(p, lang)).toBe(want));
});

describe('intent', () => {
  it('reads the kind a question asks for from its words', () => {
    expect(intentOfQuery('tests for the router', false)).toBe('test');
    expect(intentOfQuery('how to configure logging', false)).toBe('config');
    expect(intentOfQuery('documentation of the release process', false)).toBe('docs');
    expect(intentOfQuery('example of a custom middleware', false)).toBe('example');
    expect(intentOfQuery('where are retries with backoff done', false)).toBe('code');
    // Tests as where the thing is used: a helper for tests is code.
    expect(intentOfQuery('a fake client that returns canned responses in tests', false)).toBe('code');
    expect(intentOfQuery("return canned responses from a queue so unit tests don't hit the network", false)).toBe('code');
    expect(intentOfQuery('how does injection pick the constructor with the most parameters of the tested object', false)).toBe('code');
    expect(intentOfQuery('stub the dependencies of the class under test', false)).toBe('code');
    expect(intentOfQuery('where is the retry policy tested', false)).toBe('test');
    expect(intentOfQuery('an in-memory file system to use in tests', false)).toBe('code');
    expect(intentOfQuery('gin.Context.SetParam shortcut for e2e tests', false)).toBe('code');
    expect(intentOfQuery('unit tests for the parser in tests', false)).toBe('test');
    expect(intentOfQuery('where is the router tested', false)).toBe('test');
    // A configuration word before a code noun names code; before anything else, configuration.
    expect(intentOfQuery('use official Config type for options', false)).toBe('code');
    expect(intentOfQuery('the settings method and the options it aliases', false)).toBe('code');
    expect(intentOfQuery('where the configuration object is validated', false)).toBe('code');
    expect(intentOfQuery('build configuration', false)).toBe('config');
    expect(intentOfQuery('linter settings', false)).toBe('config');
    expect(intentOfQuery('the config type and the config file', false)).toBe('config');
    // Soft test words: tests, unless the codebase names code with them (search.ts asks the index).
    expect(softTestWords('simulating network delay for a mock server')).toEqual(['mock']);
    expect(softTestWords('how plugin specs from several places are merged')).toEqual(['specs']);
    expect(softTestWords('unit tests that mock the clock')).toEqual([]);
    expect(softTestWords('where the router is handled')).toEqual([]);
    expect(intentOfQuery('simulating network delay for a mock server', false)).toBe('test');
    expect(intentOfQuery('simulating network delay for a mock server', false, ['mock'])).toBe('code');
    expect(intentOfQuery('an example of plugin specs', false, ['specs'])).toBe('example');
    // Test words a test runner's code is about: asked about (TEST_WORD), not when tests of something are asked for.
    expect(codebaseTestWords('split test files across several CI machines')).toEqual([TEST_WORD]);
    expect(codebaseTestWords('report handles a test file leaves open, and its mocks')).toEqual([TEST_WORD, 'mocks']);
    expect(codebaseTestWords('simulating network delay for a mock server')).toEqual(['mock']);
    expect(codebaseTestWords('tests for the random sequencer')).toEqual([]);
    expect(codebaseTestWords('unit tests of the parser')).toEqual([]);
    expect(codebaseTestWords('integration tests that check test retries')).toEqual([]);
    expect(codebaseTestWords('run the tests that failed last time first')).toEqual([TEST_WORD]);
    expect(codebaseTestWords('test helpers that build a server')).toEqual([]);
    expect(codebaseTestWords('where the router is handled')).toEqual([]);
    // "spec file(s)" alone: SPEC_WORD (code about specs or about tests handles them); with other test words, TEST_WORD.
    expect(codebaseTestWords('suggest a similarly named spec file when the path does not exist')).toEqual([SPEC_WORD]);
    expect(codebaseTestWords('loading spec files, then running the example groups')).toEqual([SPEC_WORD]);
    expect(codebaseTestWords('loading spec files and skipped tests')).toEqual([TEST_WORD]);
    expect(codebaseTestWords('the smallest subset of specs that reproduces a failure')).toEqual(['specs']);
    // Specs asked for by what they test, as tests are: tests wherever.
    expect(codebaseTestWords('specs for the memoized helpers let and subject')).toEqual([]);
    expect(codebaseTestWords('spec files for the parser')).toEqual([]);
    expect(intentOfQuery('suggest a similarly named spec file', false)).toBe('test');
    expect(intentOfQuery('suggest a similarly named spec file', false, [SPEC_WORD])).toBe('code');
    expect(codeNamedByPaths(['lib/rspec/core/runner.rb'], [SPEC_WORD], () => 'code')).toBe(false);
    expect(intentOfQuery('split test files across several CI machines', false)).toBe('test');
    expect(intentOfQuery('split test files across several CI machines', false, [TEST_WORD])).toBe('code');
    expect(intentOfQuery('skipped tests and their hooks, with an example', false, [TEST_WORD])).toBe('example');
    expect(codeNamedByPaths(['android-test-app/src/main/Main.kt'], [TEST_WORD], () => 'code')).toBe(false);
    // RSpec's examples are its tests: asked about as such, not examples of something.
    expect(codebaseExampleWords('report the slowest examples and example groups')).toEqual([EXAMPLE_WORD]);
    expect(codebaseExampleWords('an example of configuring the client')).toEqual([]);
    expect(codebaseExampleWords('usage example for the router')).toEqual([]);
    expect(codebaseExampleWords('a demo app')).toEqual([]);
    expect(intentOfQuery('pending examples that unexpectedly pass', false)).toBe('example');
    expect(intentOfQuery('pending examples that unexpectedly pass', false, [EXAMPLE_WORD])).toBe('code');
    // Configuration asked for itself; in a question about what code does with it, code.
    expect(intentOfQuery('how do I configure the logger', false)).toBe('config');
    expect(intentOfQuery('configuring webpack for production', false)).toBe('config');
    expect(intentOfQuery('the build script', false)).toBe('config');
    expect(intentOfQuery('dependencies', false)).toBe('config');
    expect(intentOfQuery('eslint config', false)).toBe('config');
    expect(intentOfQuery('reading proxy settings from environment variables', false)).toBe('code');
    expect(intentOfQuery('redirecting http requests to https automatically for the configured hosts', false)).toBe('code');
    expect(intentOfQuery('resolving dependencies between rules before a build', false)).toBe('code');
    // A configuration file the code acts on (the object or subject of a verb, before a code noun)
    // asks for that code; the configuration files themselves still ask for configuration.
    expect(intentOfQuery('watching the config file for changes and reloading it', false)).toBe('code');
    expect(intentOfQuery('loads settings files from the search paths', false)).toBe('code');
    expect(intentOfQuery('handling a missing config file', false)).toBe('code');
    expect(intentOfQuery('where is the config file read', false)).toBe('code');
    expect(intentOfQuery('reloading when the config file changes', false)).toBe('code');
    expect(intentOfQuery('supported config file formats and their encoders', false)).toBe('code');
    expect(intentOfQuery('the config file parser', false)).toBe('code');
    // A verb's base form and up to four words before the file; a file things come from or go into.
    expect(intentOfQuery('search several directories for a config file with any supported extension', false)).toBe('code');
    expect(intentOfQuery('look for the config file by walking up from the current directory', false)).toBe('code');
    expect(intentOfQuery('upgrade an old phpunit.xml configuration file to the current schema', false)).toBe('code');
    expect(intentOfQuery('how settings are combined from the config file and environment variables', false)).toBe('code');
    expect(intentOfQuery('which settings file configures the port', false)).toBe('config');
    expect(intentOfQuery('add a new rule to the config file', false)).toBe('config');
    expect(intentOfQuery('where are the config files', false)).toBe('config');
    expect(intentOfQuery('design proposal for adding structured logging support', false)).toBe('docs');
    expect(intentOfQuery('error responses formatted as RFC 9457 problem details JSON', false)).toBe('code');
    // "test" as the verb check.
    expect(intentOfQuery('reclaim connections and ping to test if a connection is still alive', false)).toBe('code');
    expect(intentOfQuery('Context.Get() does not need to test whether Keys is nil', false)).toBe('code');
    expect(intentOfQuery('tests that check whether a connection is still alive', false)).toBe('test');
    expect(intentOfQuery('config files for the linter', false)).toBe('config');
    expect(intentOfQuery('existing config files', false)).toBe('config');
    expect(intentOfQuery('config file', false)).toBe('config');
    // Helpers for tests, which a library ships as code and an application keeps among its tests: no kind leads.
    expect(intentOfQuery('testing helpers that assert a validator has an error for a property', false)).toBe('any');
    expect(intentOfQuery('test utilities for building fake requests', false)).toBe('any');
    expect(intentOfQuery('helpers for creating a test context', false)).toBe('any');
    expect(intentOfQuery('documentation of the test helpers', false)).toBe('docs');
    expect(intentOfQuery('tests for the test helpers', false)).toBe('test');
    // `spec` alone is a specification ("the RESP3 spec", "callback spec"); specs and spec files are tests.
    expect(intentOfQuery('Accept -nan per the RESP3 spec recommendation', false)).toBe('code');
    expect(intentOfQuery('Fix Plug.Parsers.parse/5 callback spec', false)).toBe('code');
    expect(intentOfQuery('the specs for the router', false)).toBe('test');
    expect(intentOfQuery('reloading when a spec file changes', false)).toBe('test');
  });
  it('keeps a one-identifier query a name lookup', () => {
    expect(intentOfQuery('TestRouter', true)).toBe('code');
    expect(intentOfQuery('config', true)).toBe('code');
  });
  it('parses kinds and agent intents, refusing unknown names', () => {
    expect(parseFileKind('vendored')).toBe('generated');
    expect(parseFileKind('Tests')).toBe('test');
    expect(parseFileKind('nope')).toBeNull();
    expect(parseIntent('debug')).toBe('code');
    expect(parseIntent('configure')).toBe('config');
    expect(parseIntent('document')).toBe('docs');
    expect(parseIntent('x')).toBeNull();
  });
  it('pieceKind: a piece of a Rust inline test module is a test; other pieces keep the file\'s kind', () => {
    expect(pieceKind('code', 'rust', 'tests')).toBe('test');
    expect(pieceKind('code', 'rust', 'test')).toBe('test');
    expect(pieceKind('code', 'rust', 'wrap_tests')).toBe('test');
    expect(pieceKind('code', 'rust', 'Command')).toBe('code');
    expect(pieceKind('code', 'rust', 'contests')).toBe('code');
    expect(pieceKind('code', 'rust', null)).toBe('code');
    expect(pieceKind('code', 'python', 'tests')).toBe('code');
    expect(pieceKind('docs', 'rust', 'tests')).toBe('docs');
  });
});

describe('queryIntent', () => {
  const q = 'loading spec files, and running all example groups with the reporter';
  it("judges a codebase's test words, then the example words they leave (RSpec's code holds both)", async () => {
    const asked: string[][] = [];
    const rspec = async (words: string[]) => (asked.push(words), true);
    expect(await queryIntent(q, false, rspec)).toBe('code');
    expect(asked).toEqual([[SPEC_WORD], [EXAMPLE_WORD]]);
    // Code that holds the spec words only: its example groups are examples.
    expect(await queryIntent(q, false, async (w) => w.includes(SPEC_WORD))).toBe('example');
    // Neither: spec files are tests.
    expect(await queryIntent(q, false, async () => false)).toBe('test');
    // One round when the words leave no other intent to judge.
    const once: string[][] = [];
    expect(await queryIntent('split test files across several CI machines', false, async (w) => (once.push(w), true))).toBe('code');
    expect(once).toEqual([[TEST_WORD]]);
  });
});
