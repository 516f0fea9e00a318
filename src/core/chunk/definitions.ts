/**
 * What the chunker reads off a definition node: whether a node is a definition (wrappers,
 * bindings, namespaces), its name, body, signature, doc comment and the context its later
 * pieces carry. Pure reads of one parsed file: no state beyond the file's text and lines.
 */
import type { Node } from 'web-tree-sitter';
import type { LanguageSpec } from './languages.ts';
import { typeOf } from './tree-access.ts';
import type { LineTable } from './lines.ts';
import type { TextSpan } from '../types.ts';
import type { Context, DefInfo, Item } from './pieces.ts';
import { clip, commentDocText, docstringText, MAX_SIGNATURE_CHARS, signatureText } from '../text/decl-text.ts';

/** Carried context of a split body: at most this many signature rows / characters. */
const MAX_PREFIX_ROWS = 6;
const MAX_PREFIX_CHARS = 300;
const MAX_NAME_CHARS = 200;

/** A namespace (its body's members chunked as if top-level), or a container of members (LanguageSpec.read). */
export interface Namespace {
  ns: Node;
  /** Its members are a class's (functions become methods) and the container defines nothing. */
  members?: boolean;
  /** The members' parent (undefined: the namespace's own name; null: the enclosing parent). */
  name?: string | null;
  /** Where the members are (undefined: the `body` field). */
  body?: Node | null;
}

const IDENTIFIER = /identifier$|^(name|constant|word|operator_name|destructor_name|primitive_type)$/;

export class Definitions {
  constructor(
    private readonly text: string,
    private readonly lines: LineTable,
    private readonly spec: LanguageSpec,
  ) {}

  /**
   * Is `n` a definition (possibly wrapped or bound to a variable), a namespace, or a container
   * of members (`members`: LanguageSpec.read said so; `name`: the members' parent, null for the
   * enclosing one; `body`: where they are)? `nType`: `n.type` when known.
   */
  classify(n: Node, nType: string = typeOf(n)): { def: DefInfo } | Namespace | null {
    const spec = this.spec;
    let node = n;
    let type = nType;
    let sigStart = n.startIndex;
    for (let i = 0; i < 4 && spec.wrappers[type]; i++) {
      const mode = spec.wrappers[type];
      const inner =
        node.childForFieldName('declaration') ??
        node.childForFieldName('definition') ??
        node.namedChildren.find((c) => {
          if (c === null) return false;
          const t = typeOf(c);
          return t in spec.defs || spec.bindings.has(t) || spec.namespaces.has(t);
        }) ??
        null;
      if (!inner) return null;
      if (mode === 'skip') sigStart = inner.startIndex;
      node = inner;
      type = typeOf(node);
    }
    if (spec.namespaces.has(type)) return { ns: node };
    const base = spec.defs[type];
    if (base) {
      // `struct x;` / `enum e` used as a type are not definitions.
      if (/_specifier$/.test(type) && !node.childForFieldName('body')) return null;
      const read = spec.read?.(node);
      if (read === null) return null;
      if (read && 'members' in read) return { ns: node, members: true, name: read.name, body: read.members as Node | null };
      if (read) {
        return { def: { outer: n, node, holder: node, kind: read.kind, name: read.name, sigStart, qualifier: read.qualifier ?? null, body: read.body as Node | null | undefined } };
      }
      const kind = spec.refine?.(node) ?? base;
      return { def: { outer: n, node, holder: node, kind, name: this.nameOf(node), sigStart } };
    }
    if (spec.bindings.has(type)) {
      const declarators = type.endsWith('field_definition')
        ? [node]
        : node.namedChildren.filter((c) => c !== null && typeOf(c) === 'variable_declarator');
      if (declarators.length !== 1 || !declarators[0]) return null;
      const decl = declarators[0];
      const value = decl.childForFieldName('value');
      const kind = value ? spec.bindingValues[typeOf(value)] : undefined;
      if (!value || !kind) return null;
      const nameNode = decl.childForFieldName('name') ?? decl.childForFieldName('property');
      const name = nameNode ? clip(nameNode.text, MAX_NAME_CHARS) : null;
      return { def: { outer: n, node, holder: value, kind, name, sigStart } };
    }
    return null;
  }

  /** Name of a definition: its `name` field, else down the `declarator` chain (C), impl types (Rust), type specs (Go). */
  nameOf(node: Node): string | null {
    let n: Node | null = node;
    for (let i = 0; i < 12 && n; i++) {
      const type = typeOf(n);
      if (IDENTIFIER.test(type)) return clip(n.text, MAX_NAME_CHARS);
      const name = n.childForFieldName('name');
      if (name) return clip(name.text.replace(/^(['"`])(.*)\1$/s, '$2'), MAX_NAME_CHARS);
      n =
        n.childForFieldName('declarator') ??
        (type === 'impl_item' || type === 'generic_type' ? n.childForFieldName('type') : null) ??
        (type === 'type_declaration' ? n.namedChild(0) : null);
    }
    return null;
  }

  bodyOf(d: DefInfo): Node | null {
    if (d.body !== undefined) return d.body;
    return (
      d.holder.childForFieldName('body') ??
      (typeOf(d.node) === 'type_definition' ? (d.node.childForFieldName('type')?.childForFieldName('body') ?? null) : null)
    );
  }

  /** Declaration text without the body (text/decl-text.ts signatureText) and the slice it is made of. */
  signatureOf(d: DefInfo, body: Node | null): { signature: string | null; signatureSpan: TextSpan } {
    const startRow = this.lines.rowOf(d.sigStart);
    const end = body && body.startIndex > d.sigStart ? body.startIndex : this.lines.end(startRow);
    const span: TextSpan = [d.sigStart, Math.min(end, d.sigStart + MAX_SIGNATURE_CHARS * 4)];
    return { signature: signatureText(this.text.slice(span[0], span[1])), signatureSpan: span };
  }

  /** Signature rows, carried (as context, not content) by later pieces of a split body. */
  contextPrefix(d: DefInfo, body: Node | null): Context {
    const sigRow = this.lines.rowOf(d.sigStart);
    let endRow = sigRow;
    if (body) {
      const bodyRow = body.startPosition.row;
      endRow = bodyRow > sigRow && this.lines.startsRow(body.startIndex, bodyRow) ? bodyRow - 1 : bodyRow;
    }
    endRow = Math.min(endRow, sigRow + MAX_PREFIX_ROWS - 1);
    const sig = clip(this.lines.slice(sigRow, endRow), MAX_PREFIX_CHARS);
    const indent = /^[ \t]*/.exec(this.lines.line(sigRow))?.[0] ?? '';
    // Budgeted as the signature plus a `… ` marker line, as when the context was prepended.
    return { text: sig, row: sigRow, budget: `${sig}\n${indent}    ${this.spec.lineComment} …\n`.length };
  }

  /**
   * The doc comment (or docstring) and the slice of the text it was read from: from the first
   * doc comment's start to the last one's end.
   */
  docOf(item: Item, body: Node | null): { doc: string | null; docSpan: TextSpan | null } {
    if (this.spec.docStyle === 'docstring' && body) {
      const first = body.firstNamedChild;
      const str = first?.type === 'expression_statement' ? first.firstNamedChild : null;
      if (str && str.type === 'string') return { doc: docstringText(str.text), docSpan: [str.startIndex, str.endIndex] };
    }
    const opening = body && this.spec.bodyDoc?.(body);
    if (opening) return { doc: docstringText(opening.text), docSpan: [opening.startIndex, opening.endIndex] };
    const nodes = item.docNodes.filter((n) => this.spec.comments.has(n.type));
    if (nodes.length === 0) {
      // An attribute that documents (Elixir `@doc """…"""`): the string is the doc.
      for (const a of item.docNodes) {
        const str = this.spec.attributeDoc?.(a);
        if (str) return { doc: docstringText(str.text), docSpan: [str.startIndex, str.endIndex] };
      }
      return { doc: null, docSpan: null };
    }
    return { doc: commentDocText(nodes.map((n) => n.text)), docSpan: [nodes[0]!.startIndex, nodes[nodes.length - 1]!.endIndex] };
  }

  goReceiver(node: Node): string | null {
    const receiver = node.childForFieldName('receiver');
    if (!receiver) return null;
    const cursor = receiver.walk();
    try {
      for (let steps = 0; steps < 64; steps++) {
        if (cursor.nodeType === 'type_identifier') return cursor.nodeText;
        if (!cursor.gotoFirstChild()) {
          while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return null;
        }
      }
    } finally {
      cursor.delete();
    }
    return null;
  }
}
