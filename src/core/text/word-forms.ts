/**
 * Word forms: when a question's word and a word of the code (an identifier part, a file or
 * directory name, a word of the text) are one word in two forms. The one place for these
 * rules; the FTS query builder (search/query.ts) and every signal that compares a question
 * word with a name or a path (search/rerank.ts `name`, `cover`, `spread`; search/signals.ts
 * `path`, `file_name`) use them.
 *
 * - lightStem strips one common suffix, so a word's stem is a prefix of its other forms
 *   (`allocates` → `allocat`, `proxies` → `prox`);
 * - iForms: a stem's forms whose final y is written i before a suffix (`proxy` → proxies,
 *   `copy` → copied, `lazy` → lazily), which the stem's prefix cannot find;
 * - sameWordForm: two forms sharing a long start (`compose` / `composition`).
 */

/** Suffixes lightStem strips, longest first. */
const STEM_SUFFIXES = ['ations', 'ation', 'ings', 'ing', 'ies', 'ied', 'ers', 'es', 'ed', 'er', 'ly', 's'];

/**
 * Light stem: strips one common English suffix, keeping at least 4 characters, so the
 * result is always a prefix of the word (`allocates` → `allocat`, `returns` → `return`).
 */
export function lightStem(word: string): string {
  if (word.length < 5) return word;
  for (const suffix of STEM_SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 4) return word.slice(0, -suffix.length);
  }
  return word;
}

/** Shortest stem whose final y iForms writes as i (`copy` → copies; not `key`, `any`). */
const I_FORM_MIN_CHARS = 4;

/** Letters before a final y that keep the y before a suffix (`keys`, `plays`, `displayed`, `buys`). */
const VOWELS = 'aeiou';

/** Does `stem` end in a consonant then y, the y written i before a suffix (`proxy`, `entry`, `copy`, `lazy`)? */
function endsInConsonantY(stem: string): boolean {
  const n = stem.length;
  return n >= I_FORM_MIN_CHARS && stem.charCodeAt(n - 1) === 121 /* y */ && !VOWELS.includes(stem[n - 2]);
}

/**
 * Suffixes after a final y written i (`proxies`, `copied`, `modifier`, `verifiers`,
 * `lazily`). Only these: the i form's prefix also starts other words (`appli` → application,
 * `proxi` → proximity, `repli` → replica), which are not forms of the word.
 */
const I_FORM_SUFFIXES = ['es', 'ed', 'er', 'ers', 'ly'];

/**
 * `stem`'s forms whose final y is written i before a suffix (`proxy` → proxies, proxied…;
 * `entry` → entries; `modify` → modified, modifier; `lazy` → lazily), or none when it keeps
 * its y (`key`, `display`) or has none. Its stem (a prefix of the word) does not find them:
 * `"proxy"*` never matches `proxies`.
 */
export function iForms(stem: string): string[] {
  if (!endsInConsonantY(stem)) return [];
  const i = stem.slice(0, -1) + 'i';
  return I_FORM_SUFFIXES.map((s) => i + s);
}

/** Is `w` one of iForms(`stem`) (`proxies` for `proxy`), without building them? */
export function isIForm(w: string, stem: string): boolean {
  const n = stem.length;
  if (w.length <= n || !endsInConsonantY(stem) || w.charCodeAt(n - 1) !== 105 /* i */) return false;
  for (let k = 0; k < n - 1; k++) if (w.charCodeAt(k) !== stem.charCodeAt(k)) return false;
  return I_FORM_SUFFIXES.includes(w.slice(n));
}

/** Shortest shared start of two words of one word form (`compose` / `composition`, `iterator` / `iteration`). */
const WORD_FORM_MIN_PREFIX = 6;

/**
 * Are `a` and `b` forms of one word beyond what lightStem strips: they share a start of at
 * least WORD_FORM_MIN_PREFIX characters that leaves at most two of the shorter one
 * (`compose` / `composition`, `iterator` / `iteration`, `validate` / `validation`), not
 * `general` / `generic` or `format` / `formal` (five).
 */
export function sameWordForm(a: string, b: string): boolean {
  const n = Math.min(a.length, b.length);
  if (n < WORD_FORM_MIN_PREFIX) return false;
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i >= WORD_FORM_MIN_PREFIX && i >= n - 2;
}
