import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { openMemoryStore } from '../store/open-node.ts';
import type { Store } from '../store/store.ts';
import { BM25_EXPR, plannedCandidates, probeRows } from './bm25.ts';
import { essentialRows, planFts, replan, type BoundedPhrase, type RowProbe } from './fts-plan.ts';
import { processQuery } from './query.ts';

/** Rows per MATCH expression as a table (the planner only sees counts). */
function tableProbe(rows: Record<string, number>): RowProbe & { asked: string[] } {
  const asked: string[] = [];
  const probe = async (match: string, cap: number) => {
    asked.push(match);
    return Math.min(cap, rows[match] ?? 0);
  };
  return Object.assign(probe, { asked });
}

const OPTS = { cap: 100, bigCap: 1000, thetaGuess: 0.3, wordEnough: 10, enough: 20, identifier: false, tableRows: 5000 };
/** FTS5's (k1 + 1) × idf for a phrase in n of OPTS.tableRows rows, computed here apart from scoreBound. */
const bound = (n: number) => 2.2 * Math.log((5000 - n + 0.5) / (n + 0.5));

describe('planFts (counts)', () => {
  it('ORs every group while no phrase is common', async () => {
    const q = processQuery('parse config');
    const probe = tableProbe({
      '"parse"': 40, '"parse"*': 45, '"config"': 30, '"config"*': 35, '"configuration"': 5, '"configur"*': 8, '"cfg"': 2, '"conf"': 1, '"conf"*': 40,
    });
    const plan = await planFts(q.ftsGroups, probe, OPTS);
    expect(plan.kind).toBe('or');
    expect(plan.matches).toEqual([q.ftsQuery]);
  });

  it('searches a common word as typed instead of its prefix, and keeps a rare prefix', async () => {
    const q = processQuery('lock kmal');
    expect(q.ftsQuery).toBe('"lock"* OR "kmal"* OR "mutex"*');
    const probe = tableProbe({ '"lock"': 500, '"kmal"': 0, '"kmal"*': 30, '"mutex"': 20, '"mutex"*': 25 });
    const plan = await planFts(q.ftsGroups, probe, OPTS);
    expect(plan.groups.map((g) => g.phrases)).toEqual([['"lock"', '"mutex"*'], ['"kmal"*']]);
    expect(probe.asked).not.toContain('"lock"*');
    expect(plan.kind).toBe('rare');
    // Kept phrases lowest bound (most rows) first.
    expect(plan.matches).toEqual(['("kmal"* OR "mutex"*) AND "lock"', '"kmal"* OR "mutex"*']);
    expect(plan.bound).toBeCloseTo(2.2 * Math.log(4900.5 / 100.5), 9);
  });

  it('does not search a multi-token word as a prefix once it has enough rows as typed', async () => {
    const q = processQuery('mutex_lock');
    const probe = tableProbe({ '"mutex_lock"': 12, '"mutex"': 300, '"lock"': 500 });
    const plan = await planFts(q.ftsGroups, probe, OPTS);
    expect(plan.groups[0].phrases).toEqual(['"mutex_lock"']);
    expect(probe.asked).not.toContain('"mutex_lock"*');
  });

  it('answers an identifier from the rows that name it when they are enough, ranked by the name', async () => {
    const q = processQuery('mutex_lock');
    const rows = { '"mutex_lock"': 60, '"mutex"': 300, '"lock"': 500 };
    const plan = await planFts(q.ftsGroups, tableProbe(rows), { ...OPTS, identifier: true });
    expect(plan.kind).toBe('identifier');
    expect(plan.matches).toEqual(['"mutex_lock"']);
    expect(plan.fallback).toEqual(['"mutex_lock" OR "mutex" OR "lock"']);
    const camel = processQuery('getUserName');
    // A name no row has: its parts, all common, must all be there (usr, the expansion of user,
    // matches nothing here: left out).
    const none = await planFts(camel.ftsGroups, tableProbe({ '"get"': 900, '"user"': 500, '"name"': 700 }), { ...OPTS, identifier: true });
    expect(none.kind).toBe('all');
    expect(none.matches).toEqual(['"get" AND "user" AND "name"']);
    // Too few rows name it: the least common part joins it to fill the candidates, the most
    // common is left out (checked against its bound).
    const few = await planFts(q.ftsGroups, tableProbe({ ...rows, '"mutex_lock"': 12 }), { ...OPTS, identifier: true });
    expect(few.kind).toBe('rare');
    expect(few.matches).toEqual(['("mutex" OR "mutex_lock") AND "lock"', '"mutex" OR "mutex_lock"']);
    expect(few.fallback).toEqual(['"mutex_lock" OR "mutex" OR "lock"']);
    // Nothing common: the full OR.
    const rare = await planFts(q.ftsGroups, tableProbe({ '"mutex_lock"': 12, '"mutex"': 30, '"lock"': 50 }), { ...OPTS, identifier: true });
    expect(rare.kind).toBe('or');
  });

  it('selects a descriptive query\'s rows by its rarer words, falling back to the full OR below the bound', async () => {
    const q = processQuery('free pages pressure');
    const probe = tableProbe({ '"free"': 900, '"pages"': 10, '"page"*': 40, '"pressure"': 25, '"pressure"*': 30 });
    const plan = await planFts(q.ftsGroups, probe, OPTS);
    expect(plan.kind).toBe('rare');
    expect(plan.matches).toEqual(['("page"* OR "pressure"*) AND "free"', '"page"* OR "pressure"*']);
    expect(plan.fallback).toEqual(['"free" OR "page"* OR "pressure"*']);
    // free is common (counted up to the cap): it adds less than 2.2 × ln((5000 − 100 + 0.5) / 100.5).
    expect(plan.bound).toBeCloseTo(2.2 * Math.log(4900.5 / 100.5), 9);
    // Two common phrases: the bound uses their real counts.
    const two = await planFts(q.ftsGroups, tableProbe({ '"free"': 900, '"pages"': 10, '"page"*': 400, '"pressure"': 25, '"pressure"*': 30 }), OPTS);
    expect(two.kind).toBe('rare');
    expect(two.matches).toEqual(['"pressure"* AND ("free" OR "page"*)', '"pressure"*']);
    expect(two.bound).toBeCloseTo(2.2 * (Math.log(4100.5 / 900.5) + Math.log(4600.5 / 400.5)), 9);
    // Three or more: the most common ones whose bounds fit in thetaGuess × all bounds (at least one).
    const three = await planFts(processQuery('free pages under pressure').ftsGroups,
      tableProbe({ '"free"': 900, '"pages"': 10, '"page"*': 400, '"under"': 300, '"pressure"': 25, '"pressure"*': 30 }), OPTS);
    expect(three.kind).toBe('rare');
    expect(0.3 * (bound(900) + bound(400) + bound(300) + bound(30))).toBeLessThan(bound(900) + bound(400));
    expect(three.matches).toEqual(['("page"* OR "under" OR "pressure"*) AND "free"', '"page"* OR "under" OR "pressure"*']);
    expect(three.bound).toBeCloseTo(bound(900), 9);
    // Too few rows with rarer phrases to fill the candidates, and no common phrase to spare: the OR at once.
    const few = await planFts(q.ftsGroups, tableProbe({ '"free"': 900, '"pages"': 10, '"page"*': 40, '"pressure"': 0, '"pressure"*': 5 }), { ...OPTS, enough: 50 });
    expect(few.kind).toBe('or');
  });

  it('with leaveOut below the cap, leaves a phrase in that many rows out of the first try, never changes the identifier or all-common plans', async () => {
    const q = processQuery('free pages pressure');
    // No phrase common (cap 100): the full OR, unless leaveOut lets `free` (60 rows) be left out.
    const rows = { '"free"': 55, '"free"*': 60, '"pages"': 10, '"page"*': 40, '"pressure"': 25, '"pressure"*': 30 };
    expect((await planFts(q.ftsGroups, tableProbe(rows), OPTS)).kind).toBe('or');
    const plan = await planFts(q.ftsGroups, tableProbe(rows), { ...OPTS, leaveOut: 50 });
    expect(plan.kind).toBe('rare');
    expect(plan.matches).toEqual(['("page"* OR "pressure"*) AND "free"*', '"page"* OR "pressure"*']);
    expect(plan.fallback).toEqual(['"free"* OR "page"* OR "pressure"*']);
    expect(plan.bound).toBeCloseTo(bound(60), 9); // counted exactly (below the cap)
    // No phrase in leaveOut rows: the OR.
    expect((await planFts(q.ftsGroups, tableProbe(rows), { ...OPTS, leaveOut: 61 })).kind).toBe('or');
    // A leaveOut above the cap is the cap.
    expect((await planFts(q.ftsGroups, tableProbe(rows), { ...OPTS, leaveOut: 1000 })).kind).toBe('or');
    // Every group common: still the rows with all of them.
    const all = await planFts(processQuery('read lock').ftsGroups, tableProbe({ '"read"': 500, '"lock"': 400 }), { ...OPTS, leaveOut: 50 });
    expect(all.kind).toBe('all');
  });

  it('replans from the n-th best score found: leaves out the most common phrases whose bounds fit in it', async () => {
    const rows = { '"free"': 900, '"pages"': 10, '"page"*': 400, '"pressure"': 25, '"pressure"*': 30 };
    const plan = await planFts(processQuery('free pages pressure').ftsGroups, tableProbe(rows), OPTS);
    expect(plan.bound).toBeCloseTo(bound(900) + bound(400), 9);
    const again = tableProbe(rows);
    // The first try found an n-th best below its bound, with room for free only.
    const next = await replan(plan, bound(900) + 0.01, again, OPTS);
    expect(next?.leftOut).toEqual(['"free"']);
    expect(next?.matches).toEqual(['("page"* OR "pressure"*) AND "free"', '"page"* OR "pressure"*']);
    expect(next?.bound).toBeCloseTo(bound(900), 9);
    expect(again.asked).toEqual([]); // counted below bigCap already
    // No room for the most common one: the full OR.
    expect(await replan(plan, bound(900) - 0.01, again, OPTS)).toBeNull();
  });

  it('replan counts left-out phrases in full when their bounds came from a cap', async () => {
    const q = processQuery('free pages pressure');
    // One common phrase: planned from the cap, not counted.
    const rows = { '"free"': 2000, '"pages"': 10, '"page"*': 40, '"pressure"': 25, '"pressure"*': 30 };
    const plan = await planFts(q.ftsGroups, tableProbe(rows), OPTS);
    expect(plan.bound).toBeCloseTo(bound(100), 9);
    const again = tableProbe(rows);
    // theta below the capped bound, above the counted one: the first try's rows were enough.
    const next = await replan(plan, bound(2000) + 0.01, again, OPTS);
    expect(again.asked).toEqual(['"free"']);
    expect(next).toEqual({ matches: [], kept: [], bound: expect.closeTo(bound(2000), 9), leftOut: ['"free"'] });
  });

  it('requires every group when all are common, with the full OR as fallback', async () => {
    const q = processQuery('read lock');
    const plan = await planFts(q.ftsGroups, tableProbe({ '"read"': 800, '"lock"': 900, '"mutex"': 50, '"mutex"*': 60 }), OPTS);
    expect(plan.kind).toBe('all');
    expect(plan.matches).toEqual(['"read" AND ("lock" OR "mutex"*)']);
    expect(plan.fallback).toEqual(['"read" OR "lock" OR "mutex"*']);
  });

  it('plans nothing for a query with no phrases', async () => {
    const plan = await planFts(processQuery('  ').ftsGroups, tableProbe({}), OPTS);
    expect(plan.matches).toEqual([]);
  });
});

// A real FTS5 index: the planned statements' rows and bm25 scores are those of the full OR.

function chunk(i: number, content: string): Chunk & { contentHash: string } {
  return {
    path: `src/f${i}.c`, startLine: 1, endLine: 1, language: 'c', chunkType: 'function', symbol: `f${i}`,
    parent: null, signature: null, doc: null, content, contentHash: `h${i}`,
  };
}

/** A memory store of `rows` one-chunk C files, chunk i being `int f<i>(void) { <words(i)> }`. */
async function wordStore(rows: number, words: (i: number) => string[]): Promise<Store> {
  const store = await openMemoryStore();
  const items = [];
  for (let i = 0; i < rows; i++) {
    const c = chunk(i, `int f${i}(void) { ${words(i).join(' ')} }`);
    items.push({ file: { path: c.path, hash: `f${i}`, size: 1, mtime: 0, language: 'c' }, chunks: [c] });
  }
  await store.writeFiles(items);
  return store;
}

describe('planned statements on a real FTS5 index', () => {
  let store: Store;
  // The probe the keyword leg uses.
  const probe: RowProbe = (match, cap) => probeRows(store.db)(match, cap);
  const scored = async (match: string) =>
    new Map((await store.db.all<{ id: number; r: number }>(`SELECT rowid AS id, ${BM25_EXPR} AS r FROM chunks_fts WHERE chunks_fts MATCH ?`, [match])).map((x) => [x.id, x.r]));

  beforeAll(async () => {
    store = await wordStore(240, (i) => {
      // f239 names the identifier and has no other word.
      const words = i === 239 ? [] : ['buffer'];
      if (i % 2 === 0) words.push('memory');
      if (i % 3 === 0) words.push('buffer buffer');
      if (i % 40 === 0 || i === 239) words.push('buffer_deflate');
      if (i % 45 === 1) words.push('buffer_deflate deflate');
      return words;
    });
  });
  afterAll(async () => { await store.close(); });

  it('an identifier plan has the rows that name it', async () => {
    const q = processQuery('buffer_deflate');
    const plan = await planFts(q.ftsGroups, probe, { ...OPTS, enough: 5, identifier: true, tableRows: 240 });
    expect(plan.kind).toBe('identifier');
    const named = await scored(plan.matches[0]);
    expect(named.size).toBe(13);
    const full = await scored(plan.groups.flatMap((g) => g.phrases).join(' OR '));
    for (const id of named.keys()) expect(full.has(id)).toBe(true);
  });

  it('an all-common plan scores the rows with every word, as the full OR does', async () => {
    const q = processQuery('buffer memory');
    const plan = await planFts(q.ftsGroups, probe, { ...OPTS, enough: 5, tableRows: 240 });
    expect(plan.kind).toBe('all');
    const full = await scored(plan.groups.flatMap((g) => g.phrases).join(' OR '));
    const both = await scored(plan.matches[0]);
    expect(both.size).toBe(120);
    for (const [id, r] of both) expect(r).toBeCloseTo(full.get(id)!, 9);
  });

  it('below the cap, counts only a multi-token word and scores as the counted OR does: same rows, same bm25', async () => {
    for (const text of ['buffer deflate', 'buffer_deflate', 'deflate buffer_deflat zzzunknown', 'memory buffer']) {
      const q = processQuery(text);
      const asked: string[] = [];
      const counting: RowProbe = (match, cap) => { asked.push(match); return probe(match, cap); };
      // cap above the table's 240 rows: no phrase can be common.
      const small = await planFts(q.ftsGroups, counting, { ...OPTS, cap: 241, tableRows: 240 });
      expect(small.kind).toBe('or');
      expect(asked.every((m) => /[_]/.test(m))).toBe(true);
      // The same plan with every phrase counted (the rule before): the same OR, less phrases that match nothing.
      const counted = await planFts(q.ftsGroups, probe, { ...OPTS, cap: 241, tableRows: 241 });
      expect(counted.kind).toBe('or');
      const a = await scored(small.matches[0] ?? '""');
      const b = counted.matches.length ? await scored(counted.matches[0]) : new Map<number, number>();
      expect([...a].sort((x, y) => x[0] - y[0])).toEqual([...b].sort((x, y) => x[0] - y[0]));
    }
  });

  it('a rare plan that passes its bound has exactly the full OR\'s best rows and scores', async () => {
    const q = processQuery('buffer deflate');
    const plan = await planFts(q.ftsGroups, probe, { ...OPTS, enough: 5, tableRows: 240 });
    expect(plan.kind).toBe('rare');
    const best = (m: Map<number, number>) => [...m].sort((a, b) => a[1] - b[1] || a[0] - b[0]).slice(0, 5);
    const planned = new Map<number, number>();
    for (const m of plan.matches) for (const [id, r] of await scored(m)) planned.set(id, Math.min(r, planned.get(id) ?? r));
    const top = best(planned);
    expect(-top[4][1]).toBeGreaterThanOrEqual(plan.bound!); // the case is real: no fallback needed
    const full = best(await scored(plan.fallback[0]));
    expect(top.map(([id]) => id)).toEqual(full.map(([id]) => id));
    top.forEach(([, r], i) => expect(r).toBeCloseTo(full[i][1], 9));
  });
});

describe('a replanned query on a real FTS5 index', () => {
  let store: Store;
  const probe: RowProbe = (match, cap) => probeRows(store.db)(match, cap);
  const best = async (match: string, n: number) =>
    store.db.all<{ id: number; r: number }>(`SELECT rowid AS id, ${BM25_EXPR} AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r, rowid LIMIT ?`, [match, n]);

  beforeAll(async () => {
    store = await wordStore(1000, (i) => {
      const words = ['filler'];
      if (i % 3 === 0) words.push(i % 4 ? 'beta' : 'beta beta');
      if (i % 5 === 0) words.push('gamma');
      // omega never with gamma: the rows with omega alone score below beta and gamma's bounds.
      if (i % 50 === 1) words.push('omega');
      return words;
    });
  });
  afterAll(async () => { await store.close(); });

  it('the second try has exactly the full OR\'s best rows and scores, without running it', async () => {
    const n = 10;
    const o = { ...OPTS, enough: n, tableRows: 1000 };
    const plan = await planFts(processQuery('beta gamma omega').ftsGroups, probe, o);
    expect(plan.kind).toBe('rare');
    const byId = new Map<number, number>();
    const run = async (matches: string[]) => {
      for (const m of matches) for (const { id, r } of await best(m, n)) byId.set(id, Math.min(r, byId.get(id) ?? r));
    };
    const top = () => [...byId].sort((a, b) => a[1] - b[1] || a[0] - b[0]).slice(0, n);
    await run(plan.matches);
    const theta = -top()[n - 1][1];
    expect(theta).toBeLessThan(plan.bound!); // the case is real: the first try is not enough
    const next = await replan(plan, theta, probe, o);
    expect(next?.leftOut).toEqual(['"beta"']);
    await run(next!.matches);
    expect(-top()[n - 1][1]).toBeGreaterThanOrEqual(next!.bound);
    const full = await best(plan.fallback[0], n);
    expect(top().map(([id]) => id)).toEqual(full.map((x) => x.id));
    top().forEach(([, r], i) => expect(r).toBeCloseTo(full[i].r, 9));
  });
});

describe('essentialRows', () => {
  const kept = (...bounds: number[]): BoundedPhrase[] => bounds.map((bound, i) => ({ phrase: `"p${i}"`, rows: 1, bound }));

  it('leaves every row when each kept phrase alone can reach theta', () => {
    expect(essentialRows(kept(6, 7, 8), 5)).toBe('all');
    expect(essentialRows([], 5)).toBe('all');
  });

  it('needs no row when not even all kept phrases together can', () => {
    expect(essentialRows(kept(2, 3), 5)).toBe('none');
    expect(essentialRows(kept(2, 3), 5 + 1e-9)).toBe('none');
  });

  it('asks for the minimal sets of phrases whose bounds pass theta', () => {
    // p2 alone passes; p0 + p1 pass together; p0 + p2 holds p2, so it is not minimal.
    expect(essentialRows(kept(4, 5, 10), 8)).toEqual({ match: '("p0" AND "p1") OR "p2"' });
    // Equal to theta is not more: a row scores less than its bounds' sum.
    expect(essentialRows(kept(4, 4, 4), 8)).toEqual({ match: '("p0" AND "p1" AND "p2")' });
    // p1 + p2 pass; all three pass too but hold p1 + p2.
    expect(essentialRows(kept(3, 4, 5), 8.5)).toEqual({ match: '("p1" AND "p2")' });
  });

  it('gives up (every row) past its limits', () => {
    expect(essentialRows(kept(...Array.from({ length: 11 }, () => 1)), 1.5)).toBe('all');
    // 6 phrases of bound 1 and theta 2.5: C(6, 3) = 20 minimal sets.
    expect(essentialRows(kept(1, 1, 1, 1, 1, 1), 2.5)).toBe('all');
    expect(essentialRows(kept(1, 1, 1, 1, 1, 1), 2.5, 20)).toEqual({ match: expect.stringContaining('("p3" AND "p4" AND "p5")') });
  });
});

describe('the keyword leg on a real FTS5 index (plannedCandidates)', () => {
  let store: Store;
  beforeAll(async () => {
    // `common` is in 4,500 of 5,000 rows (left out); `alpha`, `beta`, `gamma` in ~300-500 each.
    // 150 rows hold alpha, beta, gamma and common: their scores make the 100th best pass any one
    // kept phrase's bound, so a row without common needs two kept phrases. 30 rows hold alpha
    // and gamma three times each without common: they belong to the full OR's best 100.
    store = await wordStore(5000, (i) => {
      const w: string[] = [];
      if (i < 4500) w.push('common');
      if (i < 150) w.push('alpha beta gamma');
      else if (i >= 4600 && i < 4630) w.push('alpha alpha alpha gamma gamma gamma');
      else if (i >= 4700) w.push(['alpha', 'beta', 'gamma'][i % 3]);
      else if (i % 25 === 0) w.push(['alpha', 'beta', 'gamma'][i % 3]);
      return w.length ? w : ['filler'];
    });
  });
  afterAll(async () => { await store.close(); });

  it('scores only the rows that can reach the n-th best, and finds the full OR\'s best rows', async () => {
    const n = 100;
    const q = processQuery('common alpha beta gamma');
    const sql: string[] = [];
    const db = store.db;
    const spy = { ...db, all: (s: string, p?: unknown) => { sql.push(s); return db.all(s, p as never); } } as typeof db;
    const rows = await plannedCandidates(spy, q, '', [], [], n);
    expect(sql.some((s) => s.includes('IN (SELECT rowid FROM chunks_fts'))).toBe(true); // the case is real
    const top = [...rows].sort((a, b) => a.r - b.r || a.id - b.id).slice(0, n);
    const full = await db.all<{ id: number; r: number }>(
      `SELECT rowid AS id, ${BM25_EXPR} AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r, rowid LIMIT ?`,
      [q.ftsGroups.flat().map((p) => p.word).join(' OR '), n],
    );
    expect(top.map((x) => x.id)).toEqual(full.map((x) => x.id));
    top.forEach((x, i) => expect(x.r).toBeCloseTo(full[i].r, 9));
    expect(top.filter((x) => x.id >= 4600 && x.id < 4700)).not.toHaveLength(0);
  });

  it('with no common phrase, leaves out the phrases in a sixteenth of the rows and still finds the full OR\'s best rows', async () => {
    const n = 100;
    const q = processQuery('alpha beta gamma');
    const sql: string[] = [];
    const db = store.db;
    const spy = { ...db, all: (s: string, p?: unknown) => { sql.push(s); return db.all(s, p as never); } } as typeof db;
    const rows = await plannedCandidates(spy, q, '', [], [], n);
    // The case is real: a rare plan's first statement (kept phrases AND a left-out one) ran.
    expect(sql.filter((s) => s.includes('bm25(')).length).toBeGreaterThan(1);
    const top = [...rows].sort((a, b) => a.r - b.r || a.id - b.id).slice(0, n);
    const full = await db.all<{ id: number; r: number }>(
      `SELECT rowid AS id, ${BM25_EXPR} AS r FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY r, rowid LIMIT ?`,
      [q.ftsQuery, n],
    );
    expect(top.map((x) => x.id)).toEqual(full.map((x) => x.id));
    top.forEach((x, i) => expect(x.r).toBeCloseTo(full[i].r, 9));
  });
});
