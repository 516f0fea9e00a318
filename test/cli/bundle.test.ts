/**
 * The bundled CLI (issue 26, scripts/build-cli.mjs): it builds, runs `--help`, indexes through
 * its chunk worker threads (the bundled chunk-worker.mjs, no TypeScript loader) and searches;
 * bin/sift runs the sources through tsx when the bundle is missing or stale.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './run-sift.ts';

const out = join(ROOT, `dist-cli-test-${process.pid}`);
let work: string;

/** Runs the bundle at `out` with `args`, as bin/sift would. */
function bundled(args: string[]) {
  const code = `import(${JSON.stringify(join(out, 'main.mjs'))}).then((m) => m.run(${JSON.stringify(args)})).then((code) => { process.exitCode = code; })`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8', timeout: 120_000, env: { ...process.env, SIFT_HOME: join(work, 'home'), SIFT_OFFLINE: '1' },
  });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sift-bundle-'));
  const b = spawnSync(process.execPath, [join(ROOT, 'scripts/build-cli.mjs'), '--out', out], { encoding: 'utf8', timeout: 120_000 });
  expect(b.status, b.stderr).toBe(0);
  expect(b.stderr).toMatch(/CLI bundled into/);
}, 180_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

describe('bundled CLI', () => {
  it('prints its usage, mcp included', () => {
    const r = bundled(['--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^sift — private, instant code search/);
    expect(r.stdout).toContain('sift mcp');
  });

  it('indexes through its bundled chunk workers and searches', () => {
    const repo = join(work, 'repo');
    for (let i = 0; i < 40; i++) {
      mkdirSync(join(repo, `pkg${i % 4}`), { recursive: true });
      writeFileSync(join(repo, `pkg${i % 4}`, `mod${i}.py`), `def handler_${i}(request):\n    return request.value * ${i}\n`);
    }
    const db = join(work, 'index.db');
    const idx = bundled(['index', repo, '--db', db, '--no-embed', '--workers', '2', '--json']);
    expect(idx.status, idx.stderr).toBe(0);
    expect(idx.stderr).not.toMatch(/chunk worker stopped/);
    expect(JSON.parse(idx.stdout).files.added).toBe(40);
    const s = bundled(['search', repo, 'handler_17', '--db', db, '--mode', 'bm25', '--json']);
    expect(s.status, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).results[0].path).toBe('pkg1/mod17.py');
  });

  it('bin/sift runs the sources when told to, or when the bundle is stale', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/sift'), '--help'], { encoding: 'utf8', env: { ...process.env, SIFT_NO_BUNDLE: '1' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('sift mcp');
  });
});
