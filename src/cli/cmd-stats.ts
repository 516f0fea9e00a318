/**
 * `sift stats` and `sift types`: what is in an index, for people (text) and scripts (--json).
 */
import type { CliIo } from './io.ts';
import { safeText, type IndexContext } from './context.ts';
import type { SkippedStats } from '../core/walk/skipped.ts';
import type { IndexStructures } from '../core/store/store.ts';
import { familyOfKey } from '../core/embed/model-files.ts';

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

/** The "not indexed" section: counts by reason, the most frequent extensions, a few paths. */
function skippedLines(sk: SkippedStats | null): string[] {
  if (!sk) return ['  not indexed:  unknown (indexed before Sift recorded it; run sift index again)'];
  if (sk.total === 0) return ['  not indexed:  nothing'];
  const exts = Object.entries(sk.by_extension).slice(0, 12);
  return [
    `  not indexed:  ${sk.total} (a skipped folder counts once)`,
    ...Object.entries(sk.by_reason).map(([r, n]) => `    ${r.padEnd(12)} ${String(n).padStart(8)}`),
    ...(exts.length ? [`    by extension: ${exts.map(([e, n]) => `${e} ${n}`).join(', ')}`] : []),
    '    e.g.',
    ...sk.examples.map((e) => `      ${e.path}  (${e.reason}${e.detail ? `: ${e.detail}` : ''})`),
  ];
}

/** Index bytes by structure, largest first, with each one's share of the index and of the source. */
function structureLines(st: IndexStructures, sourceBytes: number): string[] {
  return Object.entries(st.structures).sort((a, b) => b[1] - a[1]).map(([k, v]) =>
    `    ${k.padEnd(12)} ${fmtBytes(v).padStart(9)}  ${((100 * v) / (st.total || 1)).toFixed(1).padStart(5)}%${sourceBytes ? `  ${(v / sourceBytes).toFixed(2)}× source` : ''}`);
}

export async function runStats(ctx: IndexContext, json: boolean, io: CliIo): Promise<number> {
  try {
    const s = await ctx.store.stats();
    const st = await ctx.store.structureBytes();
    if (json) {
      io.out(JSON.stringify({ dir: ctx.dir, db: ctx.paths.db, ...s, modelFamily: s.model ? familyOfKey(s.model) : null, structures: st }, null, 2) + '\n');
      return 0;
    }
    const lines = [
      `${ctx.dir}`,
      `  files:        ${s.files} (${fmtBytes(s.bytes)})`,
      `  chunks:       ${s.chunks}`,
      `  symbols:      ${s.symbols}`,
      `  index size:   ${fmtBytes(s.dbBytes)}${s.bytes ? ` (${(s.dbBytes / s.bytes).toFixed(2)}× source)` : ''}`,
      `  embedded:     ${s.embeddedChunks}/${s.chunks}${s.model ? ` (${s.model})` : ''}`,
      ...(s.model ? [`  model:        ${s.model.slice(0, s.model.lastIndexOf('@'))}, ${familyOfKey(s.model) === 'static' ? 'static (model2vec)' : 'transformer'} family`] : []),
      `  last indexed: ${s.lastIndexed ?? 'never'}`,
      '  languages:',
      ...Object.entries(s.languages)
        .sort((a, b) => b[1].chunks - a[1].chunks)
        .map(([lang, v]) => `    ${lang.padEnd(12)} ${String(v.files).padStart(6)} files ${fmtBytes(v.bytes).padStart(9)} ${String(v.chunks).padStart(8)} chunks${v.structured ? '' : '  (plain text: no grammar)'}`),
      '  kinds:',
      ...Object.entries(s.kinds)
        .sort((a, b) => b[1].bytes - a[1].bytes)
        .map(([k, v]) => `    ${k.padEnd(12)} ${String(v.files).padStart(6)} files ${fmtBytes(v.bytes).padStart(9)} ${String(v.chunks).padStart(8)} chunks`),
      '  chunk types:',
      ...Object.entries(s.chunkTypes)
        .sort((a, b) => b[1] - a[1])
        .map(([t, n]) => `    ${t.padEnd(12)} ${String(n).padStart(8)}`),
      '  index bytes by structure (rows and index entries, estimated; other: page overhead, unused and free space):',
      ...structureLines(st, s.bytes),
      ...skippedLines(s.skipped),
    ];
    io.out(lines.map(safeText).join('\n') + '\n');
    return 0;
  } finally {
    await ctx.store.close();
  }
}

export async function runTypes(ctx: IndexContext, json: boolean, io: CliIo): Promise<number> {
  try {
    const types = await ctx.store.chunkTypes();
    io.out(json ? JSON.stringify({ chunk_types: types }, null, 2) + '\n' : types.join('\n') + '\n');
    return 0;
  } finally {
    await ctx.store.close();
  }
}
