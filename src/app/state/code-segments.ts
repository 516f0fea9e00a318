/**
 * Turns code into lines of styled text segments for rendering: syntax classes from
 * highlight.js's token tree and `mark` flags for the query's matched ranges.
 *
 * Invariants: code is only ever TEXT — segments carry raw strings that the component renders
 * as text nodes, never HTML, so a file full of `<script>` renders inertly. Concatenating every
 * segment of every line (joined by '\n') gives back the input exactly. Marks are character
 * ranges [start, end) into the input; overlapping or out-of-range marks are clipped.
 */
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import lua from 'highlight.js/lib/languages/lua';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import scala from 'highlight.js/lib/languages/scala';
import scss from 'highlight.js/lib/languages/scss';
import clojure from 'highlight.js/lib/languages/clojure';
import dart from 'highlight.js/lib/languages/dart';
import elixir from 'highlight.js/lib/languages/elixir';
import elm from 'highlight.js/lib/languages/elm';
import haskell from 'highlight.js/lib/languages/haskell';
import perl from 'highlight.js/lib/languages/perl';
import r from 'highlight.js/lib/languages/r';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

/** Above this many characters the code is shown plain: highlighting is main-thread work. */
export const MAX_HIGHLIGHT_CHARS = 200_000;

const LANGS = { bash, c, clojure, cpp, csharp, css, dart, elixir, elm, go, haskell, ini, java, javascript, json, kotlin, lua, markdown, perl, php, python, r, ruby, rust, scala, scss, sql, swift, typescript, xml, yaml };
for (const [name, def] of Object.entries(LANGS)) hljs.registerLanguage(name, def);

/** Sift language names (detectLanguage) → highlight.js names. */
const ALIASES: Record<string, string> = {
  tsx: 'typescript', jsx: 'javascript', c_sharp: 'csharp', 'c#': 'csharp', shell: 'bash', sh: 'bash', zsh: 'bash',
  html: 'xml', svelte: 'xml', vue: 'xml', toml: 'ini', less: 'scss', 'c++': 'cpp', text: '', plaintext: '',
};

export interface Segment {
  text: string;
  /** Space-separated CSS classes (`tok-keyword`, …), '' for plain text. */
  cls: string;
  mark: boolean;
}

export type CodeLine = Segment[];

interface Token {
  text: string;
  cls: string;
}

type EmitterNode = string | { scope?: string; children: EmitterNode[] };

function hljsName(language: string): string | null {
  const l = language.toLowerCase();
  const name = l in ALIASES ? ALIASES[l] : l;
  return name && hljs.getLanguage(name) ? name : null;
}

function flatten(node: EmitterNode, cls: string, out: Token[]): void {
  if (typeof node === 'string') {
    if (node) out.push({ text: node, cls });
    return;
  }
  const scope = node.scope ? `tok-${node.scope.split('.')[0].replace(/[^a-z_-]/gi, '')}` : '';
  const next = scope ? scope : cls;
  for (const child of node.children) flatten(child, next, out);
}

export function tokenize(code: string, language: string): Token[] {
  const name = hljsName(language);
  if (!name || code.length > MAX_HIGHLIGHT_CHARS) return [{ text: code, cls: '' }];
  try {
    const res = hljs.highlight(code, { language: name, ignoreIllegals: true }) as unknown as { _emitter?: { rootNode?: EmitterNode } };
    const root = res._emitter?.rootNode;
    if (!root) return [{ text: code, cls: '' }];
    const out: Token[] = [];
    flatten(root, '', out);
    // Guard the invariant: if the tree ever disagrees with the input, show plain text.
    if (out.map((t) => t.text).join('') !== code) return [{ text: code, cls: '' }];
    return out;
  } catch {
    return [{ text: code, cls: '' }];
  }
}

/** Normalises marks: sorted, clipped to [0, len), merged when overlapping. */
export function normaliseMarks(marks: ReadonlyArray<readonly [number, number]>, len: number): Array<[number, number]> {
  const sorted = marks
    .map(([a, b]): [number, number] => [Math.max(0, Math.min(len, a)), Math.max(0, Math.min(len, b))])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const m of sorted) {
    const last = out[out.length - 1];
    if (last && m[0] <= last[1]) last[1] = Math.max(last[1], m[1]);
    else out.push([m[0], m[1]]);
  }
  return out;
}

export function codeLines(code: string, language: string, marks: ReadonlyArray<readonly [number, number]> = []): CodeLine[] {
  const tokens = tokenize(code, language);
  const ms = normaliseMarks(marks, code.length);
  const lines: CodeLine[] = [[]];
  let pos = 0;
  let mi = 0;
  const push = (text: string, cls: string, mark: boolean) => {
    const parts = text.split('\n');
    parts.forEach((part, i) => {
      if (i > 0) lines.push([]);
      if (part) lines[lines.length - 1].push({ text: part, cls, mark });
    });
  };
  for (const tok of tokens) {
    let i = 0;
    while (i < tok.text.length) {
      const abs = pos + i;
      while (mi < ms.length && ms[mi][1] <= abs) mi++;
      const m = ms[mi];
      let end: number;
      let marked: boolean;
      if (m && m[0] <= abs) {
        end = Math.min(tok.text.length, m[1] - pos);
        marked = true;
      } else {
        end = m ? Math.min(tok.text.length, m[0] - pos) : tok.text.length;
        marked = false;
      }
      push(tok.text.slice(i, end), tok.cls, marked);
      i = end;
    }
    pos += tok.text.length;
  }
  return lines;
}
