/**
 * Is a `.h` file C++? `.h` is C by its extension, but C++ projects use it for their headers
 * too (fmt, LLVM, Qt, most of /usr/include/c++), and a C++ header read with the C grammar loses
 * its classes, namespaces and templates. A header is C++ when it has a construct C does not:
 * `template <`, `namespace x {`, `class X {` / `class X :`, `public:` / `private:` /
 * `protected:`, `Name::member`, `std::`, a `*_cast<`, `virtual … (`, `noexcept`, `decltype`,
 * `operator==`, an `#include <vector>`-style standard header — outside comments, string and
 * character literals, and `#ifdef __cplusplus` blocks (C headers keep their C++ linkage lines
 * and C++ helpers there). `extern "C"` / `extern "C++"` is no sign: C headers have it under
 * guards that test a macro derived from `__cplusplus` (glibc's wchar.h, string.h).
 *
 * Cost: one pass for `::` and two regex passes over the text, which find nothing in most C
 * headers; only a header where they find a marker is scanned again with comments, strings
 * and `__cplusplus` blocks blanked (77 of Linux 6.1's 6,677 headers: `::` or `operator` in
 * comments).
 */

/**
 * C++-only constructs at the start of a line (after blanks). Kept to constructs that are no
 * valid C: `typename`, `virtual`, `this`, `new` are identifiers in C code.
 */
const LINE_MARKERS = new RegExp('^[ \\t]*(?:' + [
  String.raw`template[ \t]*<`,
  // `namespace x {`, `namespace std _GLIBCXX_VISIBILITY(default)` + `{` on the next line
  String.raw`(?:inline[ \t]+)?namespace(?:[ \t]+[A-Za-z_][\w:]*)?(?:[ \t]+[A-Za-z_]\w*(?:\([^)\n]*\))?)?[ \t]*(?:\{|$)`,
  String.raw`using[ \t]+(?:namespace[ \t]+)?[A-Za-z_]\w*(?:::|[ \t]*=)`,
  String.raw`(?:class|struct)[ \t]+(?:[A-Z_]+[ \t]+)?[A-Za-z_]\w*(?:[ \t]+final)?[ \t]*:[ \t]*(?:public|private|protected|virtual)?[ \t]*[A-Za-z_]`,
  String.raw`class[ \t]+(?:[A-Z_]+[ \t]+)?[A-Za-z_]\w*(?:[ \t]+final)?[ \t]*[{;]`,
  String.raw`(?:public|private|protected)[ \t]*:(?!:)`,
  String.raw`virtual[ \t]+[^;()\n]*\(`,
  String.raw`#[ \t]*include[ \t]*<[a-z_]+>`,
].join('|') + ')', 'm');

/** C++-only words anywhere (`constexpr` is C23 too, but C headers do not use it yet). */
const WORD_MARKERS = /\b(?:(?:static|dynamic|reinterpret|const)_cast[ \t]*<|noexcept\b|decltype\b|nullptr_t\b|constexpr\b|operator[ \t]*(?:==|!=|<=|>=|<<|>>|\(\)|\[\]|->|[-+*/%^&|~!=<>]|new\b|delete\b))/;

const isWordCode = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/** `Name::member` / `Name::~Name` (found with indexOf: a regex for it was 30× slower on kernel headers). */
function hasScopeOperator(text: string): boolean {
  for (let i = text.indexOf('::'); i >= 0; i = text.indexOf('::', i + 2)) {
    const after = text.charCodeAt(i + 2);
    if (isWordCode(text.charCodeAt(i - 1)) && (isWordCode(after) || after === 0x7e) && !(after >= 48 && after <= 57)) return true;
  }
  return false;
}

/** Any C++ marker in `text` (as it stands: comments and strings are the caller's business). */
export function hasCppMarker(text: string): boolean {
  return hasScopeOperator(text) || LINE_MARKERS.test(text) || WORD_MARKERS.test(text);
}

/**
 * A `__cplusplus` branch holding more than this share of the file's ink is C++ code of the
 * header's own, not a C header's linkage lines or C++ helpers (glibc's math.h, pthread.h: a
 * few percent).
 */
const MAX_GUARDED_SHARE = 0.5;

/** Non-blank characters of `s`. */
function inkOf(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x20) n++;
  return n;
}

/** `#if`-family directives and the `__cplusplus` test of one. */
const DIRECTIVE = /^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$/gm;
const CPLUSPLUS = /\b__cplusplus\b/;

/** Does the text of a `.h` file hold C++? */
export function looksLikeCppHeader(text: string): boolean {
  if (!hasCppMarker(text)) return false;
  return hasCppMarker(blankCppGuarded(blankCommentsAndStrings(text)));
}

/**
 * `text` with comments and the contents of string and character literals blanked (spaces;
 * newlines kept, so `^` still finds line starts).
 */
export function blankCommentsAndStrings(text: string): string {
  const out: string[] = [];
  let from = 0;
  const n = text.length;
  const blank = (a: number, b: number) => {
    out.push(text.slice(from, a), text.slice(a, b).replace(/[^\n]/g, ' '));
    from = b;
  };
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2f /* / */) {
      const d = text.charCodeAt(i + 1);
      if (d === 0x2f) {
        let e = text.indexOf('\n', i);
        if (e < 0) e = n;
        blank(i, e);
        i = e;
      } else if (d === 0x2a) {
        let e = text.indexOf('*/', i + 2);
        e = e < 0 ? n : e + 2;
        blank(i, e);
        i = e - 1;
      }
    } else if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
      let e = i + 1;
      while (e < n) {
        const x = text.charCodeAt(e);
        if (x === 0x5c) e += 2;
        else if (x === c || x === 0x0a) break;
        else e++;
      }
      blank(i + 1, Math.min(e, n));
      i = e;
    }
  }
  out.push(text.slice(from));
  return out.join('');
}

/**
 * `text` with the branches that only a C++ compiler reads blanked: the body of `#ifdef
 * __cplusplus` / `#if defined(__cplusplus)` / `#if __cplusplus >= …` up to its `#else`,
 * `#elif` or `#endif`, and the `#else` branch of `#ifndef __cplusplus`, when it holds at
 * most MAX_GUARDED_SHARE of the file's ink (an unterminated one stays). Nesting is followed.
 * Run on text whose comments are blanked already.
 */
export function blankCppGuarded(text: string): string {
  /** Per open `#if`: whether the current branch is C++-only, and whether it tested __cplusplus. */
  const stack: Array<{ cpp: boolean; tests: boolean; negated: boolean }> = [];
  let blankFrom = -1;
  const out: string[] = [];
  let from = 0;
  const inCpp = () => stack.some((s) => s.cpp);
  /** The text's ink (non-blank characters; comments are blanks by now), once a branch needs it. */
  let total: number | undefined;
  for (const m of text.matchAll(DIRECTIVE)) {
    const at = m.index!;
    const [kw, rest] = [m[1]!, m[2]!];
    const wasCpp = inCpp();
    if (kw === 'if' || kw === 'ifdef' || kw === 'ifndef') {
      const tests = CPLUSPLUS.test(rest);
      const negated = kw === 'ifndef' || (kw === 'if' && /!\s*defined\s*\(?\s*__cplusplus/.test(rest));
      stack.push({ cpp: tests && !negated, tests, negated });
    } else if (kw === 'elif' || kw === 'else') {
      const top = stack[stack.length - 1];
      if (top) top.cpp = top.tests && top.negated && kw === 'else';
    } else if (kw === 'endif') {
      stack.pop();
    }
    const nowCpp = inCpp();
    if (!wasCpp && nowCpp) blankFrom = at + m[0].length;
    else if (wasCpp && !nowCpp && blankFrom >= 0) {
      const branch = text.slice(blankFrom, at);
      // A C++-only branch that is most of the file is the header's code (libstdc++'s `#if
      // __cplusplus > 201703L` around a whole file), not a C header's C++ helpers: it stays.
      total ??= inkOf(text);
      if (inkOf(branch) <= total * MAX_GUARDED_SHARE) {
        out.push(text.slice(from, blankFrom), branch.replace(/[^\n]/g, ' '));
        from = at;
      }
      blankFrom = -1;
    }
  }
  out.push(text.slice(from));
  return out.join('');
}
