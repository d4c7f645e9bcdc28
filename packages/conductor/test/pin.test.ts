// The pinned toolchain revision is a promise, not a label: a run pinned at one revision and resumed by code at
// another is refused (exit 2, both named, nothing touched) unless VERI_NEW_SKILL=1, which moves the pin on record.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, repoRoot, runBin } from '@leap/test-utils';
import { toolchainRevision } from '../src/run-files.js';
import {
  TEST_CMD,
  cleanEnv,
  commandAgents,
  makeProject,
  planFile,
  readEvents,
  readLog,
  repoFingerprint,
  slugSteps,
  subjects,
} from './helpers.js';

const LEAP = join(repoRoot, 'packages/cli/dist/bin/leap.cjs');
const TITLES = ['Keep the `pin` honest'];
// What an older toolchain wrote in the pin file: its own revision.
const OLDER = '0123456789abcdef0123456789abcdef01234567';

const pin = suite('leap tdd run: the pinned toolchain revision');
pin.after.each(cleanupTempDirs);

/** A run of issue 1 stopped before its first leaf, pinned by this toolchain; the pin then rewritten as an older toolchain left it. */
async function runPinnedByOlder() {
  const repo = makeProject();
  const agents = commandAgents(slugSteps(TITLES));
  const args = [
    'tdd',
    'run',
    '--issue',
    '1',
    '--test-cmd',
    TEST_CMD,
    '--plan',
    planFile(TITLES),
    '--developer',
    'dev',
    '--verifier',
    'ver',
    '--agents',
    agents.file,
    '--sandbox',
    'off',
  ];
  const env = cleanEnv();
  writeFileSync(join(repo, '.tdd/stop'), 'at-leaf\n');
  const first = await runBin(LEAP, args, { cwd: repo, env });
  assert.is(first.code, 3, first.stderr + first.stdout);
  const file = join(repo, '.tdd/issue-1-skill-commit');
  assert.is(readFileSync(file, 'utf8'), `${toolchainRevision()}\n`, 'the first start pins the running code');
  writeFileSync(file, `${OLDER}\n`);
  return { repo, agents, args: ['tdd', 'run', '--issue', '1'], env, file };
}

pin(
  'resumed by code at another revision: refused with exit 2, naming both revisions and VERI_NEW_SKILL=1, nothing touched',
  async () => {
    const p = await runPinnedByOlder();
    const before = repoFingerprint(p.repo);
    const resumed = await runBin(LEAP, p.args, { cwd: p.repo, env: p.env });
    assert.is(resumed.code, 2, resumed.stderr);
    assert.match(resumed.stderr, `pinned at toolchain revision ${OLDER}`);
    assert.match(resumed.stderr, `this toolchain is at ${toolchainRevision()}`);
    assert.match(resumed.stderr, 'VERI_NEW_SKILL=1');
    assert.match(resumed.stderr, p.file);
    assert.is(repoFingerprint(p.repo), before, 'nothing touched');
    // VERI_SKILL_COMMIT naming another revision is code at another revision too.
    const named = await runBin(LEAP, p.args, { cwd: p.repo, env: { ...p.env, VERI_SKILL_COMMIT: 'feedface' } });
    assert.is(named.code, 2, named.stderr);
    assert.match(named.stderr, `pinned at toolchain revision ${OLDER} (${p.file}), but this toolchain is at feedface`);
    assert.is(repoFingerprint(p.repo), before, 'nothing touched');
  },
);

pin(
  'with VERI_NEW_SKILL=1 the run proceeds: the pin moves, a mark event records the move, what follows carries the new pin',
  async () => {
    const p = await runPinnedByOlder();
    const now = toolchainRevision();
    const resumed = await runBin(LEAP, p.args, { cwd: p.repo, env: { ...p.env, VERI_NEW_SKILL: '1' } });
    assert.is(resumed.code, 0, resumed.stderr + resumed.stdout);
    assert.match(
      resumed.stdout,
      `toolchain revision moved (VERI_NEW_SKILL=1): the run was pinned at ${OLDER}, its events from here on carry ${now}`,
    );
    assert.is(readFileSync(p.file, 'utf8'), `${now}\n`);
    const events = readEvents(p.repo);
    const moved = events.findIndex((e) => e.event === 'mark' && e.name === 'skill-commit-moved');
    assert.ok(moved > 0, 'a skill-commit-moved mark');
    assert.equal(
      [
        events[moved]?.anchor,
        events[moved]?.from,
        events[moved]?.to,
        events[moved]?.skill_commit,
        events[moved]?.issue,
      ],
      [OLDER, OLDER, now, now, 1],
    );
    const after = events.slice(moved).filter((e) => e.issue === 1);
    assert.ok(after.length > 6);
    assert.equal(
      [...new Set(after.map((e) => e.skill_commit))],
      [now],
      'every event after the move carries the new pin',
    );
    assert.equal([...new Set(readLog(p.agents.devLog).map((l) => l.env.VERI_SKILL_COMMIT))], [now], 'and every leaf');
    assert.equal(subjects(p.repo), [
      'plan: issue 1',
      ...['red', 'green', 'refactor'].map((ph) => `${ph}: ${TITLES[0]}`),
    ]);
    assert.is(events.filter((e) => e.name === 'skill-commit-moved').length, 1);
  },
);

pin.run();
