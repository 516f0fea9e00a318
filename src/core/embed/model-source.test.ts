import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserModelSource, isHubId, looksLikePath, parseBundleSpec, parseBundledModels, sourceOptions, splitModelDir } from './model-source.ts';
import { resolveModelSource } from './model-source-node.ts';

describe('model-source (pure)', () => {
  it.each([
    { spec: 'Xenova/all-MiniLM-L6-v2', path: false },
    { spec: 'tiny', path: false },
    { spec: 'models/generated/tiny', path: true },
    { spec: './tiny', path: true },
    { spec: '/abs/tiny', path: true },
    { spec: '~/m/tiny', path: true },
    { spec: 'C:\\models\\tiny', path: true },
    { spec: 'has space', path: true },
  ])('looksLikePath($spec) = $path', ({ spec, path }) => {
    expect(looksLikePath(spec)).toBe(path);
  });

  it.each([
    { dir: '/a/b/tiny', want: { localModelPath: '/a/b/', modelId: 'tiny' } },
    { dir: '/a/b/minilm-shape/', want: { localModelPath: '/a/b/', modelId: 'minilm-shape' } },
    { dir: 'tiny', want: { localModelPath: './', modelId: 'tiny' } },
    { dir: '/a/has space', want: null },
  ])('splitModelDir($dir)', ({ dir, want }) => {
    expect(splitModelDir(dir)).toEqual(want);
  });

  it('checks hub ids like Transformers.js', () => {
    expect(isHubId('Xenova/all-MiniLM-L6-v2')).toBe(true);
    expect(isHubId('a/b/c')).toBe(false);
    expect(isHubId('../x')).toBe(false);
  });

  it('serves browser models from /models/ and stays offline by default', () => {
    expect(sourceOptions(browserModelSource())).toEqual({
      modelId: 'Xenova/all-MiniLM-L6-v2', localModelPath: '/models/', allowRemote: false,
    });
  });
});

describe('resolveModelSource (Node)', () => {
  let root: string;
  const makeModel = async (dir: string, files = ['config.json']) => {
    await mkdir(dir, { recursive: true });
    for (const f of files) await writeFile(join(dir, f), '{}');
  };
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'sift-models-'));
    await makeModel(join(root, 'work', 'models', 'tiny'));
    await makeModel(join(root, 'home', '.sift', 'models', 'Xenova', 'cached-model'), ['config.json', 'tokenizer.json', 'model.safetensors']);
    // A download cut after config.json: not complete, so the Hub is asked again (when allowed).
    await makeModel(join(root, 'home', '.sift', 'models', 'Xenova', 'half-model'));
    await mkdir(join(root, 'work', 'empty'), { recursive: true });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    { name: 'relative folder', model: 'models/tiny', remote: false, origin: 'local-dir', id: 'tiny', base: 'work/models/' },
    { name: 'bare name of a folder in cwd', model: 'empty', remote: false, reason: /no such|neither|not in/ },
    { name: 'user cache', model: 'Xenova/cached-model', remote: false, origin: 'user-cache', id: 'Xenova/cached-model', base: 'home/.sift/models' },
    { name: 'hub when allowed', model: 'Xenova/other', remote: true, origin: 'hub', id: 'Xenova/other', base: 'home/.sift/models' },
    { name: 'hub refused offline', model: 'Xenova/other', remote: false, reason: /downloads are off/ },
    { name: 'a half download goes back to the hub', model: 'Xenova/half-model', remote: true, origin: 'hub', id: 'Xenova/half-model', base: 'home/.sift/models' },
    { name: 'folder without config.json', model: './empty', remote: false, reason: /config\.json missing/ },
  ])('$name', async ({ model, remote, origin, id, base, reason }) => {
    const r = await resolveModelSource({ model, allowRemote: remote, home: join(root, 'home'), cwd: join(root, 'work') });
    if (reason) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(reason);
      return;
    }
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.source.origin).toBe(origin);
    expect(r.source.modelId).toBe(id);
    expect(r.source.localModelPath).toBe(join(root, base!));
    expect(r.source.allowRemote).toBe(remote);
  });
});

describe('bundled models (build manifest)', () => {
  it.each([
    { spec: '', want: [] },
    { spec: 'models/generated/tiny', want: [{ id: 'generated/tiny', dir: 'models/generated/tiny' }] },
    { spec: '/home/u/.sift/models/Xenova/all-MiniLM-L6-v2/', want: [{ id: 'Xenova/all-MiniLM-L6-v2', dir: '/home/u/.sift/models/Xenova/all-MiniLM-L6-v2/' }] },
    { spec: 'mini', want: [{ id: 'mini', dir: 'mini' }] },
    { spec: 'Xenova/all-MiniLM-L6-v2=/tmp/x, a=b', want: [{ id: 'Xenova/all-MiniLM-L6-v2', dir: '/tmp/x' }, { id: 'a', dir: 'b' }] },
  ])('parseBundleSpec($spec)', ({ spec, want }) => {
    expect(parseBundleSpec(spec)).toEqual(want);
  });

  it('refuses an id that is no model id', () => {
    expect(() => parseBundleSpec('../x=/tmp/x')).toThrow(/not a valid model id/);
  });

  it('keeps only well-formed manifest entries', () => {
    const ok = { id: 'Xenova/all-MiniLM-L6-v2', files: ['config.json'], bytes: 3 };
    expect(parseBundledModels({ models: [ok, { id: '../etc', files: [], bytes: 0 }, { id: 'x' }, null] })).toEqual([ok]);
    expect(parseBundledModels(null)).toEqual([]);
    expect(parseBundledModels({ models: 'nope' })).toEqual([]);
  });
});
