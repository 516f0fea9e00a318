#!/usr/bin/env node
// `npm test`: every test — unit + CLI (Vitest), then the app in Debian Chromium (Playwright).
// Prepares what the tests need first: Debian's chromium (installed with apt when we are
// root, otherwise an exact instruction) and the generated test models.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.SIFT_CHROMIUM ?? '/usr/bin/chromium';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  return r.status ?? 1;
}

// Debian packages the tests drive for real: the browser, and the native baselines the
// benchmark helpers are tested against.
const NEEDED = [
  ['chromium', CHROMIUM],
  ['ripgrep', '/usr/bin/rg'],
  ['sqlite3', '/usr/bin/sqlite3'],
].filter(([, bin]) => !existsSync(bin));
if (NEEDED.length > 0) {
  const pkgs = NEEDED.map(([pkg]) => pkg);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    console.error(`Missing ${NEEDED.map(([, b]) => b).join(', ')}. Install Debian's packages: sudo apt-get install -y ${pkgs.join(' ')}`);
    process.exit(1);
  }
  console.log(`Installing Debian ${pkgs.join(', ')} (apt-get) for the tests…`);
  if (run('apt-get', ['update', '-qq']) !== 0 || run('apt-get', ['install', '-y', '-qq', ...pkgs]) !== 0) {
    console.error(`apt-get install ${pkgs.join(' ')} failed; install them and re-run npm test`);
    process.exit(1);
  }
}

// tiny for the unit tests; potion-shape for the browser's static-model specs (which would
// otherwise skip when Playwright runs without Vitest having generated it first).
for (const name of ['tiny', 'potion-shape']) {
  if (existsSync('scripts/gen-models.ts') && !existsSync(`models/generated/${name}/config.json`)) {
    if (run('npx', ['tsx', 'scripts/gen-models.ts', '--only', name]) !== 0) process.exit(1);
  }
}

/** Runs a command with its output passed through, and keeps that output to repeat at the end. */
function runKept(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['inherit', 'pipe', 'pipe'] });
    const kept = [];
    child.stdout.on('data', (b) => { process.stdout.write(b); kept.push(b); });
    child.stderr.on('data', (b) => { process.stderr.write(b); kept.push(b); });
    child.on('error', (err) => resolve({ status: 1, text: String(err) }));
    child.on('close', (code) => resolve({ status: code ?? 1, text: Buffer.concat(kept).toString('utf8') }));
  });
}

/** Vitest's own account of what failed (its failure list and summary), from its kept output. */
function failureReport(text) {
  // eslint-disable-next-line no-control-regex
  const lines = text.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
  const from = lines.findIndex((l) => /⎯{3,} (Failed Tests|Unhandled Errors?|Failed Suites)/.test(l));
  const picked = from >= 0 ? lines.slice(from) : lines.slice(-120);
  return picked.length > 400 ? [...picked.slice(0, 300), '…', ...picked.slice(-100)].join('\n') : picked.join('\n');
}

const unit = await runKept('npx', ['vitest', 'run']);
const e2e = run('npx', ['playwright', 'test']);
// The browser tests print a long report after the unit tests; a unit failure is repeated last
// so that it is in view wherever only the end of the output is kept (a CI log's tail).
if (unit.status !== 0) {
  console.error(`\n=== npm test: the unit/CLI tests (Vitest) failed, exit ${unit.status}; their report again ===`);
  console.error(failureReport(unit.text));
}
console.log(`npm test: unit/CLI ${unit.status === 0 ? 'passed' : `FAILED (exit ${unit.status})`}, browser ${e2e === 0 ? 'passed' : `FAILED (exit ${e2e})`}`);
process.exit(unit.status || e2e);
