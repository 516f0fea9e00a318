/**
 * The slice of a tree-sitter node the language specs read (languages.ts) and the hooks that
 * read it (language-hooks.ts): below both, so neither imports the other for it.
 */
import type { ChunkType } from '../types.ts';

/** The small part of web-tree-sitter's Node the tables need (keeps this module import-free). */
export interface SpecNode {
  type: string;
  text: string;
  startIndex: number;
  endIndex: number;
  isNamed: boolean;
  childForFieldName(name: string): SpecNode | null;
  namedChild(index: number): SpecNode | null;
  namedChildCount: number;
  child(index: number): SpecNode | null;
  childCount: number;
}

/**
 * What LanguageSpec.read says a node is: a definition (`qualifier`: the parent its name
 * carries, `M` of Lua's `function M.f`; `body`: the node holding its members or statements,
 * when no `body` field does), or a container whose `members` are definitions with parent
 * `name` (null: the enclosing definition's) and that is no definition itself.
 */
export type SpecRead =
  | { kind: ChunkType; name: string | null; qualifier?: string | null; body?: SpecNode | null }
  | { members: SpecNode | null; name: string | null };
