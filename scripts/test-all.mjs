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

if (!existsSync(CHROMIUM)) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    console.error(`Chromium not found at ${CHROMIUM}. Install Debian's chromium: sudo apt-get install -y chromium`);
    process.exit(1);
  }
  console.log('Installing Debian chromium (apt-get) for the browser tests…');
  if (run('apt-get', ['update', '-qq']) !== 0 || run('apt-get', ['install', '-y', '-qq', 'chromium']) !== 0) {
    console.error('apt-get install chromium failed; install it and re-run npm test');
    process.exit(1);
  }
}

if (existsSync('scripts/gen-models.ts') && !existsSync('models/generated/tiny/config.json')) {
  if (run('npx', ['tsx', 'scripts/gen-models.ts', '--only', 'tiny']) !== 0) process.exit(1);
}

const unit = run('npx', ['vitest', 'run']);
const e2e = run('npx', ['playwright', 'test']);
process.exit(unit || e2e);
