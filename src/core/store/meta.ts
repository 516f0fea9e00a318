/**
 * The index's `meta` keys: one typed list, so a writer and a reader can never disagree on a
 * name (a `model` vs `model_key` mismatch once made `sift stats` report 0 embedded).
 */
export const META = {
  /** Schema version the migrations brought the database to. */
  schemaVersion: 'schema_version',
  /** 'indexing' while a run is under way (an interrupted run resumes), 'complete' after. */
  runState: 'run_state',
  /** Merkle root of the indexed files at the end of the last complete run. */
  merkleRoot: 'merkle_root',
  /** JSON map path → "size:mtime" of files skipped as binary by content, so they are not read again while unchanged. */
  skippedFiles: 'skipped_files',
  /** JSON SkippedStats (walk/skipped.ts) of the last run: what was not indexed, by reason and extension. */
  skipStats: 'skip_stats',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  /** Key of the embedding model the index's embeddings were made with (Store.putEmbeddings). */
  modelKey: 'model_key',
  /** How the CLI found that model (a Hub id or a folder), so searches load the same one. */
  modelSpec: 'model_spec',
  /** The CLI's vector file matches the embeddings as of this stamp. */
  vectorsStamp: 'vectors_stamp',
  /** The app's display name for the codebase. */
  codebaseName: 'codebase_name',
} as const;

export type MetaKey = (typeof META)[keyof typeof META];
