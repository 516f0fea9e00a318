/**
 * Partitioned vectors in a published pack (issue 27): the SQL side of vector/partitioned.ts.
 * `sift publish` writes them (writePackVectors); the app reads them through the HTTP range VFS
 * (openPackVectors), fetching the centroids once and then only the cells a query probes.
 *
 * Tables, created by the writer in a pack only (never part of the normal schema, schema.ts):
 *   pack_vector_cells(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, centroid BLOB NOT NULL)
 *     one row per cell: its vector count and its centroid, dim float32 LE.
 *   pack_vector_lists(cell INTEGER PRIMARY KEY, ids BLOB NOT NULL, scales BLOB NOT NULL, vectors BLOB NOT NULL)
 *     one row per cell: n int32 LE ids, n float32 LE scales (1/‖codes‖), n × dim int8 codes.
 *
 * Invariants:
 * - pack_vector_cells is created first and filled in cell order before any list is written,
 *   so its pages precede the lists' (VACUUM copies tables in that order, rows in rowid order):
 *   a reader gets every centroid from one run of pages, ~1.5 KB per cell at 384 dims.
 * - Cells are numbered 0..C-1 without gaps; cell c's list holds exactly its `n` vectors.
 * - Every blob's length is checked against n and dim (and every float for finiteness) before
 *   use: a damaged pack is a PackError naming the cell, never a wrong answer or a crash.
 * - readCells is one SELECT per call, whatever the number of cells asked for, after one
 *   prefetch of their pages on a pack read over HTTP.
 */
import { PackError } from '../store/pack.ts';
import type { Queryable } from '../store/sqlite.ts';
import { insertRows } from '../store/sqlite.ts';
import type { Cell, PartitionCells } from './partitioned.ts';
import { PartitionedVectorIndex, checkCell } from './partitioned.ts';

export const PACK_VECTOR_CELLS = 'pack_vector_cells';
export const PACK_VECTOR_LISTS = 'pack_vector_lists';

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Centroid rows per INSERT statement (a row is ~1.5 KB). */
const CELLS_PER_INSERT = 32;

/** Writes the two tables into `db` (a pack being built). One transaction is the caller's business. */
export async function writePackVectors(db: Queryable, cells: PartitionCells): Promise<void> {
  const { dim, centroids } = cells;
  if (centroids.length !== cells.cells.length * dim) {
    throw new Error(`${cells.cells.length} cells need ${cells.cells.length * dim} centroid floats, got ${centroids.length}`);
  }
  cells.cells.forEach((cell, c) => {
    if (cell.id !== c) throw new Error(`cell ${c} is numbered ${cell.id}: cells must be numbered 0..${cells.cells.length - 1}`);
    checkCell(cell, dim);
  });
  await db.exec(
    `CREATE TABLE ${PACK_VECTOR_CELLS}(id INTEGER PRIMARY KEY, n INTEGER NOT NULL, centroid BLOB NOT NULL);
     CREATE TABLE ${PACK_VECTOR_LISTS}(cell INTEGER PRIMARY KEY, ids BLOB NOT NULL, scales BLOB NOT NULL, vectors BLOB NOT NULL);`,
  );
  await insertRows(
    db, `INSERT INTO ${PACK_VECTOR_CELLS}(id, n, centroid) VALUES (?, ?, ?)`, CELLS_PER_INSERT,
    cells.cells.map((cell) => [cell.id, cell.ids.length, f32Bytes(centroids.subarray(cell.id * dim, (cell.id + 1) * dim))]),
  );
  for (const cell of cells.cells) {
    await db.run(`INSERT INTO ${PACK_VECTOR_LISTS}(cell, ids, scales, vectors) VALUES (?, ?, ?, ?)`, [
      cell.id, i32Bytes(cell.ids), f32Bytes(cell.scales),
      new Uint8Array(cell.vectors.buffer, cell.vectors.byteOffset, cell.vectors.byteLength),
    ]);
  }
}

export interface PackCentroids {
  dim: number;
  /** cells × dim. */
  centroids: Float32Array;
  /** Vectors per cell. */
  counts: Int32Array;
}

/** Every centroid and cell count, checked. */
export async function readCentroids(db: Queryable): Promise<PackCentroids> {
  let rows: { id: unknown; n: unknown; centroid: unknown }[];
  try {
    rows = await db.all(`SELECT id, n, centroid FROM ${PACK_VECTOR_CELLS} ORDER BY id`);
  } catch (e) {
    if (/no such table/i.test(String((e as Error)?.message))) {
      throw new PackError('This pack has no partitioned vectors (no pack_vector_cells table): publish it again with --embed.');
    }
    throw e;
  }
  if (rows.length === 0) throw new PackError('The pack\'s vectors are damaged: pack_vector_cells is empty.');
  const first = rows[0].centroid;
  const bytes = first instanceof Uint8Array ? first.byteLength : 0;
  if (bytes === 0 || bytes % 4 !== 0) throw damaged(0, `its centroid is ${bytes} bytes, not a whole number of float32s`);
  const dim = bytes / 4;
  const centroids = new Float32Array(rows.length * dim);
  const counts = new Int32Array(rows.length);
  rows.forEach((row, c) => {
    if (row.id !== c) throw new PackError(`The pack's vectors are damaged: cell ${c} is missing (found ${String(row.id)}).`);
    if (typeof row.n !== 'number' || !Number.isInteger(row.n) || row.n < 0 || row.n > 0x7fffffff) throw damaged(c, `its count ${String(row.n)} is not a count`);
    const blob = row.centroid;
    if (!(blob instanceof Uint8Array) || blob.byteLength !== bytes) {
      throw damaged(c, `its centroid is ${blob instanceof Uint8Array ? blob.byteLength : 0} bytes, expected ${bytes} (${dim} float32s)`);
    }
    const v = readF32(blob);
    if (!allFinite(v)) throw damaged(c, 'its centroid holds a non-finite number');
    centroids.set(v, c * dim);
    counts[c] = row.n;
  });
  return { dim, centroids, counts };
}

/**
 * The lists of `cellIds` (one SELECT), each checked against `dim` and, when given, the cell's
 * count from readCentroids. A cell asked for and absent is a PackError.
 */
export async function readCells(db: Queryable, cellIds: readonly number[], dim: number, counts?: Int32Array): Promise<Cell[]> {
  if (cellIds.length === 0) return [];
  for (const id of cellIds) {
    if (!Number.isInteger(id) || id < 0 || (counts && id >= counts.length)) throw new PackError(`There is no vector cell ${id} in this pack.`);
  }
  // A pack over HTTP: every probed cell's row and overflow pages in one round, not one cell's
  // chain after another (the publisher lists this table's root in the manifest's layout).
  await db.prefetchRows?.(PACK_VECTOR_LISTS, cellIds);
  const rows = await db.all<{ cell: unknown; ids: unknown; scales: unknown; vectors: unknown }>(
    `SELECT cell, ids, scales, vectors FROM ${PACK_VECTOR_LISTS} WHERE cell IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(cellIds)],
  );
  const out = new Map<number, Cell>();
  for (const row of rows) {
    const id = row.cell as number;
    const { ids, scales, vectors } = row;
    if (!(ids instanceof Uint8Array) || !(scales instanceof Uint8Array) || !(vectors instanceof Uint8Array)) {
      throw damaged(id, 'a list column is not a blob');
    }
    if (ids.byteLength % 4 !== 0) throw damaged(id, `its ids blob is ${ids.byteLength} bytes, not a whole number of int32s`);
    const n = ids.byteLength / 4;
    if (counts && n !== counts[id]) throw damaged(id, `it lists ${n} ids, its centroid row says ${counts[id]}`);
    if (scales.byteLength !== n * 4) throw damaged(id, `its scales blob is ${scales.byteLength} bytes, expected ${n * 4} (${n} float32s)`);
    if (vectors.byteLength !== n * dim) throw damaged(id, `its vectors blob is ${vectors.byteLength} bytes, expected ${n * dim} (${n} × ${dim})`);
    const cell: Cell = {
      id,
      ids: readI32(ids),
      scales: readF32(scales),
      vectors: new Int8Array(vectors.buffer, vectors.byteOffset, vectors.byteLength),
    };
    if (!allFinite(cell.scales)) throw damaged(id, 'a scale is not a finite number');
    for (const v of cell.ids) if (v < 0) throw damaged(id, `it lists the id ${v}`);
    out.set(id, cell);
  }
  return cellIds.map((id) => {
    const cell = out.get(id);
    if (!cell) throw new PackError(`The pack's vectors are damaged: the list of cell ${id} is missing.`);
    return cell;
  });
}

export interface OpenPackVectorsOptions {
  /** Cells probed per query (PartitionedVectorIndex's default when absent). */
  nprobe?: number;
  maxProbe?: number;
  cacheBytes?: number;
}

/** The pack's vector index: centroids read now, cells on demand. `dim` is the manifest's. */
export async function openPackVectors(db: Queryable, dim: number, opts: OpenPackVectorsOptions = {}): Promise<PartitionedVectorIndex> {
  const stored = await readCentroids(db);
  if (stored.dim !== dim) {
    throw new PackError(`The pack's vectors have ${stored.dim} dimensions; its manifest says ${dim}. Publish it again.`);
  }
  let size = 0;
  for (const n of stored.counts) size += n;
  const { counts } = stored;
  return new PartitionedVectorIndex({
    ...opts, dim, centroids: stored.centroids, counts, size,
    loadCells: (ids) => readCells(db, ids, dim, counts),
  });
}

function damaged(cell: number, what: string): PackError {
  return new PackError(`The pack's vectors are damaged: cell ${cell}: ${what}.`);
}

function allFinite(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i])) return false;
  return true;
}

/** Little-endian bytes of `a` (a view when the platform is little-endian). */
function f32Bytes(a: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < a.length; i++) view.setFloat32(i * 4, a[i], true);
  return out;
}

function i32Bytes(a: Int32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < a.length; i++) view.setInt32(i * 4, a[i], true);
  return out;
}

/** float32 LE blob → values (length already checked to be a multiple of 4). */
function readF32(bytes: Uint8Array): Float32Array {
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const out = new Float32Array(bytes.byteLength / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

function readI32(bytes: Uint8Array): Int32Array {
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) return new Int32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const out = new Int32Array(bytes.byteLength / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}
