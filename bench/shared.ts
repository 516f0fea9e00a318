/**
 * Helpers and inputs shared by the bench modules that `bench/run.ts` loads as hooks.
 *
 * Invariant: this module imports only leaf modules (util.ts, eval/seed-baseline.ts), never
 * run.ts or a hook module. run.ts awaits its hooks at top level; a hook that imported run.ts
 * back (grep.ts did, for indexStructures) waits for run.ts to finish evaluating, which waits
 * for the hook: Node exits with code 13 ("unsettled top-level await"). bench/imports.test.ts
 * fails on any circle of imports in bench/.
 */
import { SQLITE3 } from './eval/seed-baseline.ts';
import { runOk } from './util.ts';

/** dbstat object name → the structure it belongs to (FTS shadow tables and indexes grouped with their table). */
export function structureOf(name: string): string {
  if (name.startsWith('chunks_fts')) return 'keyword index (chunks_fts)';
  if (name.startsWith('trigram_')) return 'trigram index (trigram_postings)';
  if (name.startsWith('file_trigrams')) return 'trigram index (file_trigrams, schema 3-5)';
  if (name === 'file_text' || name.startsWith('sqlite_autoindex_file_text')) return 'file text (file_text)';
  if (name === 'chunks') return 'chunk rows (chunks)';
  if (name.startsWith('chunks_')) return 'chunk indexes';
  if (name === 'embeddings' || name.startsWith('sqlite_autoindex_embeddings')) return 'embeddings';
  if (name === 'files' || name.startsWith('files_') || name.startsWith('sqlite_autoindex_files')) return 'file records';
  return 'other';
}

/** Bytes per structure of a Sift index file (native sqlite3's dbstat; read-only). */
export function indexStructures(db: string): Record<string, number> {
  const out: Record<string, number> = {};
  const rows = runOk(SQLITE3, ['-readonly', '-separator', '\t', db, 'SELECT name, sum(pgsize) FROM dbstat GROUP BY name;']).stdout.trim().split('\n');
  for (const line of rows) {
    const [name, bytes] = line.split('\t');
    if (!name) continue;
    const k = structureOf(name);
    out[k] = (out[k] ?? 0) + Number(bytes);
  }
  return out;
}

/** Literals people grep for in C, Go and JS trees (some rare, some everywhere, one 2-char): grep.ts and the browser hook. */
export const LITERALS = [
  'return -EINVAL;', 'kmalloc(', 'TODO', 'mutex_lock(&', 'func (', 'if err != nil {', '#include <linux/', 'EXPORT_SYMBOL_GPL',
  'spin_unlock_irqrestore', '->', 'struct page *', 'throw new Error(', 'unsigned long flags;', 'goto out;', 'xyzzy_not_there',
];
/** Regexes of the same trees (anchors, alternations, classes, one catastrophic-backtracking shape). */
export const REGEXES = [
  '^static int \\w+\\(', 'TODO|FIXME|XXX', '\\bkfree\\(\\w+\\);$', '^func \\(\\w+ \\*?\\w+\\) \\w+\\(', '^#define [A-Z_]+\\s+0x[0-9a-f]+',
  '\\w+_lock\\(&\\w+->\\w+\\)', 'return -E[A-Z]+;', '^\\s*$', '\\d{4,}', 'if \\(!\\w+\\)$', '(a+)+$', '\\b(u8|u16|u32|u64)\\b \\w+\\[',
];
