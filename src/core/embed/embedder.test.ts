import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng, ensureGeneratedModel } from '../../../scripts/gen-models.ts';
import { Embedder, SessionGate, embeddingText, planBatches } from './embedder.ts';
import { defaultNumThreads } from './threads.ts';
import { SAMPLE_TEXTS as TEXTS } from './test-fixtures.ts';

const MODELS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../models/generated');

function row(v: Float32Array, i: number, dim: number): Float32Array {
  return v.subarray(i * dim, (i + 1) * dim);
}
function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

const WORD_POOL = (
  'open close read write parse json config file user name sort list socket server client request response ' +
  'cache query index search token hash merge tree node graph error retry timeout thread worker batch layer ' +
  'matrix vector score rank chunk path string number array object class method'
).split(' ');


describe('planBatches', () => {
  it.each([
    { lengths: [], size: 4, want: [] },
    { lengths: [5], size: 4, want: [[0]] },
    { lengths: [3, 9, 1, 9, 4], size: 2, want: [[1, 3], [4, 0], [2]] },
    { lengths: [2, 2, 2], size: 8, want: [[0, 1, 2]] },
    { lengths: [1, 2, 3], size: 1, want: [[2], [1], [0]] },
  ])('$lengths by $size', ({ lengths, size, want }) => {
    expect(planBatches(lengths, size)).toEqual(want);
  });

  it('covers every index exactly once with bounded batches', () => {
    const lengths = Array.from({ length: 101 }, (_, i) => (i * 37) % 256);
    const batches = planBatches(lengths, 32);
    expect(batches.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
    expect(batches.every((b) => b.length <= 32)).toBe(true);
    // Bucketed: each batch's shortest is ≥ the next batch's longest.
    for (let i = 1; i < batches.length; i++) {
      expect(Math.min(...batches[i - 1]!.map((j) => lengths[j]!))).toBeGreaterThanOrEqual(
        Math.max(...batches[i]!.map((j) => lengths[j]!)),
      );
    }
  });

  it('rejects a batch size below 1', () => {
    expect(() => planBatches([1], 0)).toThrow(RangeError);
  });
});

describe('SessionGate', () => {
  it('serves waiting queries before waiting batches, one run at a time', async () => {
    const gate = new SessionGate();
    const log: string[] = [];
    let running = 0;
    let started!: () => void;
    const b1Started = new Promise<void>((r) => (started = r));
    const job = (name: string) => async () => {
      running++;
      expect(running).toBe(1);
      log.push(name);
      if (name === 'b1') started();
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    const first = gate.run('batch', job('b1'));
    await b1Started;
    const rest = [
      gate.run('batch', job('b2')),
      gate.run('batch', job('b3')),
      gate.run('query', job('q1')),
      gate.run('query', job('q2')),
    ];
    await Promise.all([first, ...rest]);
    expect(log).toEqual(['b1', 'q1', 'q2', 'b2', 'b3']);
  });

  it('lets a query in between batches whose runs never yield to the event loop', async () => {
    const gate = new SessionGate();
    const log: string[] = [];
    // Batches chained on microtasks only (as a synchronous session run resolves).
    const pass = (async () => {
      for (let i = 0; i < 5; i++) await gate.run('batch', async () => void log.push(`b${i}`));
    })();
    // The query arrives as a macrotask (a message), after the pass has started.
    const query = new Promise<void>((done) => setTimeout(() => void gate.run('query', async () => void log.push('q')).then(done), 0));
    await Promise.all([pass, query]);
    expect(log.indexOf('q')).toBeLessThan(4);
  });

  it('keeps going after a failed run', async () => {
    const gate = new SessionGate();
    await expect(gate.run('batch', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run('query', () => Promise.resolve(7))).resolves.toBe(7);
  });
});

describe('defaultNumThreads', () => {
  it.each([
    { cores: 2, isolated: true, want: 1 },
    { cores: 4, isolated: true, want: 3 },
    { cores: 16, isolated: true, want: 4 },
    { cores: 16, isolated: false, want: 1 },
    { cores: 1, isolated: true, want: 1 },
  ])('$cores cores, isolated $isolated → $want', ({ cores, isolated, want }) => {
    expect(defaultNumThreads(cores, isolated)).toBe(want);
  });
});

describe('embeddingText', () => {
  const base = { path: 'src/a.py', symbol: null, parent: null, signature: null, language: 'python', content: 'x = 1' };
  it.each([
    { name: 'module code', chunk: base, want: 'src/a.py (python)\n\nx = 1' },
    {
      name: 'method with signature in body',
      chunk: { ...base, symbol: 'load', parent: 'Config', signature: 'def load(self):', content: 'def load(self):\n    pass' },
      want: 'src/a.py (python)\nConfig.load\n\ndef load(self):\n    pass',
    },
    {
      name: 'split body carries its signature in the header',
      chunk: { ...base, symbol: 'run', signature: 'def run(a, b):', content: '    return a + b' },
      want: 'src/a.py (python)\nrun\ndef run(a, b):\n\n    return a + b',
    },
    { name: 'no language', chunk: { ...base, language: '' }, want: 'src/a.py\n\nx = 1' },
  ])('$name', ({ chunk, want }) => {
    expect(embeddingText(chunk)).toBe(want);
  });
});

describe('Embedder (generated tiny model, Node)', () => {
  let fp32: Embedder;
  let q8: Embedder;

  beforeAll(async () => {
    await ensureGeneratedModel('tiny', MODELS);
    fp32 = await Embedder.load({ modelId: 'tiny', localModelPath: MODELS, device: 'cpu', dtype: 'fp32', batchSize: 3 });
    q8 = await Embedder.load({ modelId: 'tiny', localModelPath: MODELS, device: 'auto', dtype: 'q8' });
  });
  afterAll(async () => {
    await fp32?.dispose();
    await q8?.dispose();
  });

  it('reports what it loaded', () => {
    expect(fp32.info).toEqual({ modelId: 'tiny', device: 'cpu', dtype: 'fp32', dim: 32, maxTokens: 256, key: 'tiny@fp32/256', family: 'transformer' });
    expect(q8.info.device).toBe('cpu'); // auto in Node
    expect(q8.info.key).toBe('tiny@q8/256');
  });

  it('returns texts × dim unit vectors', async () => {
    const v = await fp32.embed(TEXTS);
    expect(v).toBeInstanceOf(Float32Array);
    expect(v.length).toBe(TEXTS.length * 32);
    for (let i = 0; i < TEXTS.length; i++) {
      const r = row(v, i, 32);
      expect(Math.hypot(...r)).toBeCloseTo(1, 5);
    }
    expect(await fp32.embed([])).toEqual(new Float32Array(0));
  });

  it('is deterministic across calls and loads', async () => {
    const again = await Embedder.load({ modelId: 'tiny', localModelPath: MODELS, device: 'cpu', dtype: 'fp32' });
    try {
      const a = await fp32.embed(TEXTS);
      expect(await fp32.embed(TEXTS)).toEqual(a);
      expect(await again.embed(TEXTS)).toEqual(a);
    } finally {
      await again.dispose();
    }
  });

  it('gives a text the same vector alone and in a padded batch', async () => {
    const batch = await fp32.embed(TEXTS);
    for (let i = 0; i < TEXTS.length; i++) {
      const single = await fp32.embedQuery(TEXTS[i]!);
      const r = row(batch, i, 32);
      for (let d = 0; d < 32; d++) expect(Math.abs(single[d]! - r[d]!)).toBeLessThan(1e-5);
    }
  });

  it('truncates at maxTokens', async () => {
    const short = await Embedder.load({ modelId: 'tiny', localModelPath: MODELS, device: 'cpu', dtype: 'fp32', maxTokens: 16 });
    try {
      const head = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi ';
      const a = head + 'rho sigma tau upsilon';
      const b = head + 'phi chi psi omega '.repeat(20);
      const [na, nb] = short.countTokens([a, b]);
      expect(na).toBeGreaterThan(16);
      expect(nb).toBeGreaterThan(na!);
      const vs = await short.embed([a, b]);
      expect(row(vs, 0, 32)).toEqual(row(vs, 1, 32)); // identical first 15 tokens + [SEP]
      const vf = await fp32.embed([a, b]);
      expect(cosine(row(vf, 0, 32), row(vf, 1, 32))).toBeLessThan(0.999);
    } finally {
      await short.dispose();
    }
  });

  it('counts tokens with [CLS] and [SEP]', () => {
    expect(fp32.countTokens(['', 'get user name'])).toEqual([2, 5]);
  });

  it.each([
    {
      anchor: 'parse the json config file',
      related: 'function parseJsonConfig(file) { return JSON.parse(readFile(file)) }',
      unrelated: 'SELECT total FROM orders WHERE price > 100 LIMIT 10',
    },
    {
      anchor: 'open a socket connection to the server',
      related: 'def connect(host, port):\n    sock = socket.create_connection((host, port))\n    return sock',
      unrelated: 'body { margin: 0; color: #333; font-family: sans-serif }',
    },
    {
      anchor: 'sort users by name',
      related: 'function sortUsersByName(users) { return users.sort(byName) }',
      unrelated: 'matrix multiply tensor weights bias layer',
    },
  ])('ranks a related text above an unrelated one: $anchor', async ({ anchor, related, unrelated }) => {
    const v = await fp32.embed([anchor, related, unrelated]);
    const q = row(v, 0, 32);
    expect(cosine(q, row(v, 1, 32))).toBeGreaterThan(cosine(q, row(v, 2, 32)));
  });

  it('ranks texts sharing half their words above unrelated ones (random word bags)', async () => {
    // Random weights carry no meaning; the signal is token overlap. Hand-picked triples
    // above cover code; this checks the property statistically (measured: 98% at N=200).
    const rng = new Rng(7);
    const pick = (pool: string[], k: number) => {
      const p = [...pool];
      return Array.from({ length: k }, () => p.splice(Math.floor(rng.uniform() * p.length), 1)[0]!);
    };
    const trials = 50;
    let wins = 0;
    for (let t = 0; t < trials; t++) {
      const anchor = pick(WORD_POOL, 8);
      const rest = WORD_POOL.filter((w) => !anchor.includes(w));
      const texts = [anchor, [...pick(anchor, 4), ...pick(rest, 4)], pick(rest, 8)].map((ws) => ws.join(' '));
      const v = await fp32.embed(texts);
      if (cosine(row(v, 0, 32), row(v, 1, 32)) > cosine(row(v, 0, 32), row(v, 2, 32))) wins++;
    }
    expect(wins / trials).toBeGreaterThanOrEqual(0.9);
  });

  it('q8 agrees with fp32 (cosine > 0.95)', async () => {
    const a = await fp32.embed(TEXTS);
    const b = await q8.embed(TEXTS);
    for (let i = 0; i < TEXTS.length; i++) expect(cosine(row(a, i, 32), row(b, i, 32))).toBeGreaterThan(0.95);
  });

  it('stops between batches when aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(fp32.embed(TEXTS, ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('answers a query in the middle of an indexing pass with its own vector', async () => {
    const many = Array.from({ length: 12 }, (_, i) => `${TEXTS[i % TEXTS.length]} ${i}`);
    const alone = await fp32.embedQuery('parse config');
    const [passVectors, q] = await Promise.all([fp32.embed(many), fp32.embedQuery('parse config')]);
    expect(Array.from(q)).toEqual(Array.from(alone));
    expect(Array.from(passVectors)).toEqual(Array.from(await fp32.embed(many)));
  });

  it('fails clearly when the model is missing', async () => {
    await expect(Embedder.load({ modelId: 'no-such-model', localModelPath: MODELS, device: 'cpu', dtype: 'fp32' })).rejects.toThrow();
  });
});
