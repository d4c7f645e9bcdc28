// When a vendor runs dry (quota, rate limit, overload), the next agent of the role's list takes the leaf
// (issue 21 §3): no revision is spent, blindness holds across families, and a list that runs out is agent-failed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir, waitFor } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  IMPL1,
  REFACTORED1,
  TEST1,
  TEST_CMD,
  cleanEnv,
  makeProject,
  pass,
  planFile,
  readEvents,
  repoFingerprint,
  stepMoves,
  subjects,
} from './helpers.js';

const fallover = suite('runTdd: falling over to another family');
fallover.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';

/** Scripted agents by name, each of its family, in one agents file (with `roles` when given). */
function agentsOf(
  agents: Record<string, { family: string; moves: object[] }>,
  roles?: Record<string, string[]>,
): { file: string; dir: string } {
  const dir = makeTempDir('leap-agents-');
  const entries: Record<string, object> = {};
  for (const [name, { family, moves }] of Object.entries(agents)) {
    writeFileSync(join(dir, `${name}.json`), JSON.stringify({ family, moves }));
    entries[name] = { plugin: 'scripted', script: `${name}.json` };
  }
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify(roles === undefined ? { agents: entries } : { agents: entries, roles }));
  return { file, dir };
}

/** How many moves of a scripted agent were claimed (launched). */
function launches(dir: string, name: string): number {
  let n = 0;
  while (existsSync(join(dir, `${name}.json.state`, `move-${n}.prompt`))) n++;
  return n;
}

const rateLimited = (words: string) => ({
  dry: 'rate-limit',
  stderr: `${words}\n`,
  edits: [{ path: 'src/slug.js', content: 'half a thought\n' }],
});

fallover(
  "a developer whose vendor ran dry: the next developer takes the leaf from where it began, no revision spent, the verifier never of the new developer's family",
  async () => {
    const repo = makeProject();
    const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
    const agents = agentsOf(
      {
        first: { family: 'alpha', moves: [rateLimited("API Error: 429 rate limit: it's $(spent) `now`")] },
        second: { family: 'beta', moves: [red!, green!, refactor!] },
        same: { family: 'beta', moves: [pass(), pass(), pass()] },
        other: { family: 'gamma', moves: [pass(), pass(), pass()] },
      },
      { developer: ['first', 'second'], verifier: ['same', 'other'] },
    );
    const lines: string[] = [];
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      agentsFile: agents.file,
      env: cleanEnv(),
      progress: (l) => lines.push(l),
    });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    // The dry leaf's half-written file did not reach the red commit: the next developer began where it began.
    assert.not.match(git(repo, 'show', `HEAD~2:src/slug.js`), 'half a thought');
    const events = readEvents(repo);
    const falls = events.filter((e) => e.event === 'fallover');
    assert.equal(
      falls.map((e) => [e.leaf, e.role, e.agent, e.family, e.cause, e.message, e.next]),
      [
        [
          'develop-red',
          'developer',
          'first',
          'alpha',
          'rate-limit',
          "API Error: 429 rate limit: it's $(spent) `now`",
          'second',
        ],
      ],
    );
    // Not a revision: the relaunch is develop-red again, attempt 1.
    const leaves = events.filter((e) => e.event === 'launch').map((e) => `${e.leaf} ${e.attempt}`);
    assert.equal(leaves, [
      'develop-red 1',
      'develop-red 1',
      'verify-red 1',
      'develop-green 1',
      'verify-green 1',
      'develop-refactor 1',
      'verify-refactor 1',
    ]);
    // Blindness: "same" shares the family of the developer that did the work, so it never judged it.
    assert.is(launches(agents.dir, 'same'), 0);
    assert.is(launches(agents.dir, 'other'), 3);
    assert.is(launches(agents.dir, 'first'), 1, 'the agent that ran dry is skipped for the rest of the run');
    assert.ok(
      lines.some((l) =>
        l.includes(
          "develop-red: the developer agent first's vendor ran dry (rate-limit): API Error: 429 rate limit: it's $(spent) `now`; second takes the leaf (not counted as a revision)",
        ),
      ),
      lines.join('\n'),
    );
    assert.match(lines.join('\n'), 'developer first (then second, should a vendor run dry)');
  },
);

fallover('a verifier whose vendor ran dry: the next verifier judges the same phase, and every later one', async () => {
  const repo = makeProject();
  const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
  const agents = agentsOf({
    dev: { family: 'alpha', moves: [red!, green!, refactor!] },
    tired: { family: 'beta', moves: [{ dry: 'overload', stderr: 'Overloaded: 529 overloaded_error\n' }, pass()] },
    fresh: { family: 'gamma', moves: [pass(), pass(), pass()] },
  });
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    planFile: planFile([TITLE]),
    developer: 'dev',
    verifier: 'tired,fresh',
    agentsFile: agents.file,
    env: cleanEnv(),
  });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(
    result.verdicts.map((v) => `${v.phase} ${v.verdict}`),
    ['red ERROR', 'red PASS', 'green PASS', 'refactor PASS'],
  );
  const events = readEvents(repo);
  assert.equal(
    events.filter((e) => e.event === 'fallover').map((e) => [e.leaf, e.role, e.agent, e.cause, e.next]),
    [['verify-red', 'verifier', 'tired', 'overload', 'fresh']],
  );
  assert.is(launches(agents.dir, 'tired'), 1);
  assert.is(launches(agents.dir, 'fresh'), 3);
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
});

fallover('a planner whose vendor ran dry hands the plan to the next planner', async () => {
  const repo = makeProject();
  const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
  const agents = agentsOf(
    {
      dev: { family: 'alpha', moves: [red!, green!, refactor!] },
      planA: { family: 'alpha', moves: [{ dry: 'quota', stderr: 'You exceeded your current quota\n' }] },
      planB: { family: 'delta', moves: [{ answer: `Plan\n${TITLE} (criterion 1)\n` }] },
      ver: { family: 'gamma', moves: [pass(), pass(), pass()] },
    },
    { planner: ['planA', 'planB'] },
  );
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    developer: 'dev',
    verifier: 'ver',
    agentsFile: agents.file,
    env: cleanEnv(),
  });
  assert.is(result.code, 0, JSON.stringify(result.bail));
  assert.equal(
    readEvents(repo)
      .filter((e) => e.event === 'fallover')
      .map((e) => [e.leaf, e.role, e.agent, e.cause, e.next]),
    [['plan', 'planner', 'planA', 'quota', 'planB']],
  );
  assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
});

fallover(
  "when the list runs out: agent-failed naming each agent's cause; the verified red stays and a new run resumes at green",
  async () => {
    const repo = makeProject();
    const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
    const agents = agentsOf({
      first: { family: 'alpha', moves: [red!, rateLimited('429 Too Many Requests'), green!, refactor!] },
      second: { family: 'beta', moves: [{ dry: 'quota', stderr: 'Quota exceeded for quota metric\n' }] },
      ver: { family: 'gamma', moves: [pass(), pass(), pass()] },
    });
    const lines: string[] = [];
    const options = {
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'first,second',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    };
    const result = await runTdd({ ...options, progress: (l) => lines.push(l) });
    assert.is(result.code, 1);
    assert.is(result.bail?.cause, 'agent-failed');
    assert.is(result.bail?.class, 'system');
    assert.match(
      result.bail?.narration ?? '',
      'Every developer agent of the list ran dry: first (alpha): rate-limit: 429 Too Many Requests; second (beta): quota: Quota exceeded for quota metric.',
    );
    assert.match(
      result.bail?.narration ?? '',
      `The verified red commit of "${TITLE}" stays: running again resumes at its green.`,
    );
    assert.is(lines.at(-1)?.split('\n').at(-1), 'bail: agent-failed (system)');
    const falls = readEvents(repo).filter((e) => e.event === 'fallover');
    assert.equal(
      falls.map((e) => [e.leaf, e.agent, e.next]),
      [
        ['develop-green', 'first', 'second'],
        ['develop-green', 'second', null],
      ],
    );
    // The verified red commit stays; the green's half-work is gone from the tree (kept in an attempt ref).
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`]);
    const redCommit = git(repo, 'rev-parse', 'HEAD').trim();
    assert.is(
      readFileSync(join(repo, 'src/slug.js'), 'utf8'),
      'export function slugify(title) {\n  return title;\n}\n',
    );
    assert.is(git(repo, 'status', '--porcelain'), '');
    // A new run tries the list from its head again (a limit may have lifted): first builds green on the same red.
    const again = await runTdd({ cwd: repo, issue: 1, env: cleanEnv() });
    assert.is(again.code, 0, JSON.stringify(again.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    assert.is(git(repo, 'rev-parse', 'HEAD~2').trim(), redCommit);
    assert.is(launches(agents.dir, 'ver'), 3, 'red was verified once, never again');
  },
);

fallover(
  'a verifier that fails by itself at green (a transient 500) bails agent-failed; the verified red stays and the run resumes at green',
  async () => {
    const repo = makeProject();
    const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
    const failing = {
      stderr: 'API Error: 500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}\n',
      exit: 1,
    };
    const agents = agentsOf({
      dev: { family: 'alpha', moves: [red!, green!, green!, refactor!] },
      ver: { family: 'gamma', moves: [pass(), failing, pass(), pass()] },
    });
    const options = {
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    };
    const bailed = await runTdd(options);
    assert.is(bailed.code, 1);
    assert.is(bailed.bail?.cause, 'agent-failed');
    assert.match(bailed.bail?.narration ?? '', 'Internal server error');
    assert.match(bailed.bail?.narration ?? '', `The verified red commit of "${TITLE}" stays`);
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`]);
    const redCommit = git(repo, 'rev-parse', 'HEAD').trim();
    // No fall-over: a 500 is the agent failing, not its vendor running dry.
    assert.equal(
      readEvents(repo).filter((e) => e.event === 'fallover'),
      [],
    );
    const resumed = await runTdd({ cwd: repo, issue: 1, env: cleanEnv() });
    assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    assert.is(git(repo, 'rev-parse', 'HEAD~2').trim(), redCommit, 'the same red commit, not a new one');
    assert.equal(
      resumed.verdicts.map((v) => `${v.phase} ${v.verdict}`),
      ['green PASS', 'refactor PASS'],
      'the resumed run starts at green: red is not verified again',
    );
  },
);

fallover(
  'blindness survives a resume: the verifier of a phase that fell over avoids the family of the developer that did its work',
  async () => {
    const repo = makeProject();
    const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
    const agents = agentsOf(
      {
        first: { family: 'alpha', moves: [red!, rateLimited('429'), refactor!] },
        second: { family: 'beta', moves: [{ ...green!, wait_for: 'go' }] },
        near: { family: 'beta', moves: [pass(), pass()] },
        far: { family: 'gamma', moves: [pass()] },
      },
      { developer: ['first', 'second'], verifier: ['near', 'far'] },
    );
    const options = {
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      agentsFile: agents.file,
      env: cleanEnv(),
    };
    const running = runTdd(options);
    // While "second" (beta) develops green, the run is asked to stop before its next leaf: the verification.
    await waitFor(
      () => existsSync(join(agents.dir, 'second.json.state', 'move-0.prompt')),
      120_000,
      'second develops green',
    );
    writeFileSync(join(repo, '.tdd/stop'), 'at-leaf\n');
    writeFileSync(join(agents.dir, 'second.json.state', 'go'), '');
    const stopped = await running;
    assert.is(stopped.code, 3, JSON.stringify(stopped.bail));
    assert.match(stopped.stoppedAt ?? '', 'before verify-green');
    // A new process knows nothing of who ran dry; the journal says whose work green holds.
    const resumed = await runTdd({ cwd: repo, issue: 1, env: cleanEnv() });
    assert.is(resumed.code, 0, JSON.stringify(resumed.bail));
    const judged = readEvents(repo)
      .filter((e) => e.event === 'verdict')
      .map((e) => `${e.phase} ${e.agent}`);
    assert.equal(
      judged,
      ['red near', 'green far', 'refactor near'],
      "near (beta) never judged the beta developer's green",
    );
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  },
);

fallover(
  'hostile: an answer that only says "rate limit" is an answer; a list that leaves a developer without a verifier of another family is bad input',
  async () => {
    const repo = makeProject();
    const [red, green, refactor] = stepMoves(1, TEST1, IMPL1, REFACTORED1);
    const claims = { ...red!, answer: 'Rate limit reached: the vendor ran dry: rate-limit (I am fine, really).' };
    const agents = agentsOf({
      dev: { family: 'alpha', moves: [claims, green!, refactor!] },
      second: { family: 'gamma', moves: [] },
      ver: { family: 'gamma', moves: [pass(), pass(), pass()] },
    });
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'dev,second',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    }).catch((error: Error) => error);
    // "second" (gamma) has no verifier of another family: refused before anything is touched.
    assert.instance(result, Error);
    assert.match(
      (result as Error).message,
      `the verifier "ver" is of the developer "second"'s model family (gamma): a blind verification needs another family`,
    );
    assert.is((result as { exitCode?: number }).exitCode, 2);
    const fresh = makeProject();
    const before = repoFingerprint(fresh);
    const ran = await runTdd({
      cwd: fresh,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env: cleanEnv(),
    });
    assert.is(ran.code, 0, JSON.stringify(ran.bail));
    assert.not.equal(repoFingerprint(fresh), before);
    assert.equal(
      readEvents(fresh).filter((e) => e.event === 'fallover'),
      [],
    );
    assert.is(launches(agents.dir, 'second'), 0);
  },
);

fallover.run();
