/**
 * `sift check` (and `sift index --verify` before it writes): SQLite's integrity_check and the
 * FTS5 integrity-check over the whole index. "ok" exits 0; any problem is reported as a
 * corrupt index (exit 4) with the advice to rebuild — the only command that concludes that
 * from a check rather than from an error SQLite raised.
 */
import type { CliIo } from './io.ts';
import { CliError, safeText, type IndexContext } from './context.ts';
import { EXIT_CODE } from '../core/store/errors.ts';
import type { Store } from '../core/store/store.ts';

/** Problems per integrity check shown in the error line (the JSON output carries them all). */
const PROBLEMS_SHOWN = 3;

export interface CheckReport {
  ok: boolean;
  problems: string[];
  ms: number;
}

export async function checkStore(store: Store): Promise<CheckReport> {
  const t0 = performance.now();
  const result = await store.integrityCheck();
  const problems = result === 'ok' ? [] : result.split('\n');
  return { ok: problems.length === 0, problems, ms: performance.now() - t0 };
}

/** Quick structural check (PRAGMA quick_check: no index-content comparison), for after a crash. */
export async function quickCheckStore(store: Store): Promise<CheckReport> {
  const t0 = performance.now();
  const rows = await store.db.all<{ quick_check: string }>('PRAGMA quick_check');
  const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
  return { ok: problems.length === 0, problems, ms: performance.now() - t0 };
}

export function corruptFromReport(ctx: { dir: string; db: string }, report: CheckReport): CliError {
  const shown = report.problems.slice(0, PROBLEMS_SHOWN).map(safeText).join('; ');
  const more = report.problems.length > PROBLEMS_SHOWN ? ` (+${report.problems.length - PROBLEMS_SHOWN} more)` : '';
  return new CliError(`the index at ${ctx.db} is corrupt (integrity check: ${shown}${more}); run \`sift rebuild ${ctx.dir}\``, EXIT_CODE.corrupt);
}

export async function runCheck(ctx: IndexContext, json: boolean, io: CliIo): Promise<number> {
  try {
    const report = await checkStore(ctx.store);
    const files = report.ok ? (await ctx.store.stats()).files : null;
    if (json) {
      io.out(JSON.stringify({ dir: ctx.dir, db: ctx.paths.db, ok: report.ok, problems: report.problems, ms: Math.round(report.ms) }, null, 2) + '\n');
      return report.ok ? 0 : EXIT_CODE.corrupt;
    }
    if (!report.ok) throw corruptFromReport({ dir: ctx.dir, db: ctx.paths.db }, report);
    io.out(safeText(`${ctx.paths.db}: ok (${files} files; integrity_check and FTS5 integrity-check passed in ${(report.ms / 1000).toFixed(2)}s)`) + '\n');
    return 0;
  } finally {
    await ctx.store.close();
  }
}
