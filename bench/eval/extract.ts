/**
 * Finds documented functions in C (kernel-doc), JavaScript (JSDoc), Go (doc comments), Rust
 * (`///` doc comments) and Python (docstrings) source text, for the CodeSearchNet-style eval.
 * Pure: text in, records out.
 *
 * Invariants:
 * - Lines are 1-based and inclusive. C, JavaScript and Go: a record's doc lines end before its
 *   function lines start, and nothing but blank lines lies between them. Rust: attribute lines
 *   (`#[inline]`, `#[stable(…)]`) may lie between. Python: the docstring is the first statement
 *   of the body, inside the function's lines. The doc comment is alone on its lines, so blanking
 *   those lines removes exactly the comment (a Python body that is only its docstring keeps a
 *   `...` statement on its first line: `stub`, so the function still parses).
 * - The function span runs from the first declaration line to the line of the body's
 *   closing brace, found with a small lexer that skips strings, comments, template
 *   literals and (heuristically) JS regex literals. Functions without a brace body
 *   (prototypes, expression-bodied arrows, Go assembly stubs) are skipped.
 * - The query is the first sentence of the doc's prose: kernel-doc's `name() - ` prefix
 *   is syntax and dropped; JSDoc stops at the first block tag; Go keeps the name the
 *   sentence starts with (Go convention, as CodeSearchNet does).
 */

export type EvalLanguage = 'c' | 'javascript' | 'go' | 'rust' | 'python';

export interface DocFunction {
  name: string;
  /** Doc comment lines (1-based, inclusive). */
  docStart: number;
  docEnd: number;
  /** Function lines, declaration to closing brace (1-based, inclusive). */
  start: number;
  end: number;
  query: string;
  /** Python: the body is only the docstring; its first line becomes this statement when blanked. */
  stub?: string;
}

/** Longest declaration head we scan for a body brace (chars). */
const MAX_HEAD_CHARS = 2000;
/** Blank lines allowed between a doc comment and its function. */
const MAX_GAP_LINES = 0;

const JS_REGEX_PREV_KEYWORDS = new Set([
  'return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await', 'instanceof',
]);
const JS_NOT_METHODS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'with', 'else', 'do', 'typeof', 'new']);

/** Offsets of line starts; lineAt(offset) is 1-based. */
class Lines {
  readonly starts: number[] = [0];
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  lineAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

function isIdent(ch: string): boolean {
  return /[A-Za-z0-9_$]/.test(ch);
}

/** Whether a `/` at `i` starts a JS regex literal, judged by the previous token. */
function jsRegexStart(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && /\s/.test(text[j])) j--;
  if (j < 0) return true;
  const c = text[j];
  if ('(,=:[!&|?{};+-*%<>~^'.includes(c)) return true;
  if (isIdent(c)) {
    let k = j;
    while (k >= 0 && isIdent(text[k])) k--;
    return JS_REGEX_PREV_KEYWORDS.has(text.slice(k + 1, j + 1));
  }
  return false;
}

const RUST_CHAR_RE = /^'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|.)|[^\\'\n])'/;

/**
 * Index of the bracket closing the one at `open` (`{` or `(`), skipping strings,
 * comments and literals of `lang`; -1 when unbalanced.
 */
export function matchBracket(text: string, open: number, lang: EvalLanguage): number {
  const stack: string[] = [];
  let i = open;
  while (i < text.length) {
    const c = text[i];
    const n = text[i + 1];
    if (c === '/' && n === '/') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
      continue;
    }
    if (c === '/' && n === '*') {
      const e = text.indexOf('*/', i + 2);
      if (e < 0) return -1;
      i = e + 2;
      continue;
    }
    if (lang === 'rust' && c === "'") {
      // A char literal ('}', '\\'', '\u{7d}'), else a lifetime ('a) or a label.
      const ch = RUST_CHAR_RE.exec(text.slice(i, i + 12));
      i += ch ? ch[0].length : 1;
      continue;
    }
    if (lang === 'rust' && c === 'r' && !isIdent(text[i - 1] ?? ' ')) {
      const raw = /^r(#*)"/.exec(text.slice(i, i + 16));
      if (raw) {
        const e = text.indexOf(`"${raw[1]}`, i + raw[0].length);
        if (e < 0) return -1;
        i = e + 1 + raw[1].length;
        continue;
      }
    }
    if (c === '"' || (c === "'" && lang !== 'rust') || (c === '`' && lang !== 'c' && lang !== 'rust')) {
      if (c === '`' && lang === 'go') {
        const e = text.indexOf('`', i + 1);
        if (e < 0) return -1;
        i = e + 1;
        continue;
      }
      if (c === '`') {
        // Template literal: resume normal scanning inside ${ … } via the stack.
        stack.push('`');
        i++;
        i = scanTemplate(text, i, stack);
        if (i < 0) return -1;
        continue;
      }
      let j = i + 1;
      // Rust strings may span lines; C, JS and Go strings end at the line.
      while (j < text.length && text[j] !== c && (text[j] !== '\n' || lang === 'rust')) j += text[j] === '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (c === '/' && lang === 'javascript' && jsRegexStart(text, i)) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n') {
        if (text[j] === '\\') j += 2;
        else {
          if (text[j] === '[') inClass = true;
          else if (text[j] === ']') inClass = false;
          else if (text[j] === '/' && !inClass) break;
          j++;
        }
      }
      i = j + 1;
      continue;
    }
    if (c === '{' || c === '(' || c === '[') stack.push(c);
    else if (c === '}' || c === ')' || c === ']') {
      const top = stack.pop();
      if (top === undefined) return -1;
      if (top === '${') {
        // Back inside the enclosing template literal.
        i = scanTemplate(text, i + 1, stack);
        if (i < 0) return -1;
        continue;
      }
      if (stack.length === 0) return i;
    }
    i++;
  }
  return -1;
}

/** Scan template-literal text from `i` until its closing backtick (pops '`') or a `${` (pushes '${'). */
function scanTemplate(text: string, i: number, stack: string[]): number {
  while (i < text.length) {
    const c = text[i];
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '`') {
      stack.pop();
      return i + 1;
    }
    if (c === '$' && text[i + 1] === '{') {
      stack.push('${');
      return i + 2;
    }
    i++;
  }
  return -1;
}

/** First sentence of prose: up to the first `.`/`!`/`?` followed by space or end, whitespace collapsed. */
export function firstSentence(prose: string): string {
  const flat = prose.replace(/\s+/g, ' ').trim();
  // Abbreviations that do not end a sentence are masked while splitting.
  const masked = flat.replace(/\b([Ee]\.g|[Ii]\.e|vs|cf|etc)\.(?= [a-z(])/g, (m) => m.replace(/\./g, '\uE000'));
  const m = /^(.*?[.!?])(\s|$)/.exec(masked);
  return (m ? m[1] : masked).replace(/\uE000/g, '.').trim();
}

export function wordCount(s: string): number {
  return s.split(/\s+/).filter((w) => /[A-Za-z]/.test(w)).length;
}

/** A doc's lines to blank (1-based, inclusive), and what its first line becomes instead of '' (a Python stub body). */
export type BlankRange = readonly [number, number] | readonly [number, number, string];

/** Replace the given 1-based inclusive line ranges by empty lines (a range's stub on its first); line count is unchanged. */
export function blankLines(text: string, ranges: ReadonlyArray<BlankRange>): string {
  const lines = text.split('\n');
  for (const [a, b, stub] of ranges) for (let l = a; l <= b; l++) if (l - 1 < lines.length) lines[l - 1] = l === a && stub ? stub : '';
  return lines.join('\n');
}

interface Comment {
  /** Offsets of `/*` or first `//` and of the end (exclusive). */
  from: number;
  to: number;
  startLine: number;
  endLine: number;
  body: string[];
}

/** Block comments `/** … *\/` that sit alone on their lines. */
function blockDocComments(text: string, lines: Lines): Comment[] {
  const out: Comment[] = [];
  const re = /^[ \t]*\/\*\*(?!\/)/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const from = m.index + m[0].length - 3;
    const close = text.indexOf('*/', from + 3);
    if (close < 0) break;
    const to = close + 2;
    const after = text.indexOf('\n', to);
    if (text.slice(to, after < 0 ? text.length : after).trim() !== '') continue;
    const raw = text.slice(from + 3, close);
    const body = raw.split('\n').map((l) => l.replace(/^\s*\*? ?/, '').replace(/\s+$/, ''));
    out.push({ from, to, startLine: lines.lineAt(from), endLine: lines.lineAt(to - 1), body });
    re.lastIndex = to;
  }
  return out;
}

/** Offset where the code after a comment starts, if only ≤ MAX_GAP_LINES blank lines intervene. */
function codeAfter(text: string, lines: Lines, c: Comment): number {
  const nextLine = c.endLine + 1;
  for (let l = nextLine; l <= nextLine + MAX_GAP_LINES && l <= lines.starts.length; l++) {
    const s = lines.starts[l - 1];
    const e = l < lines.starts.length ? lines.starts[l] : text.length;
    const row = text.slice(s, e);
    if (row.trim() !== '') return s + (row.length - row.trimStart().length);
  }
  return -1;
}

/** From a declaration head at `at`, the span through the body's closing brace, or null. */
function braceBody(text: string, at: number, parenAt: number, lang: EvalLanguage): [number, number] | null {
  const closeParen = matchBracket(text, parenAt, lang);
  if (closeParen < 0 || closeParen - at > MAX_HEAD_CHARS) return null;
  let i = closeParen + 1;
  // C: attributes/annotations like __releases(x) may follow; JS: `=>`; Go: result types.
  while (i < text.length && i - at < MAX_HEAD_CHARS) {
    const c = text[i];
    if (c === '{') {
      if (lang === 'go' && /(interface|struct)\s*$/.test(text.slice(Math.max(0, i - 12), i))) {
        const e = matchBracket(text, i, lang);
        if (e < 0) return null;
        i = e + 1;
        continue;
      }
      const end = matchBracket(text, i, lang);
      return end < 0 ? null : [at, end];
    }
    // Rust: `where I: Iterator<Item = u8>` holds an `=`.
    if (c === ';' || (c === '=' && text[i + 1] !== '>' && lang !== 'rust')) return null;
    if (c === '\n' && lang === 'go') return null;
    if (c === '(' || c === '[') {
      const e = matchBracket(text, i, lang);
      if (e < 0) return null;
      i = e + 1;
      continue;
    }
    if (lang === 'javascript' && !/[\s=>]/.test(c)) return null;
    i++;
  }
  return null;
}

function cDeclaration(text: string, at: number): { name: string; paren: number } | null {
  const head = text.slice(at, at + MAX_HEAD_CHARS);
  if (/^(#|struct\s+\w+\s*\{|union\b|enum\b|typedef\b)/.test(head)) return null;
  const m = /^([^;{}()#]*?)\b([A-Za-z_]\w*)\s*\(/.exec(head);
  if (!m) return null;
  return { name: m[2], paren: at + m[0].length - 1 };
}

function extractC(text: string): DocFunction[] {
  const lines = new Lines(text);
  const out: DocFunction[] = [];
  for (const c of blockDocComments(text, lines)) {
    const first = c.body.findIndex((l) => l.trim() !== '');
    if (first < 0) continue;
    const m = /^\s*(?:(?:struct|union|enum|typedef)\s+)?([A-Za-z_]\w*)\s*(?:\(\))?\s*-+\s*(.*)$/.exec(c.body[first]);
    if (!m) continue;
    const prose = [m[2]];
    for (let k = first + 1; k < c.body.length; k++) {
      const l = c.body[k].trim();
      if (l === '' || l.startsWith('@')) break;
      prose.push(l);
    }
    const at = codeAfter(text, lines, c);
    if (at < 0) continue;
    const decl = cDeclaration(text, at);
    if (!decl || decl.name !== m[1]) continue;
    const span = braceBody(text, at, decl.paren, 'c');
    if (!span) continue;
    out.push({
      name: decl.name, docStart: c.startLine, docEnd: c.endLine,
      start: lines.lineAt(span[0]), end: lines.lineAt(span[1]), query: firstSentence(prose.join(' ')),
    });
  }
  return out;
}

/** Name and opening-paren offset of a JS function-like declaration at `at`, or null. */
function jsDeclaration(text: string, at: number): { name: string; paren: number } | null {
  const head = text.slice(at, at + MAX_HEAD_CHARS);
  const forms: RegExp[] = [
    /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/,
    /^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\s*\*?\s*[\w$]*\s*)?\(/,
    /^(?:[A-Za-z_$][\w$]*\.)*(?:prototype\.)?([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\s*\*?\s*[\w$]*\s*)?\(/,
    /^([A-Za-z_$][\w$]*)\s*:\s*(?:async\s+)?(?:function\s*\*?\s*[\w$]*\s*)?\(/,
    /^(?:(?:static|async|get|set|override)\s+)*\*?\s*(#?[A-Za-z_$][\w$]*)\s*\(/,
  ];
  for (const re of forms) {
    const m = re.exec(head);
    if (!m) continue;
    if (JS_NOT_METHODS.has(m[1])) return null;
    return { name: m[1], paren: at + m[0].length - 1 };
  }
  return null;
}

function extractJs(text: string): DocFunction[] {
  const lines = new Lines(text);
  const out: DocFunction[] = [];
  for (const c of blockDocComments(text, lines)) {
    const prose: string[] = [];
    for (const l of c.body) {
      if (l.trim().startsWith('@')) break;
      prose.push(l);
    }
    const clean = prose.join(' ')
      .replace(/\{@(?:link|linkcode|linkplain)\s+([^}|\s]+)(?:[|\s][^}]*)?\}/g, '$1')
      // Only real HTML formatting tags: JSDoc prose also mentions `<svelte:head>` and the like.
      .replace(/<\/?(?:p|br|code|b|i|em|strong|a|ul|ol|li|pre)\b[^>]*>/gi, ' ');
    if (clean.trim() === '') continue;
    const at = codeAfter(text, lines, c);
    if (at < 0) continue;
    const decl = jsDeclaration(text, at);
    if (!decl) continue;
    const span = braceBody(text, at, decl.paren, 'javascript');
    if (!span) continue;
    out.push({
      name: decl.name, docStart: c.startLine, docEnd: c.endLine,
      start: lines.lineAt(span[0]), end: lines.lineAt(span[1]), query: firstSentence(clean),
    });
  }
  return out;
}

function extractGo(text: string): DocFunction[] {
  const lines = new Lines(text);
  const out: DocFunction[] = [];
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    const m = /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?\(/.exec(rows[i]);
    if (!m) continue;
    let d = i - 1;
    while (d >= 0 && /^\/\/( |$)/.test(rows[d]) && !/^\/\/go:/.test(rows[d])) d--;
    // Directives (//go:noinline) sit between doc and func; the doc must be right above.
    if (d === i - 1) continue;
    const docStart = d + 2;
    const docEnd = i;
    const doc = rows.slice(docStart - 1, docEnd).map((l) => l.replace(/^\/\/ ?/, ''));
    const blank = doc.findIndex((l) => l.trim() === '');
    const para = blank < 0 ? doc : doc.slice(0, blank);
    const at = lines.starts[i];
    const span = braceBody(text, at, at + m[0].length - 1, 'go');
    if (!span) continue;
    out.push({
      name: m[1], docStart, docEnd, start: i + 1, end: lines.lineAt(span[1]), query: firstSentence(para.join(' ')),
    });
  }
  return out;
}

/** A Rust fn head: visibility and qualifiers, `fn`, the name; then generics or the parameters. */
const RUST_FN_RE = /^[ \t]*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+([A-Za-z_]\w*)\s*([<(])/;
const RUST_DOC_RE = /^[ \t]*\/\/\/(?!\/)/;
/** A line comment inside a doc block (`// FIXME` between `///` lines): blanked with it, not prose. */
const RUST_COMMENT_RE = /^[ \t]*\/\//;

/** Offset of the `(` after a generic list opening at `lt`, or -1 (`<F: Fn(u8) -> T>` nests). */
function afterGenerics(text: string, lt: number): number {
  let depth = 0;
  for (let i = lt; i < text.length && i - lt < MAX_HEAD_CHARS; i++) {
    const c = text[i];
    if (c === '<') depth++;
    else if (c === '>' && text[i - 1] !== '-') depth--;
    else if (c === '(' && depth > 0) {
      const e = matchBracket(text, i, 'rust');
      if (e < 0) return -1;
      i = e;
    } else if (c === '(' && depth === 0) return i;
    else if (c === ';' || c === '{') return -1;
  }
  return -1;
}

/** Markdown of a Rust doc line made prose: `[text](target)` → text, `[text][ref]` → text. */
function rustProse(line: string): string {
  return line.replace(/\[(`[^`]+`)\](?:\([^)]*\)|\[[^\]]*\])?/g, '$1').replace(/\[([^\]]+)\]\([^)]*\)/g, '$1').replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1');
}

function extractRust(text: string): DocFunction[] {
  const lines = new Lines(text);
  const out: DocFunction[] = [];
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    if (!RUST_DOC_RE.test(rows[i])) continue;
    let end = i;
    while (end + 1 < rows.length && RUST_COMMENT_RE.test(rows[end + 1])) end++;
    const doc = rows.slice(i, end + 1).filter((l) => RUST_DOC_RE.test(l)).map((l) => l.replace(/^[ \t]*\/\/\/ ?/, ''));
    const docStart = i + 1;
    const docEnd = end + 1;
    i = end;
    // Attributes between the doc and the fn (`#[inline]`, a `#[stable(…)]` over several lines).
    let at = end + 1;
    while (at < rows.length && /^[ \t]*#\[/.test(rows[at])) {
      const close = matchBracket(text, lines.starts[at] + rows[at].indexOf('['), 'rust');
      if (close < 0) break;
      at = lines.lineAt(close); // 1-based line of the `]` = 0-based index of the next row
    }
    if (at >= rows.length) continue;
    const m = RUST_FN_RE.exec(rows[at]);
    if (!m) continue;
    const head = lines.starts[at];
    const open = head + m[0].length - 1;
    const paren = m[2] === '(' ? open : afterGenerics(text, open);
    if (paren < 0) continue;
    const span = braceBody(text, head, paren, 'rust');
    if (!span) continue;
    const blank = doc.findIndex((l) => l.trim() === '');
    const para = (blank < 0 ? doc : doc.slice(0, blank)).map(rustProse);
    // A doc that opens with a heading (`# Safety`) or a code fence has no summary sentence.
    if (para.join('').trim() === '' || /^\s*(#|```)/.test(para[0])) continue;
    out.push({ name: m[1], docStart, docEnd, start: at + 1, end: lines.lineAt(span[1]), query: firstSentence(para.join(' ')) });
  }
  return out;
}

/** A Python def head: indentation, `def` (or `async def`), the name. */
const PY_DEF_RE = /^([ \t]*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/;
/** A docstring's opening: indentation, an optional r/u prefix, then triple or single quotes. */
const PY_DOC_OPEN_RE = /^([ \t]*)[rRuU]?("""|'''|"|')/;

/**
 * Python source read line by line: whether each line starts inside a string or brackets or
 * after a backslash (a continuation, which never ends a block), tracked through triple-quoted
 * strings, plain strings and `#` comments.
 */
function pythonContinuations(rows: readonly string[]): boolean[] {
  const cont: boolean[] = [];
  let triple: string | null = null;
  let depth = 0;
  let backslash = false;
  for (const row of rows) {
    cont.push(triple !== null || depth > 0 || backslash);
    let k = 0;
    while (k < row.length) {
      if (triple) {
        const e = row.indexOf(triple, k);
        if (e < 0) break;
        let bs = 0;
        for (let b = e - 1; b >= k && row[b] === '\\'; b--) bs++;
        k = e + (bs % 2 === 1 ? 1 : 3);
        if (bs % 2 === 0) triple = null;
        continue;
      }
      const c = row[k];
      if (c === '#') break;
      if (c === '"' || c === "'") {
        const q3 = row.slice(k, k + 3);
        if (q3 === c.repeat(3)) {
          triple = q3;
          k += 3;
          continue;
        }
        let j = k + 1;
        while (j < row.length && row[j] !== c) j += row[j] === '\\' ? 2 : 1;
        k = j + 1;
        continue;
      }
      if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
      k++;
    }
    backslash = triple === null && /\\$/.test(row);
  }
  return cont;
}

function extractPython(text: string): DocFunction[] {
  const out: DocFunction[] = [];
  const rows = text.split('\n');
  const cont = pythonContinuations(rows);
  for (let i = 0; i < rows.length; i++) {
    const m = cont[i] ? null : PY_DEF_RE.exec(rows[i]);
    if (!m) continue;
    const indent = m[1].length;
    // The signature runs over the lines that continue it and ends with its colon.
    let sigEnd = i;
    while (sigEnd + 1 < rows.length && cont[sigEnd + 1]) sigEnd++;
    if (!/:\s*(#.*)?$/.test(rows[sigEnd])) continue; // `def f(): return 1`: no docstring line of its own
    let d = sigEnd + 1;
    while (d < rows.length && rows[d].trim() === '') d++;
    const open = d < rows.length ? PY_DOC_OPEN_RE.exec(rows[d]) : null;
    if (!open || open[1].length <= indent) continue;
    const quote = open[2];
    // The docstring's last line holds its closing quote and nothing after it.
    const afterOpen = rows[d].slice(open[0].length);
    let docEnd = d;
    let closeAt = afterOpen.indexOf(quote);
    if (closeAt >= 0) closeAt += open[0].length;
    else {
      if (quote.length === 1) continue;
      docEnd = d + 1;
      while (docEnd < rows.length && !rows[docEnd].includes(quote)) docEnd++;
      if (docEnd >= rows.length) continue;
      closeAt = rows[docEnd].indexOf(quote);
    }
    if (rows[docEnd].slice(closeAt + quote.length).trim() !== '') continue;
    const raw = [afterOpen, ...rows.slice(d + 1, docEnd + 1)].join('\n');
    const body = raw.slice(0, docEnd === d ? closeAt - open[0].length : raw.length - (rows[docEnd].length - closeAt));
    const paras = body.split(/\n[ \t]*\n/).map((p) => p.trim()).filter(Boolean);
    if (!paras.length) continue;
    // The function's last line: the last non-blank line before a line indented at most as the def.
    let last = docEnd;
    for (let k = docEnd + 1; k < rows.length; k++) {
      if (rows[k].trim() === '') continue;
      if (!cont[k] && rows[k].length - rows[k].trimStart().length <= indent) break;
      last = k;
    }
    out.push({
      name: m[2], docStart: d + 1, docEnd: docEnd + 1, start: i + 1, end: last + 1, query: firstSentence(paras[0]),
      ...(last === docEnd ? { stub: `${open[1]}...` } : {}),
    });
  }
  return out;
}

/** Documented functions in one file's text. */
export function extractDocFunctions(text: string, lang: EvalLanguage): DocFunction[] {
  if (lang === 'c') return extractC(text);
  if (lang === 'javascript') return extractJs(text);
  if (lang === 'rust') return extractRust(text);
  if (lang === 'python') return extractPython(text);
  return extractGo(text);
}
