/**
 * Defaults for indexing and search, adapted from the seeds' CodiiConfig. Every value
 * here is overridable by the CLI flags / app settings; nothing else hard-codes them.
 */

export const DEFAULT_MAX_FILE_SIZE = 1024 * 1024; // 1 MB
export const MAX_CHUNK_CHARS = 1500;
export const MIN_CHUNK_CHARS = 100;
export const CHUNK_OVERLAP_CHARS = 200;
export const WRITE_BATCH_ROWS = 1000;
/** zlib level of file_text's deflate in Node (store/text-codec-node.ts: 4 costs ~37% less CPU than 6 for ~4% bigger file_text). */
export const TEXT_DEFLATE_LEVEL = 4;

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
/** Results the app shows (and asks each codebase for). */
export const APP_RESULT_LIMIT = 20;
export const LEG_CANDIDATES = 50;
/**
 * Candidates per leg of the wider run a short list continues from (search.ts): grouping folds a
 * definition's other pieces into one result, so LEG_CANDIDATES pieces can make fewer results
 * than asked for (50 pieces made ~39 on the medium corpus). Before, the app's first page (limit
 * 21) came back short for 28 of 300 medium questions and Show more (limit 41) for 235.
 */
export const FILL_CANDIDATES = 100;
export const RRF_K = 60;
export const BM25_WEIGHT = 0.5;
export const VECTOR_WEIGHT = 0.5;
/** Fusion weights for a name lookup (search.ts fusionWeights): the keyword leg finds names, the vector leg meanings. */
export const SYMBOL_FUSION_WEIGHTS = { bm25Weight: 0.75, vectorWeight: 0.25 } as const;

// ---- search tuning (search/*): every ranking constant lives here --------------------------

/** bm25() weights, in chunks_fts column order: a hit in a chunk's names or path counts more than one in its body. */
export const BM25_COLUMN_WEIGHTS = { names: 10, pathWords: 4, sigDoc: 3, content: 1, tokens: 1.5 } as const;
/** FTS5 candidates re-scored by the keyword leg's second stage (rerank.ts); at least the requested limit. */
export const RERANK_CANDIDATES = 100;
/**
 * A code question's FTS candidates with fewer than `minShare` code rows get the best `rows` code
 * rows too (search/bm25.ts addCodeCandidates). Session 12, tune-repos.ts on the 41 readable
 * repositories (same indexes): minShare 0 (off) 0.7592, 0.1 0.7598, 0.2 0.7609, 0.3 0.7613, 0.5 and
 * always 0.7613; rows 15 / 30 / 50 at 0.2: 0.7604 / 0.7609 / 0.7606. At 0.3: 28 questions better,
 * 22 worse (hand-written 8 / 2: 0.8152 → 0.8186); held-out 4 0.5729 → 0.5811; medium's 600
 * questions: 3 lists differ. The share is counted on the candidates' rows already read (with
 * fileKind, now kept per path), so a question that needs no second pass costs nothing more:
 * wall p50 12.69 → 12.93 ms, mean 15.07 → 15.22 in one interleaved run (3 passes).
 */
export const CODE_CANDIDATES = { minShare: 0.3, rows: 30 };
/**
 * Candidates from other files when the keyword leg's full pass found only a few
 * (search/bm25.ts otherFileCandidates): below `files` distinct files a list of ten repeats
 * them; a pass without them adds its best `rows`, and another (at most `passes`) when the files
 * are still fewer.
 */
export const FEW_FILES = { files: 10, rows: 30, passes: 2 };
/**
 * The keyword planner (search/fts-plan.ts): a phrase matching FTS_PLAN_CAP chunks is common
 * (rows are counted up to here): its prefix marker is dropped, and a query of only common
 * groups is answered from the rows that have them all. A multi-token word (`mutex_lock`) with
 * FTS_PLAN_WORD_ENOUGH rows as typed is not searched as a prefix.
 */
export const FTS_PLAN_CAP = 4000;
/**
 * On a table with fewer than FTS_PLAN_CAP / FTS_PLAN_LEAVE_OUT_SHARE rows, a phrase in this
 * share of the rows may already be left out of the planner's first try (MaxScore, exact for
 * the best rows; not for a query with listed definitions, bm25.ts plannedCandidates):
 * on the medium corpus (34.7k chunks, 400 questions) 1/16 cut the candidate statements' CPU
 * p50 by ~11% (2,000 rows: 10.8 vs 12.2 ms; 3,000: 11.9; 1,500: 11.0), the same best 100.
 */
export const FTS_PLAN_LEAVE_OUT_SHARE = 1 / 16;
export const FTS_PLAN_WORD_ENOUGH = 100;
/** Common phrases of a query are counted up to here for their score bounds (MaxScore); a count reads that much of a doclist. */
export const FTS_PLAN_BIG_CAP = 40_000;
/**
 * The planner's first guess of the n-th best bm25 score, as a fraction of the sum of the
 * query's phrase bounds (fts-plan.ts): on the kernel eval and bench queries the real fraction
 * had p10 0.23, p25 0.28, median 0.35. A wrong guess costs a second, exact statement pair.
 */
export const FTS_PLAN_THETA_GUESS = 0.3;
/**
 * Second-stage signal weights (rerank.ts): score = Σ signal·weight. Tuned with
 * bench/eval/tune.ts on half of each eval set.
 */
export const RERANK_WEIGHTS = { bm25: 1, name: 1, coverage: 0, exact: 1 } as const;
/**
 * `phrase` (search/bm25.ts): added to a piece whose text holds the query's words in order
 * (query.ts phraseOf: an error message, a log line, a comment's sentence pasted), as `exact`
 * adds for a definition; its kind factor applies after. At most PHRASE_ROWS such pieces are read.
 */
export const PHRASE_WEIGHT = 1;
export const PHRASE_ROWS = 20;
/**
 * File-level signals of the keyword leg (search/signals.ts), added to the rerank score, which
 * is about 1–3 for a good candidate:
 * - path: the share of the query's words found in the file's path (its file name counts
 *   pathNameWeight, each directory 1, normalised by the query's words) × pathWeight;
 * - file: other candidate pieces of the same file, each worth its own score ÷ the best
 *   candidate's, summed (at most fileEvidenceCap) × fileEvidenceWeight;
 * - cover (issue 35): the share of the query's words that a file's best coverPieces candidate
 *   pieces hold between them (content, symbol, path) × fileCoverWeight × the file's kind factor,
 *   on every piece of the file: a file whose pieces together hold most of the question beats a
 *   piece of another file with one dense match. Read for the coverFiles best files only (those
 *   that can be listed; search/signals.ts coverFiles): reading every candidate's content had
 *   doubled keyword latency. Measured in-process (bench/eval/tune-repos.ts, 13 repositories,
 *   same indexes): weight 0 / 0.3 / 0.5 0.7668 / 0.7711 / 0.7701; earlier, over all candidates
 *   of 24 repositories, all pieces 0.7603 vs the best 2 / 3 / 4 / 6 pieces 0.7613 / 0.7611 /
 *   0.7620 / 0.7613 (a long file held every word somewhere).
 * - file_name (issue 35, third round): the share of the file name's words (its directory's for
 *   `init.lua`, `mod.rs`) that the query names, half for a name the query names one word of
 *   (search/signals.ts fileNameSignal) × fileNameWeight: `RelativizeUrls.hs` for "making urls
 *   relative to the site root", not `Html.hs`. tune-repos.ts, 24 repositories, 1,228 questions,
 *   same indexes: weight 0 / 0.3 (one word full) / 0.6 (one word full) 0.7647 / 0.7632 / 0.7524;
 *   one word half, 0.3: 0.7661 (hand 0.817 → 0.828, commit subjects 0.739 → 0.737).
 * - named_leaf (issue 35, fifth round): × namedLeafFactor on every piece of a file that defines
 *   an enum or an exception type a prose question of 3+ terms names (search/signals.ts
 *   applyNamedLeaf). tune-repos.ts, 24 repositories, 1,261 questions, same indexes: 1 / 0.7
 *   0.7783 / 0.7790 (4 better, 0 worse); exceptions only at 0.5: 0.7789 (5 better, 1 worse).
 * - spread (issue 35 class 4, eighth round): for a question how or where something happens
 *   (search/signals.ts asksHowOrWhere), over the 12 files `cover` reads: × fileSpreadWeight ×
 *   the share of the question's words named by the definition names of the file's candidate
 *   pieces, when together they name more words than any one of them (search/signals.ts
 *   applySpread). tune-repos.ts, 36 repositories, 1,768 questions, same indexes: 0 / 0.3 0.7722 /
 *   0.7726 (architecture 0.751 / 0.762, orchestrator 0.784 / 0.795); on every question in prose
 *   0.7731 (architecture 0.764) but Python docstrings 0.470 → 0.466 MRR@10.
 * Plain objects, so bench/eval/tune-repos.ts can try other values in-process.
 */
export const FILE_SIGNALS = { pathWeight: 0.6, fileNameWeight: 0.3, pathNameWeight: 2, fileEvidenceWeight: 0.15, fileEvidenceCap: 2, fileCoverWeight: 0.3, coverPieces: 4, coverFiles: 12, namedLeafFactor: 0.7, fileSpreadWeight: 0.3 };
/**
 * The `kind` signal: a candidate's score × KIND_FACTORS[intent][kind] (text/file-kind.ts). For
 * a code question (the default) the implementation leads; a question that asks for tests, docs,
 * configuration or examples (its words, or an explicit intent) puts those first.
 * A code question's tests and docs (session 11): tune-repos.ts on 41 repositories (2,013
 * questions, same indexes), test / docs 0.45 / 0.4 → 0.35 / 0.3: 0.7532 → 0.7574 (even half
 * 0.7624 → 0.7667, odd 0.7440 → 0.7482; hand-written 0.8083 → 0.8118; 57 better, 1 worse; no
 * language lower); 0.3 / 0.25 or config and examples at 0.4 add under 0.001. A question that
 * reads as one function's doc comment keeps FUNCTION_KIND_FACTORS instead.
 */
export const KIND_FACTORS = {
  code: { code: 1, test: 0.35, docs: 0.3, config: 0.5, generated: 0.35, example: 0.5 },
  test: { code: 0.55, test: 1, docs: 0.45, config: 0.45, generated: 0.3, example: 0.6 },
  docs: { code: 0.5, test: 0.45, docs: 1, config: 0.6, generated: 0.3, example: 0.8 },
  config: { code: 0.55, test: 0.45, docs: 0.85, config: 1, generated: 0.3, example: 0.6 },
  example: { code: 0.5, test: 0.6, docs: 0.8, config: 0.5, generated: 0.3, example: 1 },
  any: { code: 1, test: 1, docs: 1, config: 1, generated: 1, example: 1 },
} as const;
/**
 * The `kind` factor, for a question that asks for tests, of a test file in no source language
 * (text/file-kind.ts isSourceLanguage): JSON cases, YAML fixtures, snapshots, a test's input
 * text. "tests for ipv6 format validation" wants typebox's `format/ipv6.ts`, not the six JSON
 * Schema suites' `ipv6.json`; every answer of the 224 test questions of the repos eval and the
 * fresh sets (session 19) is source code.
 */
export const TEST_DATA_FACTOR = 0.5;
/**
 * A question's test words ("split test files across machines", "skipped tests") ask for code
 * when at least this share of the codebase's code pieces hold "test" or "tests"
 * (search/bm25.ts codeWordShare): a test runner's or mocking library's code is about tests.
 * Session 18: vitest 0.32, mockito 0.18 (0.10 since its `src/testFixtures/` are tests, session
 * 19); the other 77 repositories of the repos eval and the fresh question sets 0.11 (okhttp) or
 * less, most under 0.05.
 */
export const TEST_WORD_CODE_SHARE = 0.15;
/**
 * A question's "example(s)" ask for code when at least this share of the codebase's code pieces
 * are named for them, in their names or path (search/bm25.ts codeWordShare): RSpec's `Example`,
 * `ExampleGroup` (rspec-core 0.25). Session 18, over the repos eval and the fresh sets (99
 * repositories): next dart-http 0.017, every other one 0.010 or less.
 */
export const EXAMPLE_WORD_NAME_SHARE = 0.1;
/**
 * KIND_FACTORS' code row for a code question that reads as one function's doc comment
 * (query.ts readsAsDocComment): its answer is that function wherever the path rules put its
 * file, and they are coarse there (a documented helper among tests, such as Rust's
 * `alloc/…/btree/testing/crash_test.rs`), so tests and docs are demoted less than for a question
 * about a file. With the code row's 0.35 / 0.3 for these too, 5 of 900 docstring questions (Go,
 * Python, Rust standard libraries) ranked their function lower and none higher; after session
 * 12's kind rules (Go's `go/doc/` and Python's `unittest/` are code now) it would still cost
 * Rust 0.416 → 0.415 and gain nothing.
 */
export const FUNCTION_KIND_FACTORS = { code: 1, test: 0.45, docs: 0.4, config: 0.5, generated: 0.35, example: 0.5 } as const;
/**
 * Diversity (search/results.ts diversify): another piece of a file already listed n times goes
 * after the best group of a file not yet listed when its relevance (its leg score relative to
 * the best) × factor^n is below that group's, and at most maxPass groups go before it that way.
 * A strong second piece keeps its slot above weak matches (a small codebase); comparable files
 * take the next slots (a big one). Definitions of a named identifier are exempt. Since issue 35's
 * seventh round the piece held back folds into its file's first result (MAX_FILE_PIECES), so a
 * described function is found at its file's rank, and maxPass only limits a piece that does not
 * fit. The trade-off below was measured before that, on each result's own lines. A trade-off,
 * measured in one run with bench/eval/tune-repos.ts and bench/eval/tune.ts (results in
 * bench/results/2026-11-27-guardrails.md): files asked for (repos eval, NDCG@10) against
 * functions asked for by their doc comment (MRR@10, kernel / go-alldocs / js-alldocs):
 *   no diversity   0.717 | 0.378 0.740 0.500
 *   0.8, 3 passes  0.753 | 0.349 0.733 0.491   ← chosen then
 *   0.5, no limit  0.763 | 0.319 0.721 0.476
 * Since folding, the held-back piece is still found (at its file's rank), and the trade-off is
 * gone: issue 35, session 10 (docs/ranking.md; bench/results/2026-11-30-filelevel.md), repos eval
 * 41 readable repositories in process / docstrings Go, Python, Rust MRR@10 with `more`:
 *   0.8, 3 passes  0.7471 | 0.800 0.470 0.405
 *   0.5, 3 passes  0.7532 | 0.813 0.481 0.416   ← chosen (159 questions better, 0 worse)
 *   0,   3 passes  0.7537 | 0.813 0.479 0.416   (a strong second piece never keeps its slot:
 *                                                 a tiny codebase lists weak files instead)
 *   0,  10 passes  0.7555 | 0.812 0.474 0.415   (recall@10 falls: pieces that cannot fold go off the list)
 */
export const DIVERSITY = { factor: 0.5, maxPass: 3 };
/**
 * The learned order of the code among a keyword list's first `depth` results (search/order.ts): one weight per
 * feature of order.ts ORDER_FEATURES, fitted by bench/eval/learn-order.py on the repository evals'
 * questions (docs/ranking.md, sessions 27, 28 and 30). `depth` 0 turns it off (bench/eval/order-features.ts
 * dumps the pipeline's own order that way). Regenerate the weights with the script, never by hand.
 */
export const LEARNED_ORDER: { depth: number; weights: Readonly<Record<string, number>> } = {
  depth: 10,
  // fitted on 4587 of 5513 questions, l2 1000, 200 steps (the four held-out repositories and the
  // fresh set s35 left out); session 28: with the files' sizes (log_file_kb, log_file_pieces,
  // file_share); session 30: refitted with the fresh sets s30–s33; session 31: with s34 and the
  // question's neighbouring words near each other in the file (near_pairs, has_near_pair)
  weights: {
    inv_rank: 0.3911,
    rank: -0.3471,
    comb_rel: 1.137,
    bm25_rel: 0.7534,
    s_bm25: 1.351,
    s_name: 1.235,
    s_exact: 0.4693,
    s_cover: 5.442,
    s_file: 0.8493,
    s_path: 1.372,
    s_file_name: 0.1738,
    s_spread: 3.807,
    has_cover: 6.583,
    has_file: 0.02211,
    has_path: 0.2156,
    has_file_name: 0.1474,
    has_spread: -0.05178,
    ex_diversity: -4.423,
    t_function: 0.07215,
    t_method: -0.03743,
    t_class: -0.07963,
    t_module: 0.04949,
    t_struct: -0.2769,
    t_interface: -0.9003,
    t_type: -0.5321,
    t_enum: -1.139,
    t_comment: -0.5754,
    log_lines: 0.1347,
    log_more: 0.09424,
    log_file_more: 0.1707,
    depth: -0.09743,
    dir_share: 0.4732,
    stem_share: 0.2957,
    log_file_kb: -0.1281,
    log_file_pieces: -0.04365,
    file_share: 0.3057,
    near_pairs: 1.628,
    has_near_pair: 0.2592,
  },
};
/**
 * Function-level questions. `otherPieceFactor`: for a question that describes one function
 * (search/query.ts describesFunction), the factor of a piece that is not a function or method
 * (search/signals.ts applyPieceKind). Measured on the Python, Rust, Go and JavaScript docstring
 * sets (bench/eval/tune.ts --set otherPieceFactor=…: 0.85, 0.7 and 0.55 tried).
 */
export const FUNCTION_QUESTION = { otherPieceFactor: 0.7 };
/**
 * Definition first for identifier queries (search/symbols.ts), best first: the exact-case
 * name at the head of its definition > a later piece of it > another case at the head >
 * another case in a later piece; references and mentions get no tier. Measured on the
 * Python stdlib / Go std navigation sets (bench/eval/navigate.ts).
 */
export const DEFINITION_TIERS = { exactCaseHead: 1, exactCaseTail: 0.75, otherCaseHead: 0.5, otherCaseTail: 0.25 } as const;
/**
 * Among definitions of one tier, the more substantial comes first: each size step (a chunk of
 * at least 4, 10, 25 lines) adds DEFINITION_SIZE_STEP to the tier it ranks by (not the tier
 * explain shows). BM25 alone put the shortest first, which is a stub most often: 38 of 40
 * sampled kernel names that have a definition of at most 5 lines and one of 15+ listed the
 * short one first (`ftrace_dump`: the !CONFIG stub in kernel.h; `pr_debug`: a local redefinition
 * in net/atm/lec.c). Before size, a definition in an implementation file (text/file-kind.ts:
 * not a test, example, vendored or generated copy, or docs) gets DEFINITION_KIND_STEPS steps:
 * `parse_error` finds include/nlohmann/detail/exceptions.hpp before the amalgamated
 * single_include copy and a test's stand-in. The most (3 + 4 steps × 0.005 = 0.035) stays below
 * the smallest gap between tiers (0.05).
 */
export const DEFINITION_SIZE_LINES: readonly number[] = [4, 10, 25];
export const DEFINITION_SIZE_STEP = 0.005;
export const DEFINITION_KIND_STEPS = 4;
/**
 * A declaration query (`struct page`, `def parse`, query.ts) ranks a definition of another
 * kind than its keyword names (the function `page`, a constant `page`) with this share of its
 * tier: below every definition of the named kind (the lowest tier is 0.25), above mentions.
 */
export const DECLARATION_OTHER_KIND = 0.2;
/**
 * A prose piece (a Markdown or reStructuredText section, named by its heading) that a name lookup
 * names ranks with this share of its tier: below the code that defines the name, above pieces that
 * define nothing. typebox's docs page titled `Value.Diff` outranked `export function Diff` (its
 * qualifier only in the path: 0.8) for the lookup `Value.Diff`.
 */
export const DOCS_HEADING_TIER = 0.2;
/**
 * A qualified name (`crate::parser::Parser`, `pkg.Func`, `Plug.Conn.send_resp`) also finds a
 * definition of its last name whose parent is not the last qualifier, with this share of its
 * tier: parent is another qualifier; a qualifier is in its path (a module or package); neither.
 * `otherMember` multiplies the last two for a member of a type when the last qualifier names a
 * namespace, package or module alias, not a type (`z.array`, `fmt::format_to`, `clap::arg!`:
 * what the namespace defines at its top level, not the method `ZodType.array`; symbols.ts
 * qualifiedScope).
 */
export const QUALIFIED_TIERS = { otherQualifier: 0.9, inPath: 0.8, elsewhere: 0.3, otherMember: 0.6 } as const;
/**
 * A lookup of a member (`Mailbox.enqueue`, `Truncator.FixedNumberOfWords`) also lists its type's
 * definition, with this share of its tier: the member is often no piece of its own (a method of a
 * small class, a property), and then the type's piece holds it. Below the member defined under
 * the type (1) or in a qualifier's path (`inPath`), above the same name under another type
 * (`elsewhere`: enqueueActions' local `enqueue`).
 */
export const LOOKUP_OWNER_TIER = 0.5;
/**
 * A name lookup with a chunk whose text declares the name (`def make_files`, `function
 * onClick`, `fn helper`: a declaration keyword, then the name) where the parse recorded no
 * definition of it: a function nested in another (Python's `files()` defines `make_files`), one
 * in a doc's example. It ranks as a definition of this tier: below every recorded one (the
 * lowest, a qualified name's `elsewhere` × `otherMember` × `otherCaseTail`, is 0.045; and it is
 * read only when no chunk defines the name), above every chunk that only mentions the name or a
 * form of it (`make_file`).
 */
export const TEXT_DEFINITION_TIER = 0.02;
/**
 * A lookup of a name of several parts that no chunk defines or declares (`walrus_settle_count`):
 * the pieces that hold it as written rank as if of this tier, above every piece that holds only
 * some of its parts (search/bm25.ts identifierPhrase).
 */
export const WRITTEN_NAME_TIER = 0.01;
/**
 * A query that names a file (`sizes.test.ts`, `middlewares/proxy`: search/query.ts pathQueryOf)
 * ranks the first piece of each file so named with this tier: above any definition, as the user
 * wrote where to look.
 */
export const FILE_NAME_TIER = 2;
/** Keyword leg: tier × this is added to a definition's score, above any BM25 score seen in practice. */
export const KEYWORD_DEFINITION_BOOST = 1000;
/** Fusion: tier × this (scaled so tiers never swap, see fuse.ts) is added on top of the largest RRF score. */
export const FUSION_DEFINITION_BOOST = 1;
/** Most identifiers of one query looked up as definitions. */
export const MAX_SYMBOL_TARGETS = 8;
/** Most definition rows fetched per identifier. */
export const MAX_EXACT_SYMBOL_ROWS = 50;
/**
 * Vector leg relevance floor: a hit is kept when its cosine is at least VECTOR_MIN_SCORE and
 * at least VECTOR_RELATIVE_FLOOR × the best hit's, so a query with no related code does
 * not list every chunk as "semantic". NOT tuned on a real model: only the generated tiny
 * model exists on this machine. 0.2 is the usual "unrelated" cosine for MiniLM-style
 * sentence embeddings and 0.6 × best keeps the neighbourhood of a good hit; re-check both
 * with `run-eval.ts --modes hybrid --model <MiniLM>` (TODO issue 10).
 */
export const VECTOR_MIN_SCORE = 0.2;
export const VECTOR_RELATIVE_FLOOR = 0.6;
// Query processing (search/query.ts) and the rerank's term matching (search/rerank.ts).
/** Input beyond this many characters is ignored (keeps hostile input cheap). */
export const MAX_INPUT_CHARS = 1000;
/** Most terms (before expansion) taken from one query. */
export const MAX_TERMS = 32;
/** Most terms after abbreviation expansion; this bounds the FTS5 OR list. */
export const MAX_EXPANDED_TERMS = 32;
/** Longer terms are cut (FTS5 tokens that long are noise, not words). */
export const MAX_TERM_CHARS = 64;
/** The query's last word (the one being typed: `kma` → kmalloc) gets an FTS5 prefix marker (`"user"*`) from this length. */
export const PREFIX_MIN_CHARS = 3;
/**
 * Every other term (earlier words, identifier parts, abbreviation expansions) from this length:
 * a 3-letter prefix matches far more than the word (kernel: `"inc"*` 92k of 243k chunks, every
 * #include, vs 6.5k for inc; `"add"*` 38k vs 14k) and FTS5 scores every row it matches.
 */
export const INNER_PREFIX_MIN_CHARS = 4;
/** Queries of this many words or more are prose: no abbreviation expansion. */
export const NL_QUERY_WORDS = 3;
/** FTS5 terms are light-stemmed before the prefix marker: "allocates" → `"allocat"*`. */
export const STEM_FTS_TERMS = true;
/** Query words shorter than this are ignored by the name and coverage signals. */
export const MIN_SIGNAL_TERM_CHARS = 2;
/** A symbol part this long or longer may abbreviate a query word (`dec` ← "decrement"). */
export const MIN_ABBREV_CHARS = 3;
/** A query word this long or longer is looked for inside unsplittable names (`ismaclabel`). */
export const MIN_INFIX_CHARS = 3;
/** When filters are on, the vector leg over-fetches this many times and filters by metadata. */
export const VECTOR_FILTER_OVERFETCH = 8;
/** Other matching pieces of a definition kept with its result ("N more matches in this definition"). */
export const MAX_MORE_FRAGMENTS = 8;
/**
 * Other definitions of a listed file folded into its first result's `more` (search/results.ts
 * diversify): the ones diversity holds back and the ones below the limit, best first. A card's
 * worth; the rest of the file is counted in `fileMore`.
 */
export const MAX_FILE_PIECES = 4;
/**
 * The keyword leg's candidates (search/bm25.ts capPerFile) keep at most this many pieces of one
 * file while other files' pieces are left to fill them: what a file can show in a list (its
 * result and MAX_FILE_PIECES folded). A long file that holds every word of a question (fzf's
 * 6,600-line terminal.go for "main flow wiring the input reader, matcher and terminal UI") took
 * 47 of the 50 candidates, so the file the question asked for (core.go) never reached grouping.
 * Not for a question that describes one function (query.ts describesFunction, readsAsDocComment):
 * its answer may be the sixth piece of the file that holds its words.
 */
export const LEG_FILE_PIECES = 1 + MAX_FILE_PIECES;
/**
 * …and only while the result's lines, its own and its `more` pieces', stay within this many: a
 * folded result is a screen or two, not the file. A longer piece waits for its own slot (or is
 * counted in `fileMore`). It also keeps a result with its pieces one hit-sized span for a
 * CodeSearchNet-style check that reads them as one result of at most 150 lines.
 */
export const MAX_FOLDED_LINES = 150;

export const EMBED_BATCH_SIZE = 32;
export const EMBED_MAX_TOKENS = 256;
export const EMBED_DIM = 384;
export const DEFAULT_MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
/** The Hugging Face Hub; a model's file is `<HUB_URL>/<id>/resolve/main/<file>` (as Transformers.js asks for it). */
export const HUB_URL = 'https://huggingface.co';
/**
 * Static (model2vec) models: tokens per text after unknown tokens are dropped (model2vec's
 * `encode` default, max_length=512), and texts per batch — one batch is ~20 ms of table
 * lookups at ~7,000 chunks/s, the longest a waiting query waits.
 */
export const STATIC_MAX_TOKENS = 512;
export const STATIC_BATCH_SIZE = 128;

export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 200;
export const HNSW_EF_SEARCH = 100;

/**
 * Ignore patterns (gitignore syntax) applied before any .gitignore: tool and build folders,
 * logs, minified bundles and lock files. A Python virtual environment under another name than
 * `.venv/` is told by its contents, not its name (walk/walker.ts VIRTUAL_ENV_MARKERS): a folder
 * named `venv/` is as often source (CPython's `Lib/venv/`). Binary files are not listed here: BINARY_EXTENSIONS
 * skips the known ones unread, and every other file is sniffed when read (isProbablyBinary).
 */
export const DEFAULT_IGNORE_PATTERNS: readonly string[] = [
  '.git/', '.hg/', '.svn/', '__pycache__/', 'node_modules/', '.venv/', '.env/',
  '*.svg', '.DS_Store', 'Thumbs.db', '*.log', '*.tmp',
  '.idea/', '.vscode/', '*.swp', '*.swo',
  // Build outputs at the root only: deeper down a folder of that name is as often source (Go's
  // go/build and cmd/dist, Linux's include/target), and a project's nested outputs are in its .gitignore.
  '/dist/', '/build/', '/target/',
  '.tox/', '.pytest_cache/', '.mypy_cache/', '.ruff_cache/',
  'coverage/', '*.egg-info/',
  '*.min.js', '*.min.css', '*.map', 'package-lock.json', 'yarn.lock', 'pnpm-lock.yaml',
];

/** Likely secrets: never read, never indexed. */
export const SECRET_PATTERNS: readonly string[] = [
  '.env', '.env.*', '!.env.example', '!.env.sample', '!.env.template',
  '*.pem', '*.key', '*.p12', '*.pfx', '*.jks', '*.keystore',
  'id_rsa', 'id_rsa.*', 'id_dsa', 'id_dsa.*', 'id_ecdsa', 'id_ecdsa.*', 'id_ed25519', 'id_ed25519.*',
  '.npmrc', '.pypirc', '.netrc', '.htpasswd', 'credentials.json', '*.kdbx',
];

/**
 * Extensions (lower-case, with the dot) of files that are binary by nature: skipped as
 * 'binary' by the walker without being read. Every other file is indexed when its first
 * bytes look like text (walk/walker.ts isProbablyBinary), whatever its extension.
 */
export const BINARY_EXTENSIONS: readonly string[] = [
  // images
  '.png', '.jpg', '.jpeg', '.gif', '.bmp', '.ico', '.icns', '.cur', '.webp', '.avif', '.heic', '.tif', '.tiff',
  '.psd', '.xcf', '.raw', '.cr2', '.nef', '.dng',
  // fonts
  '.ttf', '.otf', '.woff', '.woff2', '.eot',
  // audio and video
  '.mp3', '.mp4', '.m4a', '.m4v', '.wav', '.flac', '.ogg', '.oga', '.ogv', '.opus', '.aac', '.wma',
  '.avi', '.mov', '.mkv', '.webm', '.wmv', '.flv', '.mpg', '.mpeg', '.3gp', '.mid', '.midi',
  // archives and packages
  '.zip', '.tar', '.gz', '.tgz', '.bz2', '.xz', '.lz', '.lzma', '.zst', '.7z', '.rar', '.cab',
  '.jar', '.war', '.ear', '.aar', '.whl', '.egg', '.apk', '.aab', '.ipa', '.deb', '.rpm', '.dmg', '.iso', '.msi', '.nupkg',
  // compiled code and objects
  '.o', '.a', '.so', '.dylib', '.dll', '.exe', '.bin', '.class', '.pyc', '.pyo', '.pyd',
  '.wasm', '.ko', '.node', '.beam', '.hi', '.dyn_hi', '.dyn_o', '.rlib', '.rmeta', '.pdb', '.ilk', '.gcno', '.gcda', '.mo',
  // documents
  '.pdf', '.doc', '.docx', '.xls', '.xlsx', '.ppt', '.pptx', '.odt', '.ods', '.odp', '.epub',
  // databases, data and model files
  '.db', '.sqlite', '.sqlite3', '.db3', '.mdb', '.accdb', '.parquet', '.avro', '.orc', '.feather', '.arrow',
  '.npy', '.npz', '.pkl', '.pickle', '.h5', '.hdf5', '.onnx', '.pt', '.pth', '.ckpt', '.safetensors', '.tflite', '.gguf',
  // other assets (Illustrator files are PDF inside, whose first 8 KB often read as text)
  '.ai', '.eps', '.indd', '.swf', '.blend', '.fbx', '.glb', '.unitypackage', '.sketch', '.fig',
];

/**
 * Above this many vectors the hnsw graph replaces the exact scan. Why 50k: the exact f32
 * scan is 7–10 ms p50 at 10k and 33–38 ms at 50k in a Chromium worker (STACK-FACTS),
 * exact, and loads in well under a second; hnsw answers in ~1 ms but its graph costs
 * 2–10 ms per vector to build (efConstruction 200; 107 s for 10k on this loaded 2-core
 * box) and, because hnswlib-wasm cannot hand us its bytes, is rebuilt on every load.
 * Below ~50k the scan stays within an interactive budget, so the graph only pays above.
 */
export const HNSW_THRESHOLD = 50_000;
