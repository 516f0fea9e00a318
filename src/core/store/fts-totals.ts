/**
 * FTS5's totals: the averages record (chunks_fts_data, id 1) holds the number of rows, then the
 * tokens of each column over all rows, as SQLite varints. bm25() divides by them: N for each
 * phrase's idf, total tokens / N for each column's average length.
 *
 * chunks_fts is contentless with contentless_delete=1 (schema 5). There a DELETE removes the
 * row's docsize and tombstones its postings but leaves the totals as they were (measured: 3
 * rows, 1 deleted, the record still says 3). So every re-chunked file's old pieces stayed in N
 * and in the averages: an index re-chunked once by a migration counted 16,897 rows for its
 * 6,415 (zod), and ranked otherwise than the same files indexed afresh (zod's "regular
 * expressions used to validate emails, uuids and ip addresses": regexes.ts first fresh, third
 * after). The store now subtracts the docsizes of the rows it deletes (Store.writeFiles,
 * deleteFiles, renameFile), in a transaction of its own after theirs: FTS5 keeps the totals of
 * a transaction in memory and writes them back when it commits. Schema 18 recounts them once
 * from chunks_fts_docsize (RECOUNT_FTS_TOTALS).
 */
import type { Db, Queryable } from './sqlite.ts';
import { varint } from './btree.ts';

/** The FTS5 table's averages record id (FTS5_AVERAGES_ROWID). */
const AVERAGES_ID = 1;

/** The varints of an FTS5 record (SQLite's format, read as btree.ts reads a page's). */
export function decodeVarints(b: Uint8Array): number[] {
  const out: number[] = [];
  for (let at = 0; at < b.length;) {
    const [v, n] = varint(b, at);
    out.push(v);
    at += n;
  }
  return out;
}

/** `values` as SQLite varints (non-negative integers below 2^53). */
export function encodeVarints(values: readonly number[]): Uint8Array {
  const out: number[] = [];
  for (const value of values) {
    let v = Math.max(0, Math.floor(value));
    const groups: number[] = [];
    do {
      groups.unshift(v % 128);
      v = Math.floor(v / 128);
    } while (v > 0);
    groups.forEach((g, i) => out.push(i < groups.length - 1 ? g | 0x80 : g));
  }
  return new Uint8Array(out);
}

/** SQL function: the i-th varint of a blob (a docsize row's tokens in column i). */
export const VARINT_FUNCTION = 'sift_varint';
/** SQL function: an averages record from the row count and each column's tokens. */
export const TOTALS_FUNCTION = 'sift_fts_totals';

/** Register VARINT_FUNCTION and TOTALS_FUNCTION (migration 18 recounts the totals with them). */
export function registerFtsTotals(db: Db): void {
  db.createFunction(VARINT_FUNCTION, 2, (blob, i) => (blob instanceof Uint8Array ? decodeVarints(blob)[Number(i)] ?? 0 : 0));
  db.createFunction(TOTALS_FUNCTION, -1, (...values) => encodeVarints(values.map((v) => Number(v ?? 0))));
}

/** The FTS columns a totals record counts (schema.ts FTS_COLUMNS: names, path_words, sig_doc, content, tokens). */
const FTS_COLUMN_COUNT = 5;

/** Set the totals from chunks_fts_docsize: the rows there and their tokens per column (a migration). */
export const RECOUNT_FTS_TOTALS = `
  UPDATE chunks_fts_data SET block = (
    SELECT ${TOTALS_FUNCTION}(count(*), ${Array.from({ length: FTS_COLUMN_COUNT }, (_, i) => `coalesce(sum(${VARINT_FUNCTION}(sz, ${i})), 0)`).join(', ')})
    FROM chunks_fts_docsize
  ) WHERE id = ${AVERAGES_ID};
`;

/** Rows and tokens per column of FTS rows about to be deleted: [rows, column 0, …]. */
export type RemovedTotals = number[];

export function noRemovedTotals(): RemovedTotals {
  return new Array<number>(FTS_COLUMN_COUNT + 1).fill(0);
}

/** Add to `removed` the docsizes of the FTS rows `idsSql` (a SELECT of ids, with `params`) names. */
export async function countRemoved(tx: Queryable, idsSql: string, params: readonly unknown[], removed: RemovedTotals): Promise<void> {
  const rows = await tx.all<{ sz: Uint8Array }>(`SELECT sz FROM chunks_fts_docsize WHERE id IN (${idsSql})`, params as never[]);
  for (const r of rows) {
    removed[0]!++;
    decodeVarints(r.sz).forEach((v, i) => {
      if (i < FTS_COLUMN_COUNT) removed[i + 1]! += v;
    });
  }
}

/** Take `removed` off the totals record (in a transaction of its own, after the deletes committed). */
export async function subtractTotals(tx: Queryable, removed: RemovedTotals): Promise<void> {
  if (!removed[0]) return;
  const row = await tx.get<{ b: Uint8Array }>(`SELECT block AS b FROM chunks_fts_data WHERE id = ${AVERAGES_ID}`);
  if (!row?.b) return;
  const totals = decodeVarints(row.b);
  await tx.run(`UPDATE chunks_fts_data SET block = ? WHERE id = ${AVERAGES_ID}`, [encodeVarints(totals.map((v, i) => v - (removed[i] ?? 0)))]);
}

/** The rows FTS5's bm25() counts (the averages record's first varint); max(id) when the record is missing. */
export async function ftsRowCount(db: Queryable): Promise<number> {
  const [row] = await db.all<{ b: Uint8Array | null }>(`SELECT block AS b FROM chunks_fts_data WHERE id = ${AVERAGES_ID}`);
  if (row?.b instanceof Uint8Array && row.b.length) return decodeVarints(row.b)[0] ?? 0;
  return (await db.all<{ n: number | null }>('SELECT max(id) AS n FROM chunks'))[0]?.n ?? 0;
}
