// runTdd end to end on real temporary repositories with scripted agents (real leaf processes).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  TEST_CMD,
  cleanEnv,
  makeProject,
  pass,
  readEvents,
  receivedPrompt,
  scriptedAgents,
  stepMoves,
  subjects,
} from './helpers.js';

const run = suite('runTdd: a full run');
run.after.each(cleanupTempDirs);

run('one step: plan, red, green, refactor, each verified; the criterion ticked; a draft pull request', async () => {
  const repo = makeProject();
  const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), [
    pass('red ok'),
    pass('green ok'),
    pass('refactor ok'),
  ]);
  const plan = join(makeTempDir(), 'plan.txt');
  writeFileSync(plan, 'Slugify\nLowercase and join with dashes (criterion 1)\n');
  const lines: string[] = [];
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: plan,
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env: cleanEnv(),
    progress: (l) => lines.push(l),
  });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.is(result.outcome, 'done');
  assert.equal(subjects(repo), [
    'plan: issue 1',
    'red: Lowercase and join with dashes',
    'green: Lowercase and join with dashes',
    'refactor: Lowercase and join with dashes',
  ]);
  assert.equal(
    result.commits.map((c) => c.subject),
    subjects(repo),
  );
  assert.equal(result.steps, [{ title: 'Lowercase and join with dashes', state: 'done' }]);
  assert.equal(
    result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
    ['red PASS', 'green PASS', 'refactor PASS'],
  );
  assert.is(result.leaves, 6);
  assert.is(git(repo, 'symbolic-ref', '--short', 'HEAD').trim(), 'leap/issue-1');
  assert.is(git(repo, 'status', '--porcelain'), '');
  assert.is(readFileSync(join(repo, 'src/slug.js'), 'utf8'), REFACTORED1);
  // The criterion's tick rides in the refactor commit.
  assert.match(git(repo, 'show', 'HEAD:.tdd/issues/1.md'), '- [x] slugify lowercases');
  assert.match(git(repo, 'show', '--name-only', '--format=', 'HEAD'), '.tdd/issues/1.md');
  assert.is(
    git(repo, 'show', 'HEAD:.tdd/issue-1.md'),
    '# Slugify\n\n## Steps\n\n- [x] Lowercase and join with dashes <!-- criterion: 1 -->\n',
  );
  const pr = readFileSync(join(repo, '.tdd/issues/1.pr.md'), 'utf8');
  assert.match(pr, 'State: draft\nBase: main\nHead: leap/issue-1');
  assert.is(result.pullRequest?.url.endsWith('/.tdd/issues/1.pr.md'), true);
  const thread = readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8');
  assert.match(thread, 'verdict red: PASS');
  assert.match(thread, 'done: 1 step');
  // The leaves' environment and files, as the seed's launch lines make them.
  const prompt = receivedPrompt(agents.dir, 'dev', 0);
  assert.match(prompt, 'Lowercase and join with dashes');
  assert.match(readFileSync(join(repo, '.tdd/develop-red.err'), 'utf8'), 'supervise[develop-red]: exited\n');
  assert.is(readFileSync(join(repo, '.tdd/develop-red.exit'), 'utf8').split('\n')[0], '0');
  assert.is(readFileSync(join(repo, '.tdd/verify-red.reason'), 'utf8'), 'red ok\n');
  const launches = readEvents(repo).filter((e) => e.event === 'launch');
  assert.equal(
    launches.map((e) => e.leaf),
    ['develop-red', 'verify-red', 'develop-green', 'verify-green', 'develop-refactor', 'verify-refactor'],
  );
  for (const e of launches) {
    assert.is(e.issue, 1);
    assert.is(e.step, 'Lowercase and join with dashes');
  }
  assert.is(existsSync(join(repo, '.tdd/issue-1-skill-commit')), true);
  assert.is(lines.at(-1)?.startsWith('done: 1 step'), true);
});

run("the run's commits start no git maintenance of their own: the run starts it once, at its end", async () => {
  const repo = makeProject();
  const agents = scriptedAgents(stepMoves(1, TEST1, IMPL1, REFACTORED1), [
    pass('red ok'),
    pass('green ok'),
    pass('refactor ok'),
  ]);
  const plan = join(makeTempDir(), 'plan.txt');
  writeFileSync(plan, 'Slugify\nLowercase and join with dashes (criterion 1)\n');
  // Every git process the run starts, its children too (a commit's own `git maintenance run --auto`), by trace2.
  const trace = join(makeTempDir(), 'trace2.jsonl');
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: plan,
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env: cleanEnv({ GIT_TRACE2_EVENT: trace }),
  });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  const started = readFileSync(trace, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { event: string; argv?: string[] })
    .filter((e) => e.event === 'start')
    .map((e) => (e.argv ?? []).slice(1));
  // The ledger's ticks commit with commit-tree and update-ref, which start no maintenance; `git commit` would.
  assert.equal(subjects(repo), [
    'plan: issue 1',
    'red: Lowercase and join with dashes',
    'green: Lowercase and join with dashes',
    'refactor: Lowercase and join with dashes',
  ]);
  const commits = started.filter((argv) => argv.includes('commit'));
  assert.ok(commits.length >= 1, 'the run ran git commit');
  for (const argv of commits)
    assert.ok(argv.includes('maintenance.auto=false'), `a commit that would start maintenance: ${argv.join(' ')}`);
  const maintenance = started.map((argv, i) => ({ argv, i })).filter(({ argv }) => argv[0] === 'maintenance');
  assert.equal(
    maintenance.map(({ argv }) => argv.join(' ')),
    ['maintenance run --auto --quiet'],
    "one maintenance, the run's own",
  );
  const lastCommit = started.findLastIndex((argv) => argv.includes('commit') || argv.includes('commit-tree'));
  assert.ok((maintenance[0]?.i ?? -1) > lastCommit, "after the run's last commit");
});

run.run();
