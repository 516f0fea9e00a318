/**
 * StaticHelpers over stand-in workers that speak static-helper.ts's protocol with a real
 * StaticEmbedder (the generated static-tiny table), replying on a later task as a worker does.
 */
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureGeneratedModel } from '../../scripts/gen-models.ts';
import { StaticEmbedder } from '../../src/core/embed/static-embedder.ts';
import { folderModelFiles } from '../../src/core/embed/model-files-node.ts';
import { staticHelperCount, StaticHelpers, type HelperWorker } from './static-helpers.ts';

const MODELS = resolve(dirname(fileURLToPath(import.meta.url)), '../../models/generated');

const TEXTS = [
  'func parseDuration(s string) (time.Duration, error) {',
  'read bytes from a buffered reader until a delimiter',
  'export function debounce(fn, ms) { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); }; }',
  'the quick brown fox',
  '',
  'SELECT id FROM chunks WHERE id > ? ORDER BY id LIMIT ?',
  'class Tokenizer { encode(text) { return []; } }',
];

/** A worker stand-in: `{ load }` loads `dir`'s model (or fails as told), `{ id, texts }` embeds them. */
function helper(dir: string, opts: { failLoad?: boolean; crashOnEmbed?: boolean; modelId?: string } = {}): HelperWorker & { embedded: number; ended: boolean } {
  let model: StaticEmbedder | null = null;
  const w = {
    embedded: 0,
    ended: false,
    onmessage: null as ((ev: MessageEvent) => unknown) | null,
    onerror: null as ((ev: ErrorEvent) => unknown) | null,
    onmessageerror: null as ((ev: MessageEvent) => unknown) | null,
    reply(data: unknown) {
      setTimeout(() => !w.ended && w.onmessage?.({ data } as MessageEvent), 0);
    },
    postMessage(m: { load: { modelId: string } } | { id: number; texts: string[] }) {
      if ('load' in m) {
        if (opts.failLoad) return w.reply({ failed: 'no model.safetensors' });
        void StaticEmbedder.load(folderModelFiles(dir), { modelId: opts.modelId ?? m.load.modelId }).then((loaded) => {
          model = loaded;
          w.reply({ ready: true, key: loaded.info.key, dim: loaded.info.dim });
        });
        return;
      }
      if (opts.crashOnEmbed) return setTimeout(() => w.onerror?.({ message: 'out of memory' } as ErrorEvent), 0);
      w.embedded += m.texts.length;
      w.reply({ id: m.id, vectors: model!.embedNow(m.texts) });
    },
    terminate() {
      w.ended = true;
    },
  };
  return w;
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('StaticHelpers', () => {
  let main: StaticEmbedder;
  let dir: string;
  let alone: Float32Array;
  beforeAll(async () => {
    await ensureGeneratedModel('static-tiny', MODELS);
    dir = join(MODELS, 'static-tiny');
    main = await StaticEmbedder.load(folderModelFiles(dir), { modelId: 'static-tiny' });
    alone = await main.embed(TEXTS);
  }, 120_000);

  it('one embedding thread per core, at most 4', () => {
    expect([1, 2, 3, 4, 8].map(staticHelperCount)).toEqual([0, 1, 2, 3, 3]);
  });

  it('shares pages with loaded helpers and returns the embedder worker\'s vectors, in order', async () => {
    const ws = [helper(dir), helper(dir)];
    let i = 0;
    const h = new StaticHelpers(main, { modelId: 'static-tiny' }, 2, () => ws[i++]!);
    // Before a helper has loaded, a page runs on the embedder worker's thread alone.
    expect(h.threads).toBe(1);
    expect(await h.embed(TEXTS)).toEqual(alone);
    await until(() => h.threads === 3);
    expect(h.threads).toBe(3);
    expect(await h.embed(TEXTS)).toEqual(alone);
    expect(ws[0]!.embedded + ws[1]!.embedded).toBeGreaterThan(0);
    expect(ws[0]!.embedded + ws[1]!.embedded).toBeLessThan(TEXTS.length);
    h.dispose();
    expect(ws.every((w) => w.ended)).toBe(true);
  });

  it('never uses a helper that failed to load or loaded another model', async () => {
    const ws = [helper(dir, { failLoad: true }), helper(dir, { modelId: 'another' })];
    let i = 0;
    const h = new StaticHelpers(main, { modelId: 'static-tiny' }, 2, () => ws[i++]!);
    await until(() => ws.every((w) => w.ended));
    expect(ws.every((w) => w.ended)).toBe(true);
    expect(h.threads).toBe(1);
    expect(await h.embed(TEXTS)).toEqual(alone);
    expect(ws[0]!.embedded + ws[1]!.embedded).toBe(0);
  });

  it('embeds a crashed helper\'s run on the embedder worker\'s thread', async () => {
    const w = helper(dir, { crashOnEmbed: true });
    const h = new StaticHelpers(main, { modelId: 'static-tiny' }, 1, () => w);
    await until(() => h.threads === 2);
    expect(await h.embed(TEXTS)).toEqual(alone);
    expect(w.ended).toBe(true);
    expect(h.threads).toBe(1);
  });
});
