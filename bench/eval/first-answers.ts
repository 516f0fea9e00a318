/**
 * The first `search` answer an agent gets from a fresh `sift mcp` (issue 34: agents' first
 * answers), scored against the repos eval's hand-written answers (bench/eval/repos/hand.json,
 * NDCG@10 with the eval's rule: a file earns at its first result). Per question: the repository
 * copied to a fresh folder, a fresh SIFT_HOME, `sift mcp <copy>` spawned through the MCP SDK's
 * client, one `search` (limit 10) at once — during the first index it answers from the files it
 * stores ahead — then the server closed. Reports the mean NDCG, the answer's time after spawn
 * and its `indexed_share`; two checkouts' bin/sift are scored question by question in turn.
 *
 * Usage: npx tsx bench/eval/first-answers.ts [--bin A] [--against B] [--out FILE] repo…
 *   (repositories of bench/eval/repos.json, checked out by `repos.ts prepare`)
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMain, parseArgs, SIFT_BIN, TMP_DIR } from '../util.ts';
import { connect } from '../mcp.ts';
import { checkoutDir, readManifest } from './repos/corpus.ts';
import { HAND_FILE, readQuestions } from './repos.ts';
import { ndcg, mean } from './repos/score.ts';

interface Answer { id: string; ms: number; share: number | null; ndcg: number; top: string[] }

async function firstAnswer(bin: string, repoDir: string, query: string): Promise<{ ms: number; share: number | null; top: string[] }> {
  const dir = join(TMP_DIR, 'first-answers');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(repoDir, join(dir, 'repo'), { recursive: true });
  const t0 = performance.now();
  const client = await connect(join(dir, 'repo'), join(dir, 'home'), bin);
  try {
    const r = await client.callTool({ name: 'search', arguments: { query, limit: 10 } });
    const ms = performance.now() - t0;
    const data = r.structuredContent as { results?: Array<{ path: string }>; indexed_share?: number } | undefined;
    return { ms, share: data?.indexed_share ?? null, top: (data?.results ?? []).map((x) => x.path) };
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const { positional, flags: f } = parseArgs(process.argv.slice(2), []);
  const flags = Object.fromEntries(f) as Record<string, string | true | undefined>;
  const bins = [typeof flags.bin === 'string' ? flags.bin : SIFT_BIN, ...(typeof flags.against === 'string' ? [flags.against] : [])];
  const specs = readManifest().filter((s) => positional.includes(s.name));
  if (!specs.length) throw new Error('name one or more repositories of bench/eval/repos.json');
  const questions = readQuestions(HAND_FILE).filter((q) => specs.some((s) => s.name === q.repo));
  const out: Record<string, Answer[]> = Object.fromEntries(bins.map((b) => [b, []]));
  for (const q of questions) {
    const spec = specs.find((s) => s.name === q.repo)!;
    for (const bin of bins) {
      const a = await firstAnswer(bin, checkoutDir(spec), q.question);
      out[bin].push({ id: q.id, ms: Math.round(a.ms), share: a.share, ndcg: ndcg(a.top, q.answers), top: a.top });
    }
  }
  for (const bin of bins) {
    const rows = out[bin];
    console.log(`${bin}: ${rows.length} questions, first answer NDCG@10 ${mean(rows.map((r) => r.ndcg)).toFixed(3)}, ${mean(rows.map((r) => r.ms)).toFixed(0)} ms after spawn (mean), indexed_share ${mean(rows.map((r) => r.share ?? 1)).toFixed(2)}`);
  }
  if (bins.length === 2) {
    const [a, b] = bins.map((bin) => new Map(out[bin].map((r) => [r.id, r])));
    for (const [id, x] of a) {
      const y = b.get(id)!;
      if (Math.abs(x.ndcg - y.ndcg) > 1e-9) console.log(`  ${id}: ${x.ndcg.toFixed(2)} (${bins[0]}) vs ${y.ndcg.toFixed(2)} (${bins[1]})`);
    }
  }
  if (typeof flags.out === 'string') writeFileSync(flags.out, `${JSON.stringify(out, null, 1)}\n`);
}

if (isMain(import.meta.url)) await main();
