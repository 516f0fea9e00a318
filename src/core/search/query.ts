/**
 * Query processing: turns raw user input into a ProcessedQuery — cleaned terms, identifier
 * parts, abbreviation expansions and a SAFE FTS5 MATCH string.
 *
 * Invariants:
 * - `processQuery` never throws, whatever the input (quotes, NUL, 10k chars, emoji, RTL…).
 * - `ftsQuery` is '' or a valid FTS5 expression: every term is a quoted FTS5 string (inner
 *   quotes doubled), joined by OR, with a `*` prefix marker outside the quotes. No bare
 *   operators, column filters or NEAR groups can reach FTS5.
 * - Identifier splitting is the same on both sides: `splitIdentifier` / `identifierTokens`
 *   fill the `names`, `path_words` and `tokens` columns at write time, and split the query
 *   here, so `user name` finds `getUserName`.
 */

import type { ChunkType } from '../types.ts';
import { COMPOUND_RE, splitIdentifier } from '../text/identifiers.ts';
import { lightStem } from '../text/word-forms.ts';
import { STOP_WORDS } from '../text/stop-words.ts';
import { isKnownExtension } from '../chunk/languages.ts';
import { symbolTargets } from './symbols.ts';
import type { Declared, FtsPhrase, PathQuery, ProcessedQuery } from './query-types.ts';

import {
  INNER_PREFIX_MIN_CHARS, MAX_EXPANDED_TERMS, MAX_INPUT_CHARS, MAX_TERM_CHARS, MAX_TERMS, NL_QUERY_WORDS, PREFIX_MIN_CHARS, STEM_FTS_TERMS,
} from '../config.ts';

export { INNER_PREFIX_MIN_CHARS, MAX_EXPANDED_TERMS, MAX_INPUT_CHARS, MAX_TERM_CHARS, MAX_TERMS, NL_QUERY_WORDS, PREFIX_MIN_CHARS, STEM_FTS_TERMS };

export type { Declared, FtsPhrase, ProcessedQuery } from './query-types.ts';

/** The chunk types of a function's own piece (a function or a method): the one list of them. */
const FUNCTION_KINDS: readonly ChunkType[] = ['function', 'method'];
/** Is a chunk of this type a function's own piece (FUNCTION_KINDS)? */
export function isFunctionKind(chunkType: string | null | undefined): boolean {
  return (FUNCTION_KINDS as readonly string[]).includes(chunkType ?? '');
}
/**
 * Declaration keywords of the languages Sift chunks, and the chunk types (types.ts) their
 * definitions get from the chunker. null: the keyword declares constants, variables, macros or
 * modules, which can be any chunk's `defines` or names; only the name is matched.
 */
const DECLARATION_KEYWORDS: ReadonlyMap<string, readonly ChunkType[] | null> = new Map<string, readonly ChunkType[] | null>([
  ['struct', ['struct', 'type', 'class']], ['union', ['struct', 'type']], ['enum', ['enum', 'type']],
  ['class', ['class', 'struct']], ['record', ['class', 'struct']], ['object', ['class']],
  ['interface', ['interface', 'type']], ['protocol', ['interface']], ['trait', ['interface', 'class']],
  ['type', ['type', 'struct', 'enum', 'interface', 'class']], ['typedef', ['type', 'struct', 'enum']],
  ['def', FUNCTION_KINDS], ['fn', FUNCTION_KINDS], ['fun', FUNCTION_KINDS], ['func', FUNCTION_KINDS], ['function', FUNCTION_KINDS],
  ['define', null], ['macro', null], ['macro_rules', null], ['const', null], ['static', null], ['let', null],
  ['var', null], ['val', null], ['module', null], ['mod', null], ['namespace', null],
]);
/** Words that may come before a declaration keyword (`pub fn`, `export default class`, `async def`). */
const DECLARATION_MODIFIERS = new Set([
  'export', 'default', 'pub', 'public', 'private', 'protected', 'internal', 'static', 'async', 'abstract',
  'final', 'sealed', 'open', 'data', 'inline', 'extern', 'unsafe', 'virtual', 'override', 'partial', 'readonly', 'declare',
]);
/**
 * A line that declares a name: comment markers (a doc's example), modifiers or other keywords
 * (`pub const fn`, `export default function`, `local function`), a declaration keyword, the
 * name (group 1). What bm25.ts textDefinitions reads a definition the parse did not record by.
 */
export const DECLARATION_LINE_SOURCE = `^[ \\t]*(?:(?:///?|//!|#|\\*|>>>|\\.\\.\\.|--)[ \\t]*)?(?:(?:${[...DECLARATION_MODIFIERS, ...DECLARATION_KEYWORDS.keys(), 'local', 'pub', 'private'].join('|')})(?:\\([^)\\n]*\\))?[ \\t]+)*(?:${[...DECLARATION_KEYWORDS.keys()].join('|')})!?[ \\t]+`;
const DECLARED_NAME_RE = /^[\p{L}_$][\p{L}\p{N}_$]*(?:(?:::|->|[.#])[\p{L}_$][\p{L}\p{N}_$]*)*$/u;

/**
 * A Go method as declared: `func (b *Buffer) Write`, `func (l *List[T]) Len(`; groups: receiver
 * type, method. Matched on the text with each whitespace run made one space, so every ` ?` has
 * one character to take and the match stays linear in the query's length.
 */
const GO_METHOD_RE = /^ ?func ?\( ?(?:[\p{L}_][\p{L}\p{N}_]* )?\*? ?([\p{L}_][\p{L}\p{N}_]*) ?(?:\[[^\]]*\])? ?\) ?([\p{L}_][\p{L}\p{N}_]*) ?(?:\(.*)?$/u;

/**
 * The query (`text` and its `words` as typed) read as a declaration: modifiers, one keyword,
 * one name; or a Go method's `func (recv) Name`, whose name is `Recv.Name`; else null.
 */
function declaredIn(words: readonly string[], text: string): Declared | null {
  const method = GO_METHOD_RE.exec(text.replace(/\s+/g, ' '));
  if (method) return { keyword: 'func', name: `${method[1]}.${method[2]}`, kinds: FUNCTION_KINDS };
  if (words.length < 2) return null;
  const name = words[words.length - 1];
  const keyword = words[words.length - 2].toLowerCase();
  if (!DECLARATION_KEYWORDS.has(keyword) || !DECLARED_NAME_RE.test(name)) return null;
  if (!words.slice(0, -2).every((w) => DECLARATION_MODIFIERS.has(w.toLowerCase()))) return null;
  return { keyword, name, kinds: DECLARATION_KEYWORDS.get(keyword) ?? null };
}

/** Words that say a question asks where a name is defined (besides declaration keywords and stop words). */
const DEFINITION_CUES = new Set([
  'defined', 'define', 'defines', 'definition', 'definitions', 'declared', 'declares', 'implements', 'declaration', 'declare', 'implemented', 'implementation',
  'located', 'lives', 'live', 'find', 'locate', 'source', 'file', 'is', 'method', 'methods', 'constructor', 'macro',
  'module', 'package', 'trait', 'protocol', 'struct', 'class', 'interface', 'enum', 'type', 'typedef', 'function', 'object', 'record', 'union',
  'func', 'fn', 'def', 'fun',
]);
/** Definition cues that ask for the definition of the one other word, whatever its shape (namedIn). */
const DEFINITION_ASKED = new Set(['defined', 'define', 'defines', 'definition', 'definitions', 'declared', 'declaration', 'implemented', 'implementation']);
const GERUND_RE = /^[a-z]{2,}ing$/;
/** Cue nouns that are also names in code (`struct file`, `class Source`). */
const CUE_NOUNS = new Set(['file', 'source']);
/** A cue word that names the kind of definition asked for → the declaration keyword with those kinds. */
const CUE_KEYWORDS: Readonly<Record<string, string>> = {
  method: 'func', methods: 'func', function: 'func', constructor: 'func', func: 'func', fn: 'func', def: 'func', fun: 'func',
  class: 'class', struct: 'struct', trait: 'trait', protocol: 'protocol', interface: 'interface', enum: 'enum', type: 'type',
  typedef: 'typedef', object: 'object', record: 'record', union: 'union', module: 'module', package: 'module', macro: 'macro',
};

/**
 * A question about where one name is defined, read as a declaration: "where is the Router
 * class defined", "the ArgMatches struct", "where is Plug.Conn defined", "`find_subcommand`
 * method". The name is a code-shaped word (`ArgMatches`, `parse_args`, `Plug.Conn`,
 * `Module::Class`), a capitalised word (`Router`), a word right after a kind cue (`struct page`)
 * or one in backticks; every other word is a
 * stop word or a definition cue. A kind cue (`class`, `struct`, `method`) is the keyword.
 */
function namedIn(words: readonly string[], text: string): Declared | null {
  if (words.length < 2 || words.length > 8) return null;
  const quoted = /`([^`\s]+)`/u.exec(text)?.[1] ?? null;
  // "where is pipe defined", "definition of interpret", "infof implementation": with a cue that
  // asks for a definition, a plain word is the name as code writes it; not an activity ("where
  // is logging defined", "where is caching implemented": a concept, asked in prose).
  const definitionAsked = words.some((w) => DEFINITION_ASKED.has(w.toLowerCase()));
  let name: string | null = null;
  let keyword: string | null = null;
  for (const [i, w] of words.entries()) {
    const lower = w.toLowerCase();
    // A capitalised first word is how a sentence starts, not a name (unless code-shaped). A
    // plain word right after a kind cue is a name as code writes it: `struct page`, `class config`.
    const afterKind = i > 0 && Object.hasOwn(CUE_KEYWORDS, words[i - 1].toLowerCase());
    const shaped = COMPOUND_RE.test(w) || (i > 0 && /^\p{Lu}/u.test(w)) || afterKind || (definitionAsked && !GERUND_RE.test(w));
    // `struct file`: a cue noun right after a kind is the name ("which file defines X" elsewhere).
    const cue = DEFINITION_CUES.has(lower) && !(afterKind && CUE_NOUNS.has(lower));
    if (quoted === w || (DECLARED_NAME_RE.test(w) && shaped && !STOP_WORDS.has(lower) && !cue)) {
      if (name !== null) return null; // two names: a question about both, not a lookup
      name = w;
      continue;
    }
    if (DEFINITION_CUES.has(lower)) {
      keyword ??= CUE_KEYWORDS[lower] ?? null;
      continue;
    }
    if (!STOP_WORDS.has(lower)) return null;
  }
  if (name === null || !DECLARED_NAME_RE.test(name)) return null;
  return { keyword: keyword ?? 'name', name, kinds: keyword ? DECLARATION_KEYWORDS.get(keyword) ?? null : null };
}

/** A word of a query: identifier characters, optionally joined by `::`, `->`, `.`, `-`, `#`, `/`. */
const QUERY_WORD_RE = /[\p{L}\p{N}\p{M}_$]+(?:(?:::|->|[.\-#/])[\p{L}\p{N}\p{M}_$]+)*/gu;
/**
 * What joins the names of a query word (QUERY_WORD_RE's separators): symbols.ts QUALIFIER_RE's
 * and also `-` and `/` (`DataTable/DataSet`), which name no parent of a definition.
 */
const WORD_JOINER_RE = /::|->|[.\-#/]/;
const HAS_WORD_CHAR_RE = /[\p{L}\p{N}]/u;
const CONTROL_RE = /[\p{Cc}\p{Cf}\p{Cs}]/gu;

/** Short form → long forms. Expanded both ways (long → short via the reverse map). */
const ABBREVIATIONS: Record<string, string[]> = {
  addr: ['address'], alloc: ['allocate', 'allocation', 'allocator'], arg: ['argument'],
  args: ['arguments'], arr: ['array'], async: ['asynchronous'], attr: ['attribute'],
  auth: ['authentication', 'authorization'], btn: ['button'], buf: ['buffer'],
  calc: ['calculate'], cb: ['callback'], cfg: ['config', 'configuration'], char: ['character'],
  cmd: ['command'], cmp: ['compare'], cnt: ['count'], conf: ['config', 'configuration'],
  config: ['configuration'], conn: ['connection'], ctx: ['context'], cur: ['current'],
  db: ['database'], dec: ['decrement', 'decode'], def: ['define', 'definition'], del: ['delete'],
  dest: ['destination'], dev: ['device', 'development'], dict: ['dictionary'], dir: ['directory'],
  doc: ['document', 'documentation'], dst: ['destination'], elem: ['element'], env: ['environment'],
  err: ['error'], evt: ['event'], exec: ['execute'], expr: ['expression'], ext: ['extension'],
  fd: ['file descriptor'], fmt: ['format'], fn: ['function'], func: ['function'],
  gen: ['generate', 'generator'], hdr: ['header'], idx: ['index'], impl: ['implementation'],
  inc: ['increment'], info: ['information'], init: ['initialize', 'initialise', 'initialization'],
  iter: ['iterator'], kb: ['keyboard'], len: ['length'], lib: ['library'], lng: ['language'],
  mem: ['memory'], mgr: ['manager'], msg: ['message'], mut: ['mutable'], mutex: ['lock'],
  num: ['number'], obj: ['object'], opt: ['option'], opts: ['options'], param: ['parameter'],
  params: ['parameters'], pkg: ['package'], pos: ['position'], prev: ['previous'],
  proc: ['process', 'procedure'], prop: ['property'], props: ['properties'], ptr: ['pointer'],
  pwd: ['password'], ref: ['reference'], regex: ['regular expression'], repo: ['repository'],
  req: ['request'], res: ['response', 'result'], resp: ['response'], ret: ['return'],
  sched: ['scheduler', 'schedule'], sig: ['signal', 'signature'], src: ['source'],
  srv: ['server'], stmt: ['statement'], str: ['string'], sync: ['synchronize'], sys: ['system'],
  tbl: ['table'], temp: ['temporary'], tmp: ['temporary'], tx: ['transaction'],
  txn: ['transaction'], usr: ['user'], util: ['utility'], utils: ['utilities'], val: ['value'],
  var: ['variable'], vec: ['vector'], win: ['window'],
  cert: ['certificate'], dep: ['dependency'], deps: ['dependencies'], dup: ['duplicate'], hist: ['history'],
  img: ['image'], lang: ['language'], max: ['maximum'], min: ['minimum'], nav: ['navigation'],
  perm: ['permission'], pkt: ['packet'], pref: ['preference'], prefs: ['preferences'], recv: ['receive'],
  seq: ['sequence'], sess: ['session'], tmpl: ['template'], tok: ['token'],
};

const REVERSE_ABBREVIATIONS: Map<string, string[]> = (() => {
  const reverse = new Map<string, string[]>();
  for (const [short, longs] of Object.entries(ABBREVIATIONS)) {
    for (const long of longs) {
      const list = reverse.get(long) ?? [];
      if (!list.includes(short)) list.push(short);
      reverse.set(long, list);
    }
  }
  return reverse;
})();

/** Words that open the object of a doc comment's verb: "Returns the…", "Checks whether…". */
const DOC_OBJECT_WORDS = new Set(['a', 'an', 'the', 'this', 'these', 'those', 'whether', 'true', 'false', 'all', 'each', 'every', 'given', 'its', 'one', 'new', 'no']);
/** After the opening verb only ("Checks if…", "Converts from…"): after `Name verb` they open clauses ("messages if…", "actions to…"). */
const DOC_OBJECT_WORDS_FIRST = new Set([...DOC_OBJECT_WORDS, 'if', 'how', 'what', 'which', 'from', 'to', 'some', 'any']);
/**
 * The imperative verbs a Python docstring or a command-style doc comment opens with (PEP 257:
 * "Return the pathname…"): what a function computes, never what a change does (commit subjects
 * open with "Add", "Fix", "Use", "Make"…).
 */
const DOC_IMPERATIVE_VERBS = new Set([
  'return', 'compute', 'calculate', 'convert', 'determine', 'check', 'test', 'get', 'create', 'construct', 'parse', 'read', 'write', 'find', 'build', 'count', 'decode', 'encode',
  // PEP 257 summaries of what a call does; not the verbs commit subjects open with (add, remove, fix, make, use, update, clear).
  'set', 'copy', 'send', 'register', 'load', 'start', 'close', 'run', 'produce', 'delete', 'insert', 'append', 'open', 'format', 'print',
  'split', 'join', 'search', 'apply', 'call', 'initialize', 'reset', 'validate', 'extract', 'wait', 'emit', 'acquire', 'release', 'flush',
]);
/** A verb in the third person singular (`returns`, `checks`, `applies`), not `class`, `status`, `analysis`. */
const THIRD_PERSON_RE = /^\p{Ll}{2,}(?<![sui])s$/u;
/** Words THIRD_PERSON_RE takes that are not a verb of a function's doing. */
const NOT_VERBS = new Set(['does', 'has', 'was', 'its', 'yes', 'always', 'sometimes', 'perhaps', 'towards', 'afterwards', 'besides', 'whereas']);
const IDENTIFIER_WORD_RE = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/**
 * Does the question read as the first sentence of one function's doc comment: a verb in the
 * third person or a docstring imperative, then its object ("Returns the number of…", "Checks
 * whether a node…", "Return the canonical form…"), optionally after the function's own name
 * (Go: "NewReader returns a new Reader…")? Such a question asks for one function, not a file:
 * results.ts keeps its best pieces in score order (no diversity). Questions about a file, a
 * concept or a change ("how plugins are loaded", "Add unsigned numbers extensions") do not.
 */
export function describesFunction(input: string): boolean {
  const words = clean(input).split(/\s+/).filter(Boolean).slice(0, 3);
  const opens = (i: number): boolean => {
    const verb = words[i]?.toLowerCase();
    const next = words[i + 1]?.toLowerCase();
    // A code span opens an object too: "Returns `true` if…", "Sets `count * size_of::<T>()` bytes…".
    const object = !!next && ((i ? DOC_OBJECT_WORDS : DOC_OBJECT_WORDS_FIRST).has(next) || next.startsWith('`'));
    if (!verb || !object) return false;
    // An imperative opens a docstring's sentence with its capital (PEP 257: "Return the…");
    // a commit subject's often does not ("set `argv0` when…", "run `init()` before…").
    return (DOC_IMPERATIVE_VERBS.has(verb) && /^\p{Lu}/u.test(words[i])) || (THIRD_PERSON_RE.test(verb) && !NOT_VERBS.has(verb));
  };
  // Else `Name verbs …`: the first word a function's name (identifier-shaped).
  return opens(0) || (IDENTIFIER_WORD_RE.test(words[0] ?? '') && opens(1));
}

/** Fewest words of a sentence that reads as a doc comment by its capital and its full stop alone (readsAsDocComment). */
const DOC_SENTENCE_MIN_WORDS = 3;

/**
 * Does the question open like a function's doc comment in any form: describesFunction, any
 * sentence of three words or more with its capital and its full stop, or a name and a verb in
 * the third person whatever follows, the name code-shaped or the question a sentence with its
 * full stop ("Read copies bytes from the buffer into p.", "init initializes conf.", "LookupGroup
 * looks up a group by name.", "lookupTypeParam searches…"). Such a question is about what one
 * function does, not about a file named for its words: the keyword leg gives it no `file_name`
 * (signals.ts). Wider than describesFunction, which also keeps a question's pieces in score
 * order: "Handle errors when…" reads this way too.
 */
export function readsAsDocComment(input: string): boolean {
  if (describesFunction(input)) return true;
  const text = clean(input).trim();
  // A sentence of a few words with its capital and its full stop: a doc comment's first sentence
  // whatever its first word ("Return internal state; can be passed to setstate() later.", "Access
  // an entry by hash."). Questions and commit subjects are written without the stop (none of the
  // 4,362 of the repository evals has it); a question written lower-case with one ("converting a
  // schema into a JSON Schema document.") still reads as a question: asked of every eval question
  // with a stop added, the lower-case ones lost 0.017 NDCG@10 when they read as doc comments.
  const words = text.split(/\s+/);
  if (/^\p{Lu}/u.test(text) && text.endsWith('.') && words.length >= DOC_SENTENCE_MIN_WORDS) return true;
  const [name, verb] = words;
  if (!verb || !IDENTIFIER_WORD_RE.test(name) || !THIRD_PERSON_RE.test(verb) || NOT_VERBS.has(verb)) return false;
  // The name is code-shaped (`lookupTypeParam`, `read_all`), or the question is a sentence with
  // its full stop, as a doc comment writes it: "german translations of…" is a noun phrase.
  return COMPOUND_RE.test(name) || text.endsWith('.');
}

/**
 * Does a query name code — one identifier, a declaration (`struct foo`), a function's doc
 * comment (`docComment`: readsAsDocComment)? Its answer is code whatever its words
 * (text/file-kind.ts intentOfQuery's `namesCode`).
 */
export function namesCodeOf(pq: Pick<ProcessedQuery, 'isIdentifierLike' | 'declared' | 'docComment'>): boolean {
  return pq.isIdentifierLike || !!pq.declared || pq.docComment;
}

/**
 * The terms a file's name is compared with (signals.ts `file_name`): a question's terms less the
 * parts of an identifier it writes that it does not write as words of their own. In "how the
 * browser adapter builds an XMLHttpRequest" `http` is no word of the question, and `http.js` is
 * not the file it names (`xhr.js` is); in "MissingJsonContentType rejection" `json` is no word
 * of the question either. A one-identifier query keeps every term: its parts are all it says
 * (`ParseMediaType` → `mediatype.go`). Repos eval in process (49 repositories, session 14):
 * 0.7578 → 0.7588, 19 questions better, 13 worse.
 */
export function fileNameTerms(pq: Pick<ProcessedQuery, 'terms' | 'identifiers' | 'original' | 'isIdentifierLike'>): readonly string[] {
  if (!pq.identifiers.length || pq.isIdentifierLike) return pq.terms;
  const written = new Set(pq.original.toLowerCase().split(/[^\p{L}\p{N}]+/u));
  const partsOnly = new Set<string>();
  for (const id of pq.identifiers) for (const p of splitIdentifier(id)) if (!written.has(p.toLowerCase())) partsOnly.add(p.toLowerCase());
  return partsOnly.size ? pq.terms.filter((t) => !partsOnly.has(t)) : pq.terms;
}

/** Abbreviation expansions of one lower-case term (not including the term itself). */
export function expandAbbreviation(term: string): string[] {
  const out: string[] = [];
  const forward = Object.prototype.hasOwnProperty.call(ABBREVIATIONS, term) ? ABBREVIATIONS[term] : undefined;
  for (const t of forward ?? []) if (t !== term) out.push(t);
  for (const t of REVERSE_ABBREVIATIONS.get(term) ?? []) if (t !== term && !out.includes(t)) out.push(t);
  return out;
}

/**
 * Words a file or directory name writes for a prose word the code does not use (issue 35 class
 * 6): a human language by its ISO 639-1 code (`german` → `de.ts`, `locales/pt-BR.ts`), and
 * translations by the names projects give their folders (`locale`, `i18n`). Conventions, not
 * synonyms picked for questions: the issue's own examples ("reply" → response, "dispatch" →
 * router) and "patterns" → regexes (from reading one repository's misses) are left out, as any
 * synonym list would be tuned to the questions that suggested it. One direction, query word →
 * path word, and only for the path signals (signals.ts `path`, `file_name`) and as phrases on
 * the path column: never FTS terms over the text, where `de` would match every text.
 */
const PATH_NAMES: Record<string, string[]> = {
  // ISO 639-1: the languages a project's translations are most often named for.
  arabic: ['ar'], bulgarian: ['bg'], catalan: ['ca'], chinese: ['zh'], czech: ['cs'], danish: ['da'],
  dutch: ['nl'], english: ['en'], finnish: ['fi'], french: ['fr'], german: ['de'], greek: ['el'],
  hebrew: ['he'], hindi: ['hi'], hungarian: ['hu'], indonesian: ['id'], italian: ['it'],
  japanese: ['ja'], korean: ['ko'], norwegian: ['no', 'nb'], persian: ['fa'], polish: ['pl'],
  portuguese: ['pt'], romanian: ['ro'], russian: ['ru'], spanish: ['es'], swedish: ['sv'],
  thai: ['th'], turkish: ['tr'], ukrainian: ['uk', 'ua'], vietnamese: ['vi'],
  translation: ['locale', 'locales', 'i18n', 'l10n'], localization: ['locale', 'locales', 'i18n', 'l10n'],
};

/** PATH_NAMES by the light stem of each word (`translations`, `translation` → `transl`). */
const PATH_NAMES_BY_STEM: Map<string, string[]> = new Map(Object.entries(PATH_NAMES).map(([w, names]) => [lightStem(w), names]));

/** The words a path writes for lower-case `term` (PATH_NAMES, by its light stem); not including the term. */
export function pathNamesFor(term: string): string[] {
  return PATH_NAMES_BY_STEM.get(lightStem(term)) ?? [];
}

/** The FTS5 token a phrase's prefix marker applies to: the term's last run of letters and digits. */
const LAST_TOKEN_RE = /[\p{L}\p{N}\p{M}]*$/u;

/**
 * Quote a term as an FTS5 string; add the prefix marker outside the quotes when its last
 * token is long enough (PREFIX_MIN_CHARS for the query's last word as typed,
 * INNER_PREFIX_MIN_CHARS for any other) or was stemmed (`p.returns` → `"p.return"*`). The
 * marker applies to that token only, so `"substring_t"*` is `substring` then any token
 * starting with `t`: every t… doclist merged (kernel: ~0.5 s a statement), for what
 * `"substring_t"` finds. For the same reason only the last token is stemmed, by lightStem's
 * own rule (it keeps 4+ characters): stemming the whole `…_spi0_cs` gave `"…_spi0_c"*` (every
 * c… doclist: 0.6 s a statement on the kernel), `…_rng_seed` gave `"…_rng_se"*`.
 */
function ftsTerm(term: string, lastWord: string | null): string {
  const min = term === lastWord ? PREFIX_MIN_CHARS : INNER_PREFIX_MIN_CHARS;
  const last = LAST_TOKEN_RE.exec(term)![0];
  const stem = STEM_FTS_TERMS ? term.slice(0, term.length - last.length) + lightStem(last) : term;
  const quoted = quoteFts(stem);
  return stem !== term || last.length >= min ? `${quoted}*` : quoted;
}

function quoteFts(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

function clean(input: unknown): string {
  const s = typeof input === 'string' ? input : String(input ?? '');
  return s.slice(0, MAX_INPUT_CHARS).replace(CONTROL_RE, ' ');
}

export function processQuery(input: string): ProcessedQuery {
  const original = typeof input === 'string' ? input : String(input ?? '');
  const text = clean(input);
  const words = (text.match(QUERY_WORD_RE) ?? []).slice(0, MAX_TERMS);

  const identifiers: string[] = [];
  const wholeTerms: string[] = [];
  const partTerms: string[] = [];
  for (const word of words) {
    const lower = word.toLowerCase().slice(0, MAX_TERM_CHARS);
    if (COMPOUND_RE.test(word)) {
      if (!identifiers.includes(word)) identifiers.push(word);
      wholeTerms.push(lower);
      // In prose, each name of a qualified or slash-joined one is a word of its own
      // (`DataTable/DataSet` → datatable, dataset; `JsonSerializer.Binder` → jsonserializer).
      if (words.length > 1) for (const seg of lower.split(WORD_JOINER_RE)) if (seg && seg !== lower) partTerms.push(seg.slice(0, MAX_TERM_CHARS));
      for (const part of splitIdentifier(word)) partTerms.push(part.slice(0, MAX_TERM_CHARS));
    } else {
      wholeTerms.push(lower);
    }
  }

  let terms = dedup([...wholeTerms, ...partTerms]).filter((t) => HAS_WORD_CHAR_RE.test(t));
  const withoutStop = terms.filter((t) => !STOP_WORDS.has(t));
  if (withoutStop.length > 0) terms = withoutStop;
  terms = terms.slice(0, MAX_TERMS);

  const expanded = [...terms];
  /** The term each expansion came from (its group). */
  const groupOf = new Map<string, string>(terms.map((t) => [t, t]));
  // A prose query (NL_QUERY_WORDS+ words) is not expanded: its words are already the long
  // forms, and OR-ing every expansion at full weight adds more noise than matches.
  if (words.length < NL_QUERY_WORDS) {
    for (const t of terms) {
      for (const e of expandAbbreviation(t)) {
        if (expanded.includes(e)) continue;
        expanded.push(e);
        groupOf.set(e, t);
      }
    }
  }
  const expandedTerms = expanded.slice(0, MAX_EXPANDED_TERMS);

  const lastWord = words.length ? words[words.length - 1].toLowerCase().slice(0, MAX_TERM_CHARS) : null;
  const single = words.length === 1 ? words[0] : null;
  const isIdentifierLike =
    single !== null && (identifiers.length === 1 || /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(single)) && terms.length > 0;

  const pq: Omit<ProcessedQuery, 'targets'> = {
    original,
    docComment: readsAsDocComment(original),
    terms,
    words: dedup([...wholeTerms, ...partTerms]).filter((t) => HAS_WORD_CHAR_RE.test(t)),
    expandedTerms,
    identifiers,
    ftsQuery: expandedTerms.map((t) => ftsTerm(t, lastWord)).join(' OR '),
    ftsGroups: groupPhrases(expandedTerms, groupOf, lastWord),
    isIdentifierLike,
    declared: declaredIn(words, text) ?? namedIn(words, text),
    literal: literalOf(text, words),
    acronyms: acronymsOf(text, terms),
    phrase: phraseOf(words, text),
    pathQuery: pathQueryOf(text, original),
  };
  return { ...pq, targets: symbolTargets(pq) };
}

/**
 * expandedTerms' FTS phrases grouped by the term they came from, in term order. A term's
 * path names (pathNamesFor: `german` → `de`) join its group restricted to the path column
 * (`path_words : "de"`), so the file named for it is a candidate: in every other column
 * `de` or `re` is a word of any text. A word's other forms are not fetched here: a phrase for
 * a final y written i (`proxies`) in the name columns was measured and not kept (docs/ranking.md,
 * ninth round: morph); the signals match those forms on the candidates (text/word-forms.ts).
 */
function groupPhrases(expandedTerms: string[], groupOf: Map<string, string>, lastWord: string | null): FtsPhrase[][] {
  const groups = new Map<string, FtsPhrase[]>();
  for (const t of expandedTerms) {
    const key = groupOf.get(t) ?? t;
    const list = groups.get(key) ?? [];
    list.push({ phrase: ftsTerm(t, lastWord), word: quoteFts(t) });
    groups.set(key, list);
  }
  for (const [key, list] of groups) {
    for (const name of pathNamesFor(key)) list.push({ phrase: `path_words : ${quoteFts(name)}`, word: quoteFts(name) });
  }
  return [...groups.values()];
}

/** Words that do not open or close an acronym's run: articles, prepositions, conjunctions, pronouns. */
const ACRONYM_FUNCTION_WORDS = new Set(['a', 'an', 'the', 'to', 'of', 'in', 'on', 'for', 'by', 'and', 'or', 'with', 'at', 'from', 'as', 'is', 'are', 'it', 'its', 'be', 'into', 'that', 'this', 'how', 'what', 'where', 'when', 'which', 'who', 'why', 'does', 'do', 'i', 'we', 'you']);
const edgeWord = (w: string): boolean => w.length >= 3 && !ACRONYM_FUNCTION_WORDS.has(w);
/**
 * Initials that spell a folder every layout has, not a topic: "splitting raw command" is no
 * question about `src/`.
 */
const LAYOUT_WORDS = new Set(['src', 'lib', 'bin', 'pkg', 'cmd', 'app', 'api', 'doc', 'docs', 'dist', 'out', 'test', 'spec', 'main', 'core', 'util', 'tmp', 'gen', 'web', 'www', 'ext', 'res', 'sys']);

/** Runs of this many words make an acronym (ProcessedQuery.acronyms): 3 and 4 letters. */
const ACRONYM_WORDS = [3, 4];

/**
 * ProcessedQuery.acronyms: the initials of each run of 3-4 consecutive words of the question
 * (letters only, joined by spaces or hyphens; first and last of 3+ letters and not function words), by each of the
 * run's words among `terms`: "push server sent events" → sse for server, sent and events;
 * "time to live" → ttl; "least recently used" → lru. A path that writes the initials as a word
 * (`http/sse/SseClient.kt`, `lru.go`) names those words.
 */
export function acronymsOf(text: string, terms: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>; // words such as `constructor` are keys
  const words = text.toLowerCase().split(/[\s-]+/u).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
  const content = new Set(terms);
  for (const n of ACRONYM_WORDS) {
    for (let i = 0; i + n <= words.length; i++) {
      const run = words.slice(i, i + n);
      if (run.some((w) => !/^\p{L}+$/u.test(w)) || !edgeWord(run[0]) || !edgeWord(run[n - 1])) continue;
      const initials = run.map((w) => w[0]).join('');
      if (LAYOUT_WORDS.has(initials)) continue;
      for (const w of run) {
        if (!content.has(w)) continue;
        const list = (out[w] ??= []);
        if (!list.includes(initials)) list.push(initials);
      }
    }
  }
  return out;
}

/**
 * ProcessedQuery.phrase: the words of a query that may be text copied from the code, as one FTS5
 * phrase: PHRASE_MIN_WORDS to PHRASE_MAX_WORDS words, at least one of them not a stop word, and
 * not opening as a question does ("how …", "where is …", "what does …"), whose words are the
 * asker's own; or the words the query puts in double quotes (two or more), whatever it is. Users
 * paste error messages ("Cannot override method on final class"), log lines and sentences of
 * comments; the piece that holds them verbatim is what they look for.
 */
function phraseOf(words: readonly string[], text: string): string | null {
  // Words in double quotes ask for that phrase, in any query: `where is "connection refused" logged`.
  const quoted = QUOTED_RE.exec(text)?.[1];
  if (quoted !== undefined) {
    // Its tokens as FTS5 reads them: `"retry-after"` is the phrase `retry after`.
    const inner = (quoted.match(/[\p{L}\p{N}_$]+/gu) ?? []).slice(0, PHRASE_MAX_WORDS);
    if (inner.length >= 2 && !inner.every((w) => STOP_WORDS.has(w.toLowerCase()))) return quoteFts(inner.join(' ').toLowerCase());
  }
  if (words.length < PHRASE_MIN_WORDS || words.length > PHRASE_MAX_WORDS) return null;
  if (QUESTION_OPENERS.has(words[0].toLowerCase())) return null;
  if (words.every((w) => STOP_WORDS.has(w.toLowerCase()))) return null;
  return quoteFts(words.join(' ').toLowerCase());
}

/**
 * ProcessedQuery.pathQuery: a query of one word that names a file as a path does — a file name
 * with a known extension (`sizes.test.ts`, `end_to_end.rs`, `package.json`) or a path of two or
 * more parts (`middlewares/proxy`, `src/core/query.ts`), or any name asked for as a file ("end_to_end
 * file", "the cfg file": its stem, any extension). `Value.Diff` or `flask.g` end in no
 * extension: names, not files. A URL is no path. Whether a file has that name is the index's to
 * say (bm25.ts filesNamed): a path-shaped name no file has changes nothing.
 */
function pathQueryOf(text: string, original: string): PathQuery | null {
  // The query as typed: a pasted trace's line breaks say it is one.
  const located = locatedIn(original);
  if (located) return located;
  // "sizes.test file", "the end_to_end file", "file cfg": the word is the file's name.
  const asked = FILE_NAMED_RE.exec(text.trim());
  const t = (asked ? asked[1] ?? asked[2] : text.trim()).replace(/^\.?\//, '');
  if (!t || t.length > MAX_PATH_QUERY_CHARS || !PATH_QUERY_RE.test(t) || t.includes('://')) return null;
  const extension = hasKnownExtension(t);
  if (!extension && !t.includes('/') && !asked) return null;
  if (!/\p{L}/u.test(t.slice(t.lastIndexOf('/') + 1))) return null;
  return { path: t.toLowerCase(), extension };
}

/** Does the last part of `path` end in an extension Sift knows (`a/sizes.test.ts`: `ts`)? */
function hasKnownExtension(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 && isKnownExtension(base.slice(dot + 1));
}

/**
 * A file and a line written as a stack trace or a compiler writes them, anywhere in the query:
 * `src/foo.ts:120`, `foo.py:12:5`, `at f (/home/me/app/src/a.ts:10:5)`, `Bar.java:42)`,
 * `File "/usr/lib/x/linegen.py", line 123, in visit`, `/go/src/app/main.go:42 +0x1d`. The path
 * may start outside the codebase (an absolute path): bm25.ts filesNamed matches its end.
 */
function locatedIn(text: string): PathQuery | null {
  if (text.length > MAX_TRACE_CHARS) return null;
  const py = PYTHON_FRAME_RE.exec(text);
  // In one word, or in a pasted trace (its lines, `at f (…)`, `Bar.java:42)`); not in a question
  // that writes a file and line as an example ("when the argument looks like file.test.ts:42").
  const trace = !/\s/.test(text.trim()) || text.includes('\n') || /\bat\s+(?:[^\s(]+\s+)?\(?\S+:\d+|\(\S+:\d+/.test(text);
  const m = py ?? (trace ? FILE_LINE_RE.exec(text) : null);
  if (!m) return null;
  const path = m[1].replace(/^\.?\//, '').replace(/^[A-Za-z]:[\\/]/, '').replace(/\\/g, '/').toLowerCase();
  if (!hasKnownExtension(path)) return null;
  const line = Number(m[2]);
  return Number.isSafeInteger(line) && line > 0 ? { path, extension: true, line } : null;
}
/** `path.ext:line` (a colon and a column may follow), as compilers and stack traces write it. */
const FILE_LINE_RE = /(?:^|[\s("'=[])((?:[A-Za-z]:[\\/])?[\p{L}\p{N}_.@$+~\\/-]*[\p{L}\p{N}_$+~-]\.[A-Za-z0-9+]{1,10}):(\d{1,7})\b/u;
/** Python's traceback frame: `File "path", line N`. */
const PYTHON_FRAME_RE = /\bFile "([^"\n]{1,400})", line (\d{1,7})\b/;
/** Longest query read for a file and line (a pasted traceback is longer than a question). */
const MAX_TRACE_CHARS = 4000;
/** "X file", "the X file", "file X": a query that asks for the file named X. */
const FILE_NAMED_RE = /^(?:the\s+)?(\S+)\s+file$|^file\s+(\S+)$/i;
/** Characters of a path query: no white space, no quotes or brackets; `/`-separated parts. */
const PATH_QUERY_RE = /^[\p{L}\p{N}_.@$+~-]+(?:\/[\p{L}\p{N}_.@$+~-]+)*$/u;
const MAX_PATH_QUERY_CHARS = 300;

/** The first double-quoted run of a query (ProcessedQuery.phrase). */
const QUOTED_RE = /"([^"\n]{1,400})"/;
/** A phrase query takes this many words at least and at most (ProcessedQuery.phrase). */
const PHRASE_MIN_WORDS = 4;
const PHRASE_MAX_WORDS = 16;
/** First words of a question (ProcessedQuery.phrase: its words are no quotation of the code). */
const QUESTION_OPENERS = new Set(['how', 'where', 'what', 'which', 'when', 'why', 'who', 'does', 'do', 'is', 'are', 'can', 'should', 'find', 'show']);

/** Longest literal query kept (ProcessedQuery.literal): an operator, a punctuation run. */
const MAX_LITERAL_CHARS = 64;

/**
 * ProcessedQuery.literal: the text of a query with no letter or digit; or the one operator of a
 * question about it ("where is :<|> defined", "what does `>>=` do", "the <$> operator"): an
 * operator of 2+ characters (in backticks or not) whose every other word is a stop word, a
 * definition cue or a word that asks what it does; else null.
 */
function literalOf(text: string, words: readonly string[]): string | null {
  if (HAS_WORD_CHAR_RE.test(text)) {
    const operators = text.split(/\s+/).map((t) => t.replace(/^`|`[?.,]?$|[?,]$/g, '')).filter((t) => t.length >= 2 && !HAS_WORD_CHAR_RE.test(t));
    if (operators.length !== 1 || operators[0].length > MAX_LITERAL_CHARS) return null;
    const asks = words.filter((w) => HAS_WORD_CHAR_RE.test(w)).every((w) => {
      const lower = w.toLowerCase();
      return STOP_WORDS.has(lower) || DEFINITION_CUES.has(lower) || OPERATOR_CUES.has(lower);
    });
    return asks ? operators[0] : null;
  }
  const literal = text.trim().replace(/\s+/g, ' ').slice(0, MAX_LITERAL_CHARS);
  return literal || null;
}

/** Words of a question about an operator besides stop words and definition cues (literalOf). */
const OPERATOR_CUES = new Set(['operator', 'operators', 'combinator', 'infix', 'do', 'work', 'works', 'mean', 'means', 'meaning', 'used', 'use', 'symbol']);

function dedup(xs: string[]): string[] {
  return [...new Set(xs)].filter((x) => x.length > 0);
}
