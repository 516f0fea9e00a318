/**
 * Database migration files as answers (issue 35, ninth round): over each repository's whole
 * history, the commits that would become questions (questions.ts commitQuestion: same filters as
 * the repos eval, before sampling), how many have a migration file among their answers and how
 * many only migration files. Decides whether migrations may be weighed down as a file kind.
 * Migration paths: a `migrations/` or `migrate/` folder (Django, Rails db/migrate, knex,
 * Sequelize, TypeORM, Prisma), Alembic's `alembic/versions/`, Flyway's `V1__name.sql`.
 *
 * Usage: npx tsx bench/eval/repos/migration-answers.ts [--skip name,name] [names…]
 */
import { mirrorDir, readManifest } from './corpus.ts';
import { commitQuestion, readHistory } from './questions.ts';

const MIGRATION_PATH = /(^|\/)(migrations?|migrate)\/|(^|\/)alembic\/versions\/|(^|\/)V\d+(_\d+)*__[^/]+\.sql$/i;

const args = process.argv.slice(2);
const skipAt = args.indexOf('--skip');
const skip = new Set(skipAt >= 0 ? args[skipAt + 1].split(',') : []);
const names = args.filter((a, i) => a !== '--skip' && i !== skipAt + 1);
let total = 0;
let withMigration = 0;
for (const spec of readManifest().filter((s) => !skip.has(s.name) && (!names.length || names.includes(s.name)))) {
  const { commits, atHead } = readHistory(mirrorDir(spec), spec.commit);
  const files = [...atHead].filter((p) => MIGRATION_PATH.test(p)).length;
  let candidates = 0, some = 0, only = 0;
  const examples: string[] = [];
  for (const c of commits) {
    const q = commitQuestion(c, atHead);
    if ('skip' in q) continue;
    candidates++;
    const m = q.answers.filter((a) => MIGRATION_PATH.test(a));
    if (!m.length) continue;
    some++;
    if (m.length === q.answers.length) only++;
    if (examples.length < 8) examples.push(`  "${q.question}" -> ${q.answers.join(', ')}`);
  }
  total += candidates;
  withMigration += some;
  if (files || some) console.log(`${spec.name}: ${files} migration files at the pinned commit; ${candidates} question commits, ${some} with a migration answer, ${only} with only migrations\n${examples.join('\n')}`);
}
console.log(`all: ${total} question commits, ${withMigration} with a migration answer`);
