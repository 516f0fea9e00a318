/**
 * Declarations read off a line of code, for the `symbols` tool: the index knows the
 * definitions that are chunks of their own, but a small class is one chunk, so its methods
 * (`retryPolicy(): number {` inside `class PaymentServer`) are no definition of the index.
 * These patterns find them in the text: by name (`symbols name=retryPolicy`) and in a file's
 * outline (members of its class-like chunks). A heuristic, per language family; it never
 * reads outside the stored text, and what it finds is labelled as found in the text.
 */

export interface Declared {
  name: string;
  kind: string;
}

const CONTROL_WORDS = new Set([
  'if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'new', 'else', 'do', 'try', 'with', 'await', 'yield', 'throw',
  'typeof', 'delete', 'void', 'case', 'sizeof', 'elif', 'except', 'match', 'select', 'foreach', 'using', 'lock', 'super', 'this',
]);

const PY = /^(?:async\s+)?def\s+([A-Za-z_]\w*)|^class\s+([A-Za-z_]\w*)/;
const JS_DECL = /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:function\*?\s+([A-Za-z_$][\w$]*)|(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)|interface\s+([A-Za-z_$][\w$]*)|type\s+([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*=|(?:const\s+)?enum\s+([A-Za-z_$][\w$]*))/;
/** A method or function header: modifiers, a name, a parameter list, an optional return type, then `{` or nothing (no `;`, no `=` before the parenthesis). */
const METHOD = /^(?:(?:public|private|protected|internal|static|readonly|async|override|abstract|virtual|final|synchronized|get|set|def|fun|func|fn|pub|unsafe|extern|inline|const|constexpr|export)\s+|<[^>]*>\s*)*(?:[\w$.<>[\],?*&:]+\s+[*&]*)*([A-Za-z_$~][\w$]*)\s*(?:<[^>()]*>)?\s*\([^;]*$/;
const GO = /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|^type\s+([A-Za-z_]\w*)\s+(struct|interface)\b/;
const RUST = /^(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|unsafe|const|extern\s+"[^"]*")\s+)*(?:fn\s+([A-Za-z_]\w*)|struct\s+([A-Za-z_]\w*)|enum\s+([A-Za-z_]\w*)|trait\s+([A-Za-z_]\w*))/;
const RUBY = /^def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)|^(class|module)\s+([A-Z]\w*)/;

/** The declaration `line` makes, or null. `inClass`: the line is inside a class-like definition. */
export function declarationOf(line: string, language: string, inClass: boolean): Declared | null {
  const t = line.trim();
  if (!t || t.startsWith('//') || t.startsWith('#') || t.startsWith('*') || t.startsWith('/*')) {
    if (!(language === 'python' || language === 'ruby') || !t.startsWith('#')) return null;
  }
  const fnKind = inClass ? 'method' : 'function';
  let m: RegExpMatchArray | null;
  switch (language) {
    case 'python':
      m = t.match(PY);
      return m ? (m[1] ? { name: m[1], kind: fnKind } : { name: m[2], kind: 'class' }) : null;
    case 'go':
      m = t.match(GO);
      return m ? (m[1] ? { name: m[1], kind: /^func\s+\(/.test(t) ? 'method' : 'function' } : { name: m[2], kind: m[3] === 'struct' ? 'struct' : 'interface' }) : null;
    case 'rust':
      m = t.match(RUST);
      if (!m) return null;
      return m[1] ? { name: m[1], kind: fnKind } : m[2] ? { name: m[2], kind: 'struct' } : m[3] ? { name: m[3], kind: 'enum' } : { name: m[4], kind: 'interface' };
    case 'ruby':
      m = t.match(RUBY);
      return m ? (m[1] ? { name: m[1], kind: fnKind } : { name: m[3], kind: m[2] === 'class' ? 'class' : 'module' }) : null;
    default: {
      m = t.match(JS_DECL);
      if (m) {
        if (m[1]) return { name: m[1], kind: 'function' };
        if (m[2]) return { name: m[2], kind: 'class' };
        if (m[3]) return { name: m[3], kind: 'interface' };
        if (m[4]) return { name: m[4], kind: 'type' };
        return { name: m[5], kind: 'enum' };
      }
      // Members: only inside a class-like definition (a call `foo(x)` at top level is no definition),
      // or a C-family header with a return type before the name.
      m = t.match(METHOD);
      if (!m || CONTROL_WORDS.has(m[1])) return null;
      const before = t.slice(0, t.indexOf(m[1])).trim();
      if (/[=.(!]|\breturn\b|\bnew\b|\belse\b/.test(before)) return null;
      const afterParen = t.slice(t.indexOf('(', t.indexOf(m[1])));
      // `x = foo(...)`, `foo(a).bar(` and expression statements are no headers.
      if (/\)\s*[.;]|\)\s*[-+*/=!<>|&]/.test(afterParen) || /;\s*$/.test(t)) return null;
      if (!inClass && before === '') return null;
      return { name: m[1], kind: m[1] === 'constructor' ? 'method' : fnKind };
    }
  }
}

/** A line that only closes a block: `end`, `}`, `)`, `]` (with `;` or `,`), or nothing. */
const CLOSING_ONLY = /^\s*(?:end|[})\]]+)?\s*[;,]?\s*$/;

/**
 * The last line (1-based) of the definition on lines start..end once the lines that close what
 * encloses it are left out: a chunk may end with its container's closing line (the last
 * function of an Elixir module takes the module's `end`), which is less indented than the
 * definition's first line. Only lines that close a block, or are blank, are left out.
 */
export function ownEnd(lines: readonly string[], start: number, end: number): number {
  const indent = (s: string) => s.length - s.trimStart().length;
  const first = lines[start - 1];
  if (first === undefined) return end;
  let e = Math.min(end, lines.length);
  while (e > start && CLOSING_ONLY.test(lines[e - 1]) && (!lines[e - 1].trim() || indent(lines[e - 1]) < indent(first))) e--;
  return e;
}

/**
 * The last line (0-based index into `lines`) of the definition whose header is lines[at]:
 * indentation for Python and Ruby-like text, braces elsewhere; the header line itself when
 * neither tells.
 */
export function definitionEnd(lines: readonly string[], at: number, language: string): number {
  const indent = (s: string) => s.length - s.trimStart().length;
  if (language === 'python') {
    const base = indent(lines[at]);
    let end = at;
    for (let i = at + 1; i < lines.length; i++) {
      if (!lines[i].trim()) continue;
      if (indent(lines[i]) <= base) break;
      end = i;
    }
    return end;
  }
  let depth = 0;
  let opened = false;
  for (let i = at; i < lines.length; i++) {
    const code = lines[i].replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|\/\/.*$/g, '');
    for (const ch of code) {
      if (ch === '{') {
        depth++;
        opened = true;
      } else if (ch === '}') depth--;
    }
    if (opened && depth <= 0) return i;
    if (!opened && i > at && /;\s*$/.test(code)) return at;
    if (!opened && i - at > 3) return at;
  }
  return opened ? lines.length - 1 : at;
}
