#!/usr/bin/env node
// `npm test`: every test — unit + CLI (Vitest), then the app in Debian Chromium (Playwright).
// Prepares what the tests need first: Debian's chromium (installed with apt when we are
// root, otherwise an exact instruction) and the generated test models.
import { spawnSync } from 'node:child_process';
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

if (existsSync('scripts/gen-models.ts') && !existsSync('models/generated/tiny/config.json')) {
  if (run('npx', ['tsx', 'scripts/gen-models.ts', '--only', 'tiny']) !== 0) process.exit(1);
}

const unit = run('npx', ['vitest', 'run']);
const e2e = run('npx', ['playwright', 'test']);
process.exit(unit || e2e);
