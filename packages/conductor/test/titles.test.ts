// Step titles with $, backticks, quotes, apostrophes and non-ASCII text pass byte for byte through leaves'
// environments and prompts, events, commits, the ledger and the thread; titles the ledger cannot hold are refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, hostileTitles, makeTempDir } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import { TEST_CMD, cleanEnv, commandAgents, makeProject, readEvents, readLog, slugSteps, subjects } from './helpers.js';

const titles = suite('runTdd: hostile titles');
titles.after.each(cleanupTempDirs);

const HOSTILE = [
  'Keep the user\'s "quoted" $(whoami) `date` \\ %s 🦀 שלום',
  'Handle ${HOME} and $1 && rm -rf / ; echo `id` <!-- not a marker -->',
  ...hostileTitles(4, 11).filter((t) => t.length < 200),
];

titles(
  'every title arrives byte for byte: VERI_STEP, the prompt, events, commit subjects, the ledger, the thread, the PR',
  async () => {
    const steps = HOSTILE.slice(0, 4);
    const repo = makeProject(
      steps.map((_, i) => `criterion ${i + 1} — é ß 中文`),
      1,
      "It's a `$title` — ünïcödé",
    );
    const agents = commandAgents(slugSteps(steps));
    const plan = join(makeTempDir(), 'plan.txt');
    writeFileSync(plan, `Hostile plan\n${steps.map((t, i) => `- [ ] ${t} <!-- criterion: ${i + 1} -->`).join('\n')}\n`);
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: plan,
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(subjects(repo), [
      'plan: issue 1',
      ...steps.flatMap((t) => [`red: ${t}`, `green: ${t}`, `refactor: ${t}`]),
    ]);
    assert.equal(
      result.steps.map((s) => s.title),
      steps,
    );
    const devs = readLog(agents.devLog);
    assert.equal(
      devs.map((d) => d.env.VERI_STEP),
      steps.flatMap((t) => [t, t, t]),
    );
    assert.equal(
      devs.map((d) => `${d.env.LEAP_PHASE} ${d.env.LEAP_ATTEMPT} ${d.env.VERI_ISSUE}`),
      steps.flatMap(() => ['red 1 1', 'green 1 1', 'refactor 1 1']),
    );
    for (const [i, d] of devs.entries()) assert.ok(d.prompt.includes(`## Your step\n\n${steps[Math.floor(i / 3)]}\n`));
    assert.equal(
      readLog(agents.verLog).map((v) => v.env.VERI_STEP),
      steps.flatMap((t) => [t, t, t]),
    );
    assert.ok(
      devs.every(
        (d) => d.env.VERI_TEST_CMD === TEST_CMD && /^[0-9a-f]{40}$|^@leap/.test(d.env.VERI_SKILL_COMMIT ?? ''),
      ),
    );
    const events = readEvents(repo);
    assert.equal([...new Set(events.filter((e) => e.event === 'launch').map((e) => e.step))], steps);
    assert.equal(
      events.filter((e) => e.event === 'verdict').map((e) => e.step),
      steps.flatMap((t) => [t, t, t]),
    );
    const ledger = readFileSync(join(repo, '.tdd/issue-1.md'), 'utf8');
    for (const t of steps) assert.ok(ledger.includes(`- [x] ${t} <!-- criterion:`));
    const thread = readFileSync(join(repo, '.tdd/issues/1.thread.md'), 'utf8');
    for (const t of steps) assert.ok(thread.includes(`refactor: ${t}`));
    assert.ok(
      readFileSync(join(repo, '.tdd/issues/1.pr.md'), 'utf8').startsWith("# It's a `$title` — ünïcödé (issue #1)\n"),
    );
    assert.is(git(repo, 'status', '--porcelain'), '');
  },
);

titles('a plan title the ledger cannot hold is refused before anything is touched', async () => {
  const repo = makeProject();
  const agents = commandAgents({});
  for (const [text, expected] of [
    [
      'Plan\nSame title (criterion 1)\nSame title (criterion 1)\n',
      /plan\.txt:3: duplicate step "Same title" \(first at line 2\)/,
    ],
    ['Plan\n- [ ]   \n', /plan\.txt:2: empty step/],
    ['Plan\nA step <!-- refactor-pending -->\n', /plan\.txt:2/],
    // A line break inside a title cannot be written in a plan: a carriage return alone is refused.
    ['Plan\nHalf\rway (criterion 1)\n', /plan\.txt:2: .*carriage return/i],
  ] as const) {
    const plan = join(makeTempDir(), 'plan.txt');
    writeFileSync(plan, text);
    const before = git(repo, 'status', '--porcelain', '--ignored');
    try {
      await runTdd({
        cwd: repo,
        issue: 1,
        testCmd: TEST_CMD,
        planFile: plan,
        developer: 'dev',
        verifier: 'ver',
        agentsFile: agents.file,
        env: cleanEnv(),
      });
      assert.unreachable('accepted');
    } catch (error) {
      assert.match((error as Error).message, expected);
      assert.is((error as { exitCode?: number }).exitCode, 2);
    }
    assert.is(git(repo, 'status', '--porcelain', '--ignored'), before);
    assert.is(git(repo, 'branch', '--list', 'leap/*'), '');
  }
});

titles.run();
