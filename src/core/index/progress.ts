/**
 * An indexing run's progress as a person reads it: files per second over this run, seconds
 * left, the latest warning, whether anything is searchable yet; reported at most once per
 * PROGRESS_MS (a big folder emits thousands of statuses), the final one at once.
 *
 * Invariants: the rate counts only files done in this run, from the moment it left 'preparing'
 * (an incremental run starts from the files already indexed then; the walk and a waiting query's
 * reading are not chunking time), and only once MIN_RATE_FILES are done; the ETA is null while
 * preparing, before a rate is known or while the walk runs (its total is not known then, nor is a
 * share of it: `percent` is null); a 'complete' status and `flush()` report what is pending
 * at once; nothing is reported twice.
 */
import type { CodebaseStatus } from '../types.ts';
import type { IndexWarning } from './indexer.ts';

/** Progress reaches the page at most this often. */
export const PROGRESS_MS = 150;
/** No rate is claimed before this much of the chunking has passed (a rate over 50 ms is noise). */
const MIN_RATE_SECONDS = 0.2;
/**
 * Nor before this many files are done: a waiting query's first files are written alone before
 * any other is read (indexer.ts firstFor), and one file in its first second read as "0.9 files/s,
 * about 30 min left" for a folder indexed in 7 s.
 */
const MIN_RATE_FILES = 20;

export interface IndexProgress {
  status: CodebaseStatus;
  /** Files per second over this run. */
  rate: number;
  /** Seconds left at the current rate, null when unknown (always while the walk runs). */
  etaSeconds: number | null;
  /** How far the run is, 0–100; null while the walk runs (files found so far are no total). */
  percent: number | null;
  /** Latest warning, if any (the full list stays in the run's summary). */
  lastWarning: IndexWarning | null;
  /** True once at least one batch is committed: the codebase is searchable. */
  searchable: boolean;
  /** Batches committed so far in this run: a change means search can see more. */
  batches: number;
}

export class ProgressMeter {
  readonly #report: (p: IndexProgress) => void;
  readonly #now: () => number;
  /** When the run left 'preparing' (its chunking began), by `now`. */
  #started = -1;
  #startFiles = -1;
  #lastWarning: IndexWarning | null = null;
  #batches = 0;
  #lastSent = 0;
  #pending: IndexProgress | null = null;

  constructor(report: (p: IndexProgress) => void, now: () => number = () => performance.now()) {
    this.#report = report;
    this.#now = now;
  }

  warning(w: IndexWarning): void {
    this.#lastWarning = w;
  }

  /** A batch was committed: search can see it. */
  batch(): void {
    this.#batches++;
  }

  status(status: CodebaseStatus): void {
    if (this.#startFiles < 0 && status.currentStage !== 'preparing') {
      this.#startFiles = status.indexedFiles;
      this.#started = this.#now();
    }
    const secs = this.#started < 0 ? 0 : (this.#now() - this.#started) / 1000;
    const done = Math.max(0, status.indexedFiles - Math.max(0, this.#startFiles));
    const rate = secs > MIN_RATE_SECONDS && done >= MIN_RATE_FILES ? done / secs : 0;
    const left = status.totalFiles - status.indexedFiles;
    const etaSeconds = rate > 0 && status.walkDone && status.currentStage !== 'preparing' ? left / rate : null;
    const percent = status.walkDone ? status.progress : null;
    this.#pending = { status, rate, etaSeconds, percent, lastWarning: this.#lastWarning, searchable: this.#batches > 0, batches: this.#batches };
    this.#send(status.currentStage === 'complete');
  }

  /** Reports the pending progress now (end of run). */
  flush(): void {
    this.#send(true);
  }

  #send(force: boolean): void {
    if (!this.#pending) return;
    const t = this.#now();
    if (!force && t - this.#lastSent < PROGRESS_MS) return;
    this.#lastSent = t;
    this.#report(this.#pending);
    this.#pending = null;
  }
}
