/**
 * LanguageSpec.read hooks: how the chunker reads definitions that its node-type tables cannot
 * name — grammars without `name`/`body` fields (Kotlin, Dart, Zig), names that carry their
 * parent (Lua `function M:f`, Kotlin `fun Buffer.f()`), definitions that are calls (Elixir
 * `def`), containers of members that define nothing themselves (Rust `impl`, Swift and Dart
 * `extension`, Haskell `instance`, Elixir `defimpl`), and the type a container is for.
 *
 * Pure reads of one node and its children (no walks: each hook looks at most a few levels
 * down); every hook answers null for a node that is no definition.
 */
import type { ChunkType } from '../types.ts';
import type { SpecNode, SpecRead } from './spec-node.ts';

const MAX_NAME_CHARS = 200;

/** The first named child of `node` of one of `types`. */
export function childOfType(node: SpecNode, types: ReadonlySet<string> | string): SpecNode | null {
  for (let i = 0; i < node.namedChildCount; i++) {
    const c = node.namedChild(i);
    if (c && (typeof types === 'string' ? c.type === types : types.has(c.type))) return c;
  }
  return null;
}

/** Does `node` have an anonymous child token `token` (a keyword such as `interface`)? */
export function hasToken(node: SpecNode, token: string): boolean {
  for (let i = 0; i < node.childCount; i++) {
    const c = node.child(i);
    if (c && !c.isNamed && c.type === token) return true;
  }
  return false;
}

const textOf = (n: SpecNode | null): string | null => (n ? n.text.slice(0, MAX_NAME_CHARS) : null);

const TYPE_WORDS = new Set(['mut', 'dyn', 'const', 'impl', 'in', 'out', 'inout', 'some', 'any', 'var', 'val']);

/**
 * The type a container is for, from the text of a type: generic arguments dropped, the last
 * path segment kept (`Ring<T>` → `Ring`, `&'a mut fmt::Formatter` → `Formatter`, `List<T>?`
 * → `List`); null when no name is left (`[T]`, a tuple of nothing).
 */
export function typeName(text: string): string | null {
  let s = text.slice(0, 4 * MAX_NAME_CHARS);
  for (let prev = ''; prev !== s;) {
    prev = s;
    s = s.replace(/<[^<>]*>/g, ' ');
  }
  const words = s.match(/[\p{L}_][\p{L}\p{N}_]*/gu)?.filter((w) => !TYPE_WORDS.has(w));
  return words?.length ? words[words.length - 1]! : null;
}

// ---- Rust ----------------------------------------------------------------------------

/** `impl Type {…}` and `impl Trait for Type {…}`: members with parent = Type. */
export function readRust(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'impl_item') return undefined;
  const type = node.childForFieldName('type');
  return { members: node.childForFieldName('body'), name: type ? typeName(type.text) : null };
}

// ---- Kotlin --------------------------------------------------------------------------

const KOTLIN_RECEIVERS = new Set(['user_type', 'nullable_type', 'parenthesized_type']);

export function readKotlin(node: SpecNode): SpecRead | null | undefined {
  switch (node.type) {
    case 'class_declaration': {
      const enumBody = childOfType(node, 'enum_class_body');
      const kind: ChunkType = enumBody ? 'enum' : hasToken(node, 'interface') ? 'interface' : 'class';
      return { kind, name: textOf(childOfType(node, 'type_identifier')), body: enumBody ?? childOfType(node, 'class_body') };
    }
    case 'object_declaration':
      return { kind: 'class', name: textOf(childOfType(node, 'type_identifier')), body: childOfType(node, 'class_body') };
    case 'companion_object':
      // `Buffer.of()`: a companion's members are called through the class, so they are its members.
      return { members: childOfType(node, 'class_body'), name: null };
    case 'function_declaration': {
      // `fun <T> List<T>.second(): T`: the receiver type is a child before the name.
      let receiver: SpecNode | null = null;
      for (let i = 0; i < node.namedChildCount; i++) {
        const c = node.namedChild(i);
        if (!c) continue;
        if (c.type === 'simple_identifier') {
          const qualifier = receiver ? typeName(receiver.text) : null;
          return { kind: qualifier ? 'method' : 'function', name: textOf(c), qualifier, body: childOfType(node, 'function_body') };
        }
        if (KOTLIN_RECEIVERS.has(c.type)) receiver = c;
      }
      return null;
    }
    case 'type_alias':
      return { kind: 'type', name: textOf(childOfType(node, 'type_identifier')) };
    default:
      return undefined;
  }
}

// ---- Swift ---------------------------------------------------------------------------

export function readSwift(node: SpecNode): SpecRead | null | undefined {
  if (node.type === 'class_declaration') {
    const declared = node.childForFieldName('declaration_kind')?.type;
    const name = node.childForFieldName('name');
    const body = node.childForFieldName('body');
    // `extension Session: Sendable {…}` adds members to Session and defines nothing.
    if (declared === 'extension') return { members: body, name: name ? typeName(name.text) : null };
    const kind: ChunkType = declared === 'struct' ? 'struct' : declared === 'enum' ? 'enum' : 'class';
    return { kind, name: textOf(name), body };
  }
  if (node.type === 'function_declaration' && !node.childForFieldName('name')) {
    // `init(…)` has no name field.
    return hasToken(node, 'init') ? { kind: 'function', name: 'init' } : null;
  }
  return undefined;
}

// ---- Scala ---------------------------------------------------------------------------

/** Scala 3 `extension (s: String) def shout = …` / `extension (s: String) { … }`: members of String. */
export function readScala(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'extension_definition') return undefined;
  const param = node.childForFieldName('parameters')?.namedChild(0);
  const type = param?.childForFieldName('type');
  const name = type ? typeName(type.text) : null;
  const body = node.childForFieldName('body');
  if (body && (body.type === 'function_definition' || body.type === 'function_declaration')) {
    return { kind: 'method', name: textOf(body.childForFieldName('name')), qualifier: name, body: body.childForFieldName('body') };
  }
  return { members: body, name };
}

// ---- Dart ----------------------------------------------------------------------------

const DART_SIGNATURES = new Set([
  'function_signature', 'getter_signature', 'setter_signature', 'constructor_signature', 'factory_constructor_signature',
  'redirecting_factory_constructor_signature', 'constant_constructor_signature', 'operator_signature',
]);

/** A Dart signature node's name: its `name` field(s) (`Client.named`), an operator's symbol. */
function dartSignatureName(sig: SpecNode): string | null {
  if (sig.type === 'operator_signature') {
    const op = sig.childForFieldName('operator') ?? childOfType(sig, new Set(['binary_operator', 'tilde_operator']));
    // No space: merged chunks keep their names space-separated.
    return op ? `operator${op.text}` : 'operator';
  }
  const names: string[] = [];
  for (let i = 0; i < sig.namedChildCount && names.length < 3; i++) {
    const c = sig.namedChild(i);
    if (c?.type === 'identifier') names.push(c.text);
    else if (names.length && c?.type !== 'identifier') break;
  }
  const named = sig.childForFieldName('name');
  if (sig.type.includes('constructor') && names.length) return names.join('.').slice(0, MAX_NAME_CHARS);
  return textOf(named) ?? names[0] ?? null;
}

export function readDart(node: SpecNode): SpecRead | null | undefined {
  switch (node.type) {
    case 'mixin_declaration':
      return { kind: 'class', name: textOf(childOfType(node, 'identifier')), body: childOfType(node, 'class_body') };
    case 'extension_declaration': {
      const on = node.childForFieldName('class');
      return { members: node.childForFieldName('body'), name: on ? typeName(on.text) : textOf(node.childForFieldName('name')) };
    }
    case 'type_alias':
      return { kind: 'type', name: textOf(childOfType(node, new Set(['type_identifier', 'identifier']))) };
    case 'method_signature':
    case 'declaration': {
      // A member: its signature's name; a `declaration` that is a field is no definition.
      const sig = childOfType(node, DART_SIGNATURES);
      return sig ? { kind: 'method', name: dartSignatureName(sig) } : null;
    }
    case 'function_signature':
      return { kind: 'function', name: dartSignatureName(node) };
    default:
      return undefined;
  }
}

// ---- JavaScript and TypeScript ---------------------------------------------------------

/** Values that make an assignment to a member a definition: a function or a class. */
const JS_ASSIGNED: Readonly<Record<string, ChunkType>> = {
  function_expression: 'function', function: 'function', arrow_function: 'function', generator_function: 'function',
  class: 'class',
};

/**
 * A function or class assigned to a member (`app.use = function use(fn) {…}`,
 * `AxiosError.from = (error, code) => {…}`, `Router.prototype.route = function…`,
 * `exports.compile = function…`): the definition of that member's name, as a CommonJS-era
 * library writes its API. Its parent is the object (`app`, `AxiosError`; a prototype's owner:
 * `Router`), none for `exports` / `module.exports` / `this`. Other expression statements are no
 * definition (null); other nodes are read by the tables (undefined).
 */
export function readJs(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'expression_statement') return undefined;
  const a = node.namedChild(0);
  if (a?.type !== 'assignment_expression') return null;
  const left = a.childForFieldName('left');
  const right = a.childForFieldName('right');
  const kind = right ? JS_ASSIGNED[right.type] : undefined;
  if (left?.type !== 'member_expression' || !right || !kind) return null;
  const name = textOf(left.childForFieldName('property'));
  let owner = textOf(left.childForFieldName('object'));
  if (!name || !owner) return null;
  owner = owner.replace(/\.prototype$/, '');
  const qualifier = /^(?:module\.)?exports$|^module$|^this$|^window$|^globalThis$/.test(owner) ? null : owner;
  return { kind, name, qualifier, body: right.childForFieldName('body') };
}

// ---- Lua -----------------------------------------------------------------------------

/** A Lua function name: `f`, `M.f` (parent M), `M:f` (a method of M), `a.b.c` (parent a.b). */
function luaName(name: SpecNode | null): { name: string | null; qualifier: string | null; method: boolean } {
  if (name?.type === 'dot_index_expression' || name?.type === 'method_index_expression') {
    const table = name.childForFieldName('table');
    const field = name.childForFieldName(name.type === 'dot_index_expression' ? 'field' : 'method');
    return { name: textOf(field), qualifier: textOf(table), method: name.type === 'method_index_expression' };
  }
  return { name: name?.type === 'identifier' ? textOf(name) : null, qualifier: null, method: false };
}

export function readLua(node: SpecNode): SpecRead | null | undefined {
  if (node.type === 'function_declaration') {
    const { name, qualifier, method } = luaName(node.childForFieldName('name'));
    return { kind: method ? 'method' : 'function', name, qualifier, body: node.childForFieldName('body') };
  }
  // `local f = function(…) … end`, `M.handler = function(…) … end`: one name, one function.
  const assignment = node.type === 'variable_declaration' ? childOfType(node, 'assignment_statement') : node;
  if (!assignment || assignment.type !== 'assignment_statement') return null;
  const vars = childOfType(assignment, 'variable_list');
  const values = childOfType(assignment, 'expression_list');
  if (!vars || !values || vars.namedChildCount !== 1 || values.namedChildCount !== 1) return null;
  const fn = values.namedChild(0);
  if (fn?.type !== 'function_definition') return null;
  const { name, qualifier } = luaName(vars.namedChild(0));
  return name ? { kind: 'function', name, qualifier, body: fn.childForFieldName('body') } : null;
}

// ---- Elixir --------------------------------------------------------------------------

const ELIXIR_FUNCTIONS = new Set(['def', 'defp', 'defmacro', 'defmacrop', 'defguard', 'defguardp', 'defdelegate', 'defn', 'defnp']);
const ELIXIR_ATTRIBUTES = new Set(['doc', 'spec', 'impl', 'deprecated', 'since', 'dialyzer', 'decorate']);

/** The name of a `def` head: `f(a)`, `f(a) when …`, `f` (no arguments). */
function elixirHeadName(head: SpecNode | null): string | null {
  for (let i = 0; head && i < 3; i++) {
    if (head.type === 'identifier') return textOf(head);
    if (head.type === 'call') {
      const target = head.childForFieldName('target');
      return target?.type === 'identifier' ? textOf(target) : null;
    }
    if (head.type !== 'binary_operator') return null;
    head = head.childForFieldName('left'); // `f(x) when is_integer(x)`
  }
  return null;
}

/** `defmodule`, `defprotocol`, `defimpl … for:`, `def`/`defp`/`defmacro`/… calls. */
export function readElixir(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'call') return undefined;
  const target = node.childForFieldName('target');
  if (target?.type !== 'identifier') return null;
  const word = target.text;
  if (!word.startsWith('def')) return null;
  const args = childOfType(node, 'arguments');
  const body = childOfType(node, 'do_block');
  const first = args?.namedChild(0) ?? null;
  if (ELIXIR_FUNCTIONS.has(word)) return { kind: 'function', name: elixirHeadName(first), body };
  if (word === 'defmodule' || word === 'defprotocol') {
    return { kind: word === 'defmodule' ? 'class' : 'interface', name: first?.type === 'alias' ? textOf(first) : null, body };
  }
  if (word === 'defimpl') {
    // `defimpl Inspect, for: Plug.Conn do … end`: functions of Plug.Conn; without `for:`, of the enclosing module.
    const keywords = args ? childOfType(args, 'keywords') : null;
    for (let i = 0; keywords && i < keywords.namedChildCount; i++) {
      const pair = keywords.namedChild(i);
      if (pair?.childForFieldName('key')?.text.startsWith('for:')) return { members: body, name: textOf(pair.childForFieldName('value')) };
    }
    return { members: body, name: null };
  }
  return null;
}

/** The attribute call of `@doc …` / `@spec …` (an `@` unary operator over a call), or null. */
function elixirAttribute(node: SpecNode): { name: string; call: SpecNode } | null {
  if (node.type !== 'unary_operator') return null;
  const call = node.childForFieldName('operand');
  const target = call?.type === 'call' ? call.childForFieldName('target') : null;
  return call && target?.type === 'identifier' && node.text.startsWith('@') ? { name: target.text, call } : null;
}

export function elixirIsAttribute(node: SpecNode): boolean {
  const a = elixirAttribute(node);
  return !!a && ELIXIR_ATTRIBUTES.has(a.name);
}

function attributeString(node: SpecNode, name: string): SpecNode | null {
  const a = elixirAttribute(node);
  if (!a || a.name !== name) return null;
  const value = childOfType(a.call, 'arguments')?.namedChild(0);
  return value?.type === 'string' ? value : null;
}

export const elixirAttributeDoc = (node: SpecNode): SpecNode | null => attributeString(node, 'doc');

/** A module's `@moduledoc """…"""` (the first statement of its body, or near it). */
export function elixirBodyDoc(body: SpecNode): SpecNode | null {
  for (let i = 0; i < Math.min(body.namedChildCount, 4); i++) {
    const c = body.namedChild(i);
    const doc = c ? attributeString(c, 'moduledoc') : null;
    if (doc) return doc;
  }
  return null;
}

// ---- Haskell -------------------------------------------------------------------------

/**
 * A binding's name: `f`, `(<+>)` → `<+>`, the operator of an infix equation `a <+> b = …`.
 * A constructor operator (`:<|>`) is no binding's name — `getA :<|> getB = client api` binds
 * getA and getB by a pattern — but is the name of an infix type (`constructors`: `data a :<|> b`).
 */
function haskellName(node: SpecNode, constructors = false): string | null {
  const name = node.childForFieldName('name');
  if (name) return textOf(name)?.replace(/^\((.*)\)$/s, '$1').trim() ?? null;
  const op = childOfType(node, 'infix')?.childForFieldName('operator') ?? null;
  return op && (constructors || op.type !== 'constructor_operator') ? textOf(op) : null;
}

/**
 * A pattern synonym's name: the constructor its left side (or signature) starts with, found
 * down the leftmost children (`pattern T_Assignment id mode … = OuterToken …` nests one `apply`
 * per argument), or the constructor operator of an infix one (`pattern x :< xs = …`).
 */
function firstConstructor(node: SpecNode): string | null {
  let n: SpecNode | null = node.namedChild(0);
  for (let depth = 0; n && depth < 32; depth++) {
    if (n.type === 'constructor' || n.type === 'constructor_operator') return textOf(n);
    const op = childOfType(n, 'constructor_operator');
    if (op) return textOf(op);
    n = n.namedChild(0);
  }
  return null;
}

/** The type constructor a type pattern starts with: `Maybe` of `(Maybe a)`, `Text` of `T.Text`; null for a list, a variable. */
function haskellTypeHead(node: SpecNode | null): string | null {
  for (let i = 0; node && i < 6; i++) {
    switch (node.type) {
      case 'name':
        return textOf(node);
      case 'qualified':
        return textOf(node.childForFieldName('id'));
      case 'apply':
        node = node.childForFieldName('constructor') ?? node.namedChild(0);
        break;
      case 'type_patterns':
      case 'parens':
        node = node.namedChild(0);
        break;
      default:
        return null;
    }
  }
  return null;
}

export function readHaskell(node: SpecNode): SpecRead | null | undefined {
  switch (node.type) {
    case 'function':
    case 'bind':
    case 'signature':
      return { kind: 'function', name: haskellName(node) };
    case 'pattern_synonym':
      // `pattern T_SimpleCommand id vars cmds = …`, `pattern Foo :: …`, `pattern P{a, b} = …`:
      // the synonym's name is its first constructor (shellcheck's AST is made of them).
      return { kind: 'function', name: firstConstructor(node) };
    case 'class':
      return { kind: 'interface', name: haskellName(node), body: node.childForFieldName('declarations') };
    case 'data_type':
    case 'newtype':
    case 'type_synomym':
    case 'type_family':
    case 'data_family': {
      // An infix type has no name field: `data a :<|> b = a :<|> b` defines `:<|>`.
      if (node.childForFieldName('name')) return undefined;
      const op = haskellName(node, true);
      return op ? { kind: 'type', name: op } : undefined;
    }
    case 'instance': {
      // `instance Functor Parser where …`: methods of Parser (the first type the instance is for).
      const body = node.childForFieldName('declarations');
      if (!body) return null;
      return { members: body, name: haskellTypeHead(node.childForFieldName('patterns')) };
    }
    default:
      return undefined;
  }
}

// ---- Zig -----------------------------------------------------------------------------

const ZIG_CONTAINERS: Readonly<Record<string, ChunkType>> = {
  struct_declaration: 'struct', union_declaration: 'struct', enum_declaration: 'enum', opaque_declaration: 'type', error_set_declaration: 'enum',
};

/** `const Point = struct {…};` (a container bound to a name) is Point's definition; other `const`s are not definitions. */
export function readZig(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'variable_declaration') return undefined;
  let name: SpecNode | null = null;
  for (let i = 0; i < node.namedChildCount; i++) {
    const c = node.namedChild(i);
    if (!c) continue;
    if (!name && c.type === 'identifier') name = c;
    else if (c.type in ZIG_CONTAINERS) {
      const kind = ZIG_CONTAINERS[c.type]!;
      return { kind, name: textOf(name), body: kind === 'struct' || kind === 'enum' ? c : null };
    }
  }
  return null;
}

// ---- Perl ----------------------------------------------------------------------------

/** `package Foo::Bar { … }`: its subs are Foo::Bar's. The statement form is a scope (perlScope). */
export function readPerl(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'package_statement') return undefined;
  const body = node.childForFieldName('body');
  return body ? { members: body, name: textOf(childOfType(node, 'package_name')) } : null;
}

/** `package Foo::Bar;` names the parent of the subs after it. */
export function perlScope(node: SpecNode): string | null {
  return node.type === 'package_statement' && !node.childForFieldName('body') ? textOf(childOfType(node, 'package_name')) : null;
}

// ---- R -------------------------------------------------------------------------------

const R_CLASS_MAKERS = new Set(['R6Class', 'setRefClass', 'setClass']);

/** The text of a string argument (`"area"` → `area`). */
function rString(arg: SpecNode | null | undefined): string | null {
  const value = arg?.childForFieldName('value') ?? arg;
  return value?.type === 'string' ? value.text.slice(1, -1).slice(0, MAX_NAME_CHARS) : null;
}

/**
 * `f <- function(…)`, `obj$f = function(…)` (parent obj), `Person <- R6Class("Person", …)`;
 * calls `setClass("Person", …)`, `setGeneric("area", …)`, `setMethod("area", "Circle", …)`.
 */
export function readR(node: SpecNode): SpecRead | null | undefined {
  if (node.type === 'binary_operator') {
    const lhs = node.childForFieldName('lhs');
    const rhs = node.childForFieldName('rhs');
    if (!lhs || !rhs) return null;
    const op = node.childForFieldName('operator')?.text;
    if (op !== undefined && op !== '<-' && op !== '=' && op !== '<<-') return null;
    let name: string | null = null;
    let qualifier: string | null = null;
    if (lhs.type === 'identifier') name = textOf(lhs);
    else if (lhs.type === 'extract_operator') {
      name = textOf(lhs.childForFieldName('rhs'));
      qualifier = textOf(lhs.childForFieldName('lhs'));
    } else return null;
    if (rhs.type === 'function_definition') return { kind: 'function', name, qualifier, body: rhs.childForFieldName('body') };
    const maker = rhs.type === 'call' ? rhs.childForFieldName('function')?.text : undefined;
    return maker && R_CLASS_MAKERS.has(maker) ? { kind: 'class', name, qualifier } : null;
  }
  if (node.type === 'call') {
    const fn = node.childForFieldName('function')?.text;
    if (fn !== 'setClass' && fn !== 'setRefClass' && fn !== 'setGeneric' && fn !== 'setMethod') return null;
    const args = node.childForFieldName('arguments');
    const first = rString(args?.namedChild(0));
    if (!first) return null;
    if (fn === 'setMethod') {
      // `setMethod("area", "Circle", …)`: the second argument is a comma node's neighbour.
      let cls: string | null = null;
      for (let i = 1; args && i < args.namedChildCount && !cls; i++) cls = rString(args.namedChild(i));
      return { kind: 'method', name: first, qualifier: cls };
    }
    return { kind: fn === 'setGeneric' ? 'function' : 'class', name: first };
  }
  return undefined;
}

// ---- Elm -----------------------------------------------------------------------------

export function readElm(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'value_declaration') return undefined;
  // `update msg model = …`: the name is the first word of the left side.
  const left = childOfType(node, 'function_declaration_left');
  const name = left ? childOfType(left, 'lower_case_identifier') : null;
  return name ? { kind: 'function', name: textOf(name), body: node.childForFieldName('body') } : null;
}

// ---- Gleam ---------------------------------------------------------------------------

/** `pub type Box(a) {…}` / `pub type Id = Int`: the name is in `type_name`. */
export function readGleam(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'type_definition' && node.type !== 'type_alias') return undefined;
  const typeName = childOfType(node, 'type_name');
  const name = typeName?.childForFieldName('name') ?? typeName;
  return { kind: node.type === 'type_definition' ? 'enum' : 'type', name: textOf(name) };
}

// ---- Clojure -------------------------------------------------------------------------

const CLOJURE_DEFS: Readonly<Record<string, ChunkType>> = {
  defn: 'function', 'defn-': 'function', defmacro: 'function', defmulti: 'function', defmethod: 'method',
  defprotocol: 'interface', definterface: 'interface', defrecord: 'class', deftype: 'class', defstruct: 'struct',
};

/** The symbol name of a `sym_lit` (without its `^:private` metadata). */
const clojureSymbol = (n: SpecNode | null): string | null => (n?.type === 'sym_lit' ? textOf(n.childForFieldName('name')) : null);

/** `(defn add …)`, `(defrecord Circle …)`, `(defmethod area :circle …)` (one method of `area`); `(def x …)` is a constant. */
export function readClojure(node: SpecNode): SpecRead | null | undefined {
  if (node.type !== 'list_lit') return undefined;
  const head = clojureSymbol(node.namedChild(0));
  const kind = head ? CLOJURE_DEFS[head] : undefined;
  if (!kind) return null;
  const name = clojureSymbol(node.namedChild(1));
  if (!name) return null;
  return { kind, name, body: node };
}

/** `(ns my.app.core …)` names the parent of the definitions after it. */
export function clojureScope(node: SpecNode): string | null {
  return node.type === 'list_lit' && clojureSymbol(node.namedChild(0)) === 'ns' ? clojureSymbol(node.namedChild(1)) : null;
}

/** A definition's docstring: the string right after its name (`(defn add "Adds." [a b] …)`). */
export function clojureBodyDoc(list: SpecNode): SpecNode | null {
  const doc = list.namedChild(2);
  return doc?.type === 'str_lit' && list.namedChildCount > 3 ? doc : null;
}
