import { describe, expect, it } from 'vitest';
import { processQuery } from './query.ts';
import { definitionRank, docCommentTargets, matchDefinition, symbolTargets, type SymbolRow } from './symbols.ts';
import { DEFINITION_TIERS, DOCS_HEADING_TIER, LOOKUP_OWNER_TIER, QUALIFIED_TIERS } from '../config.ts';

const row = (symbol: string, parent: string | null, path: string, chunkType = 'struct'): SymbolRow => ({ symbol, parent, path, chunkType, startLine: 1, endLine: 1 });
const tier = (q: string, r: SymbolRow) => matchDefinition(symbolTargets(processQuery(q)), r)?.tier ?? 0;

describe('qualified names', () => {
  it('rank the definition under the named parent first, then one whose path holds a qualifier, then any other', () => {
    const q = 'crate::parser::Parser';
    const under = tier(q, row('Parser', 'parser', 'src/x.rs'));
    const inPath = tier(q, row('Parser', null, 'clap_builder/src/parser/parser.rs'));
    const elsewhere = tier(q, row('Parser', null, 'src/other.rs'));
    expect(under).toBe(DEFINITION_TIERS.exactCaseHead);
    expect(inPath).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.inPath);
    expect(elsewhere).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.elsewhere);
    expect(tier(q, row('Lexer', null, 'src/parser/lexer.rs'))).toBe(0);
  });
  it('rank a docs section titled with the name below the code that defines it, and above no definition', () => {
    const heading = tier('Value.Diff', { ...row('Value.Diff', null, 'design/website/docs/value/diff.md', 'text'), language: 'markdown' });
    const code = tier('Value.Diff', { ...row('Diff', null, 'src/value/delta/diff.ts', 'function'), language: 'typescript' });
    expect(heading).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * DOCS_HEADING_TIER);
    expect(code).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.inPath);
    expect(heading).toBeLessThan(code);
    expect(heading).toBeGreaterThan(0);
  });
  it('take a parent that is itself qualified (Elixir, Java) by its last part', () => {
    expect(tier('Plug.Conn.send_resp', row('send_resp', 'Plug.Conn', 'lib/plug/conn.ex', 'function'))).toBe(DEFINITION_TIERS.exactCaseHead);
    expect(tier('Conn.send_resp', row('send_resp', 'Plug.Conn', 'lib/plug/conn.ex', 'function'))).toBe(DEFINITION_TIERS.exactCaseHead);
  });
  it('a qualifier that names a folder with `_` in it (a Rust crate) is in the path', () => {
    expect(tier('clap_lex::ParsedArg', row('ParsedArg', null, 'clap_lex/src/lib.rs'))).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.inPath);
    expect(tier('clap_lex::ParsedArg', row('ParsedArg', null, 'clap_builder/src/lib.rs'))).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.elsewhere);
  });
  it('a match says how well its place fits the qualifier (scope)', () => {
    const targets = symbolTargets(processQuery('where MissingMemberHandling.Error makes deserializing fail'));
    expect(matchDefinition(targets, row('Error', 'MissingMemberHandling', 'Src/MissingMemberHandling.cs', 'enum'))?.scope).toBe(1);
    expect(matchDefinition(targets, row('Error', 'TraceLevel', 'Src/TraceLevel.cs', 'enum'))?.scope).toBe(QUALIFIED_TIERS.elsewhere);
  });
  it('a namespace-shaped qualifier (`z.array`, `clap::arg!`) ranks what the namespace defines at its top level over a member of a type', () => {
    const fn = tier('z.array', row('array', null, 'packages/zod/src/v4/classic/schemas.ts', 'function'));
    const method = tier('z.array', row('array', '_zodTypeMethods', 'packages/zod/src/v4/classic/schemas.ts', 'method'));
    expect(fn).toBeCloseTo(QUALIFIED_TIERS.elsewhere);
    expect(method).toBeCloseTo(QUALIFIED_TIERS.elsewhere * QUALIFIED_TIERS.otherMember);
    // In the qualifier's path (`clap_builder`), the macro still leads the method.
    expect(tier('clap::arg!', row('arg', null, 'clap_builder/src/macros.rs', 'macro'))).toBeGreaterThan(tier('clap::arg!', row('arg', 'ArgGroup', 'clap_builder/src/builder/arg_group.rs', 'method')));
    // A type-shaped qualifier, or the instance (`self.render`), names a member: no change.
    expect(tier('Widget.render', row('render', 'Canvas', 'src/canvas.py', 'method'))).toBeCloseTo(QUALIFIED_TIERS.elsewhere);
    expect(tier('self.render', row('render', 'Canvas', 'src/canvas.py', 'method'))).toBeCloseTo(QUALIFIED_TIERS.elsewhere);
  });
  it("a qualifier of a module's initials (`O.`, `RTE.`, Haskell's `M.`) is in the file of those initials", () => {
    expect(tier('O.fromNullable', row('fromNullable', null, 'src/Option.ts', 'function'))).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.inPath);
    expect(tier('O.fromNullable', row('fromNullable', null, 'src/TaskOption.ts', 'function'))).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.elsewhere);
    expect(tier('RTE.asks', row('asks', null, 'src/ReaderTaskEither.ts', 'function'))).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.inPath);
    expect(tier('RTE.asks', row('asks', null, 'src/StateReaderTaskEither.ts', 'function'))).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.elsewhere);
    expect(tier('M.insert', row('insert', null, 'src/Data/Map.hs', 'function'))).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.inPath);
    // Lower case is a name of its own, not initials (`o.x` in `src/Option.ts`).
    expect(tier('o.fromNullable', row('fromNullable', null, 'src/Option.ts', 'function'))).toBeCloseTo(DEFINITION_TIERS.exactCaseHead * QUALIFIED_TIERS.elsewhere);
  });
  it('a Go package-qualified function finds the function in that package folder', () => {
    expect(tier('http.NewRequest', row('NewRequest', null, 'src/net/http/request.go', 'function'))).toBeCloseTo(QUALIFIED_TIERS.inPath);
  });
  it('in prose, a member written with its type (`JsonSerializer.Binder`) finds the head of the type as precisely as written', () => {
    const q = 'Refactor JsonSerializer.Binder to not create wrapper when unneeded';
    expect(tier(q, row('JsonSerializer', 'Newtonsoft.Json', 'Src/Newtonsoft.Json/JsonSerializer.cs', 'class'))).toBe(DEFINITION_TIERS.exactCaseHead);
    // A later piece of the type, another case, or a variable-shaped qualifier (`self.headers`) is no owner.
    expect(tier(q, { ...row('JsonSerializer', 'Newtonsoft.Json', 'Src/Newtonsoft.Json/JsonSerializer.cs', 'class'), context: 'public class JsonSerializer' })).toBe(0);
    expect(tier('Refactor jsonSerializer.Binder', row('JsonSerializer', null, 'a.cs', 'class'))).toBe(0);
    expect(tier('Move self.headers back', row('self', null, 'a.py', 'class'))).toBe(0);
    const ecto = 'Make the option in Ecto.Schema.has_many/3 not take precedence';
    expect(tier(ecto, row('Ecto.Schema', null, 'lib/ecto/schema.ex', 'module'))).toBe(DEFINITION_TIERS.exactCaseHead);
    expect(tier(ecto, row('Schema', 'Ecto', 'lib/ecto/schema.ex', 'module'))).toBe(DEFINITION_TIERS.exactCaseHead);
    expect(tier(ecto, row('Schema', null, 'lib/ecto/adapter/schema.ex', 'module'))).toBe(0);
    // A lookup's answer is the member's own definition first; its type's head is listed lower
    // (the member may be no piece of its own), above the name under another type.
    expect(tier('JsonSerializer.Binder', row('JsonSerializer', null, 'a.cs', 'class'))).toBe(DEFINITION_TIERS.exactCaseHead * LOOKUP_OWNER_TIER);
    expect(tier('JsonSerializer.Binder', row('Binder', 'JsonSerializer', 'a.cs', 'method'))).toBe(DEFINITION_TIERS.exactCaseHead);
    expect(tier('JsonSerializer.Binder', row('Binder', 'Other', 'b.cs', 'method'))).toBeLessThan(DEFINITION_TIERS.exactCaseHead * LOOKUP_OWNER_TIER);
    // A module is an owner only after `.` and only as a constant it defines; `::` joins namespaces.
    expect(tier('Devise::Mailer', { ...row('', null, 'lib/devise.rb', 'module'), symbol: null, defines: ['Devise'] })).toBe(0);
    expect(tier('CaptureUpdateAction.IMMEDIATELY', { ...row('', null, 'store.ts', 'module'), symbol: null, defines: ['CaptureUpdateAction'] })).toBe(DEFINITION_TIERS.exactCaseHead * LOOKUP_OWNER_TIER);
  });
  it('a question about where a name is defined looks the name up', () => {
    expect(tier('where is the Router class defined', row('Router', null, 'lib/router.rb', 'class'))).toBe(DEFINITION_TIERS.exactCaseHead);
  });
});

describe('definition order within a tier', () => {
  it('puts a definition in an implementation file before one in a test or a generated copy, whatever their sizes', () => {
    const m = (path: string, lines: number) => matchDefinition(symbolTargets(processQuery('parse_error')), { ...row('parse_error', null, path, 'class'), endLine: lines })!;
    const impl = definitionRank(m('include/nlohmann/detail/exceptions.hpp', 5));
    expect(impl).toBeGreaterThan(definitionRank(m('single_include/nlohmann/json.hpp', 40)));
    expect(impl).toBeGreaterThan(definitionRank(m('tests/src/unit-errors.cpp', 40)));
    // Still within the tier: below the next tier up, above the next one down.
    expect(definitionRank(m('include/x.hpp', 40)) - DEFINITION_TIERS.exactCaseHead).toBeLessThan(0.05);
  });
});

describe('docCommentTargets (a question that reads as a doc comment)', () => {
  it('the name it opens with is its own function; a later one is where the function lives, not the answer', () => {
    const names = (q: string) => docCommentTargets(processQuery(q)).map((t) => t.symbol);
    expect(names('NewReader returns a new BufferedReader whose buffer has the default size.')).toEqual(['NewReader']);
    expect(names('Extracts the value from the `MaybeUninit<T>` container.')).toEqual([]);
    expect(names('http.NewRequest wraps NewRequestWithContext.')).toEqual(['http.NewRequest', 'NewRequest']);
  });
});
