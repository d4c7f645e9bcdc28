import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { movePromptFile } from '@leap/agent-scripted';
import { readEvents } from '@leap/core';
import { cleanupTempDirs, git, makeTempDir, repoRoot } from '@leap/test-utils';
import { renderVerifyPrompt, verify } from '../src/index.js';
import { makeGreen, makeRedRepo, verifyEnv, writeAgents, writeScript } from './helpers.js';

const STEP = 'greet returns hello';

/** A repository at its red commit and an agents file whose `v` agent replays `moves`. */
function setup(moves: unknown[]) {
  const repo = makeRedRepo();
  const dir = makeTempDir();
  const script = writeScript(moves, 'scripted', dir);
  const agents = writeAgents({ v: { plugin: 'scripted', script } }, dir);
  return { repo, script, agents, env: verifyEnv({ VERI_AGENTS: agents, VERI_VERIFY_AGENT: 'v' }) };
}

function verdicts(repo: string) {
  return readEvents(join(repo, '.tdd', 'events.jsonl'))
    .map((r) => r.event)
    .filter((e) => e.event === 'verdict');
}

const run = suite('verify');
run.after.each(cleanupTempDirs);

run(
  'red PASS: ground truth holds, the agent passes; the event records commit, tests and agent; the agent got the printed prompt',
  async () => {
    const { repo, script, env } = setup([{ answer: { verdict: 'PASS', reason: 'The test pins the spec.' } }]);
    const result = await verify({ phase: 'red', step: STEP, cwd: repo, env });
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const { leaf, ...verdict } = result;
    assert.equal(verdict, {
      phase: 'red',
      tests: ['test/greet.test.js'],
      commit: head,
      agent: 'v',
      decidedBy: 'agent',
      code: 0,
      verdict: 'PASS',
      reason: 'The test pins the spec.',
    });
    // The verifier's leaf as runAgentLeaf returned it, so a caller need not read its files again.
    assert.equal([leaf?.name, leaf?.status, leaf?.code, leaf?.failureKind], ['verify-red', 'exited', 0, null]);
    assert.is(leaf?.answer?.text, JSON.stringify({ verdict: 'PASS', reason: 'The test pins the spec.' }));
    const [event] = verdicts(repo);
    assert.equal(
      { ...event, ts: undefined },
      {
        ts: undefined,
        event: 'verdict',
        issue: 3,
        step: STEP,
        skill_commit: null,
        phase: 'red',
        verdict: 'PASS',
        reason: 'The test pins the spec.',
        code: 0,
        commit: head,
        tests: ['test/greet.test.js'],
        agent: 'v',
      },
    );
    const { prompt } = await renderVerifyPrompt({ phase: 'red', step: STEP, cwd: repo, env });
    assert.is(readFileSync(movePromptFile(script, 0), 'utf8'), prompt);
    assert.ok(existsSync(join(repo, '.tdd', 'verify-red.exit')), 'the agent ran as the supervised leaf verify-red');
  },
);

run(
  'the red prompt carries what the red commit changed in its test files, not the whole files, and says when it was cut',
  async () => {
    const { repo, env } = setup([]);
    // A long test file the project had before: the red commit adds one test to it and a new file.
    const old = Array.from({ length: 400 }, (_, i) => `// old test line ${i}: greet("x${i}") stays as it was`).join(
      '\n',
    );
    git(repo, 'reset', '-q', '--soft', 'HEAD~1');
    writeFileSync(join(repo, 'test', 'util.test.js'), `${old}\nprocess.exit(0);\n`);
    git(repo, 'rm', '-q', '--cached', 'test/greet.test.js');
    git(repo, 'commit', '-q', '-am', 'the project has a long test file');
    writeFileSync(join(repo, 'test', 'util.test.js'), `${old}\n// NEW: the one test this red adds\nprocess.exit(0);\n`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'red: greet returns hello');
    const red = git(repo, 'rev-parse', 'HEAD').trim();
    const { prompt, tests } = await renderVerifyPrompt({ phase: 'red', step: STEP, cwd: repo, env });
    assert.equal(tests.files, ['test/greet.test.js', 'test/util.test.js']);
    assert.match(
      prompt,
      `The red commit ${red} changed these test files (read them whole in the repository):\n- test/greet.test.js\n- test/util.test.js`,
    );
    assert.match(prompt, `### What the red commit changed in them (\`git show ${red} -- FILES\`)`);
    assert.match(prompt, '+// NEW: the one test this red adds');
    assert.match(prompt, '+if (greet() !== "hello") process.exit(1);');
    // The unchanged lines far from the change are not in it; the developer's commit message is not either.
    assert.not.match(prompt, 'old test line 100:');
    assert.not.match(prompt, 'red: greet returns hello\n');
    assert.ok(prompt.length < 4000, `the prompt is ${prompt.length} characters`);
    // A diff past the bound is cut at a line end, and the prompt says so.
    const { readCommitDiff, buildVerifyPrompt } = await import('../src/index.js');
    const cut = readCommitDiff(repo, red, tests.files, 200);
    assert.ok(cut.cut !== null && cut.cut.shown <= 200 && cut.text.endsWith('\n'));
    const input = {
      phase: 'red' as const,
      stepTitle: STEP,
      spec: 'spec',
      tests: tests.files.map((path) => ({ path, content: null })),
      repoPath: repo,
      redDiff: { commit: red, ...cut },
    };
    assert.match(
      buildVerifyPrompt(input),
      `(cut here: the first ${cut.cut?.shown} of ${cut.cut?.total} bytes of the diff are shown; read the rest from the repository)`,
    );
    assert.throws(
      () => buildVerifyPrompt({ ...input, redDiff: { ...input.redDiff, commit: 'I wrote these tests because' } }),
      /red commit as a hexadecimal sha/,
    );
  },
);

run("green and refactor find the step's tests through the red verdict; REJECT is 1", async () => {
  const { repo, script, env } = setup([
    { answer: { verdict: 'PASS', reason: 'red ok' } },
    { answer: '{"verdict":"REJECT","reason":"hard-coded"}' },
    { answer: '```json\n{"verdict":"PASS","reason":"same behaviour"}\n```' },
  ]);
  assert.is((await verify({ phase: 'red', step: STEP, cwd: repo, env })).code, 0);
  makeGreen(repo);
  const green = await verify({ phase: 'green', step: STEP, cwd: repo, env });
  assert.equal(
    [green.code, green.verdict, green.reason, green.tests],
    [1, 'REJECT', 'hard-coded', ['test/greet.test.js']],
  );
  assert.ok(readFileSync(movePromptFile(script, 1), 'utf8').includes('### test/greet.test.js'));
  assert.not.ok(
    readFileSync(movePromptFile(script, 1), 'utf8').includes('util.test.js'),
    "another test file is not the step's",
  );
  const base = git(repo, 'rev-parse', 'HEAD').trim();
  // A caller that has just read HEAD says so: the verdict's commit, and a base equal to it, need no git.
  const refactor = await verify({ phase: 'refactor', step: STEP, cwd: repo, env, base, head: base });
  assert.equal([refactor.code, refactor.verdict, refactor.commit], [0, 'PASS', base]);
  assert.match(readFileSync(movePromptFile(script, 2), 'utf8'), new RegExp(`Base commit: ${base}`));
  assert.match(readFileSync(movePromptFile(script, 2), 'utf8'), `(\`git diff ${base}\`)\n(no change)`);
  assert.equal(
    verdicts(repo).map((e) => (e.event === 'verdict' ? e.code : null)),
    [0, 1, 0],
  );
});

run('an answer that is not exactly the verdict JSON is a 2, never a pass', async () => {
  const answers = [
    'I think it passes. {"verdict":"PASS","reason":"r"}',
    '{"verdict":"pass","reason":"r"}',
    '{"verdict":"PASS"}',
    '{"verdict":"PASS","reason":"r","confidence":1}',
    '[]',
  ];
  const { repo, env } = setup(answers.map((answer) => ({ answer })));
  for (const answer of answers) {
    const result = await verify({ phase: 'red', step: STEP, cwd: repo, env });
    assert.is(result.code, 2, answer);
    assert.is(result.verdict, 'ERROR');
    assert.match(result.reason, /^malformed verdict: /);
  }
});

run('a stuck verifier is killed like any leaf: 2; an agent that exits non-zero: 2', async () => {
  // One script each: on a loaded machine the first agent may be killed at 0.5 s before it even claims its
  // move, which must not hand the hanging move to the second run.
  const stuck = setup([{ answer: 'x', hang: true }]);
  // The time limit holds for ground truth's suite runs too: it leaves them room.
  const killed = await verify({ phase: 'red', step: STEP, cwd: stuck.repo, env: { ...stuck.env, VERI_TIMEOUT: '3' } });
  assert.equal([killed.code, killed.reason], [2, 'no verdict: v was stopped by its supervisor (killed-timeout)']);
  const { repo, env } = setup([{ answer: { verdict: 'PASS', reason: 'r' }, exit: 3 }]);
  const failed = await verify({ phase: 'red', step: STEP, cwd: repo, env });
  assert.equal([failed.code, failed.reason], [2, 'no verdict: v exited with code 3 (exited)']);
});

run('a failed ground truth is a REJECT and the agent is never asked', async () => {
  const { repo, script, env } = setup([{ answer: { verdict: 'PASS', reason: 'would pass anything' } }]);
  makeGreen(repo);
  const result = await verify({ phase: 'red', step: STEP, cwd: repo, env, testGlobs: ['test/greet.test.js'] });
  assert.equal([result.code, result.verdict, result.decidedBy], [1, 'REJECT', 'ground-truth']);
  assert.is(result.reason, 'ground truth: the suite passes with the new tests; a red test must fail');
  assert.is(result.agent, undefined);
  assert.not.ok(existsSync(movePromptFile(script, 0)), 'the agent never got a prompt');
  assert.not.ok(existsSync(join(repo, '.tdd', 'verify-red.pid')), 'no verifier leaf was launched');
});

run('structured output from a CLI that enforces the schema (claude --json-schema) is used as is', async () => {
  const repo = makeRedRepo();
  const standIn = join(repoRoot, 'plugins', 'agent-claude', 'test', 'fixtures', 'claude');
  // The stand-in reads its answer from STANDIN_* (the real CLI from its model): the entry passes them into the sandbox.
  const agents = writeAgents({ c: { plugin: 'claude', bin: standIn, pass_env: ['STANDIN_*'] } });
  const env = verifyEnv({
    VERI_AGENTS: agents,
    STANDIN_RESULT: 'ignored prose',
    STANDIN_STRUCTURED: '{"verdict":"PASS","reason":"structured"}',
  });
  const result = await verify({ phase: 'red', step: STEP, cwd: repo, env, agent: 'c' });
  assert.equal([result.code, result.reason], [0, 'structured']);
});

run(
  "the verifier CLI's readiness check runs before its leaf, unless the caller checked it already (preflight: false)",
  async () => {
    const repo = makeRedRepo();
    const dir = makeTempDir();
    const home = join(dir, 'codex-home');
    mkdirSync(home);
    writeFileSync(join(home, 'auth.json'), '{}');
    // A codex that notes each of its runs, then is the stand-in.
    const calls = join(dir, 'calls.log');
    const codex = join(dir, 'codex');
    writeFileSync(
      codex,
      `#!/bin/sh\necho "$1 $2" >> '${calls}'\nexec '${join(repoRoot, 'plugins', 'agent-codex', 'test', 'fixtures', 'codex')}' "$@"\n`,
    );
    chmodSync(codex, 0o755);
    // Its log of calls lies beside it: the entry makes that folder writable inside the sandbox, and passes STANDIN_*.
    const env = verifyEnv({
      VERI_AGENTS: writeAgents({
        x: { plugin: 'codex', bin: codex, pass_env: ['STANDIN_*'], paths: { write: [dir] } },
      }),
      CODEX_HOME: home,
      STANDIN_RESULT: '{"verdict":"PASS","reason":"checked"}',
    });
    for (const preflight of [undefined, false]) {
      rmSync(calls, { force: true });
      const result = await verify({ phase: 'red', step: STEP, cwd: repo, env, agent: 'x', preflight });
      assert.equal([result.code, result.reason], [0, 'checked']);
      assert.equal(
        readFileSync(calls, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(' ')[0]),
        preflight === false ? ['exec'] : ['login', 'exec'],
      );
    }
  },
);

run('bad input: exit 2 with a clear message and nothing written but the verdict event', async () => {
  const { repo, env } = setup([]);
  const before = readdirSync(join(repo, '.tdd')).sort();
  const cases: Array<[Parameters<typeof verify>[0], RegExp]> = [
    [{ phase: 'red', step: undefined }, /missing --step TITLE/],
    [{ phase: 'red', step: 'no such step' }, /issue-3\.md: no step titled "no such step"/],
    [{ phase: 'red', step: STEP, agent: 'nobody' }, /unknown agent "nobody"/],
    [
      {
        phase: 'red',
        step: STEP,
        env: { ...env, VERI_AGENTS: writeAgents({ v: { plugin: 'claude', bin: '/nonexistent/claude' } }) },
      },
      /agent "v" is not installed: "\/nonexistent\/claude" is not an executable file$/,
    ],
    [
      { phase: 'red', step: STEP, env: { ...env, VERI_VERIFY_AGENT: '', PATH: '/nonexistent' } },
      /agent "claude" is not installed: "claude" is not an executable file on PATH/,
    ],
    [{ phase: 'red', step: STEP, env: { ...env, VERI_TEST_CMD: '' } }, /VERI_TEST_CMD is not set/],
    [{ phase: 'refactor', step: STEP }, /the refactor phase needs --base SHA/],
    [{ phase: 'refactor', step: STEP, base: 'deadbeef' }, /--base: expected the hexadecimal sha of a commit/],
    [
      { phase: 'refactor', step: STEP, base: 'deadbeef', head: 'cafebabe' },
      /--base: expected the hexadecimal sha of a commit/,
    ],
    [{ phase: 'green', step: STEP, base: 'deadbeef' }, /--base belongs to the refactor phase, not green/],
    [{ phase: 'red', step: STEP, issue: 9 }, /no ledger at .*issue-9\.md for issue 9/],
    [{ phase: 'red', step: STEP, env: { ...env, VERI_ISSUE: '' } }, /no ledger to find the step in/],
  ];
  for (const [options, message] of cases) {
    await verify({ cwd: repo, env, ...options }).then(
      () => assert.unreachable(String(message)),
      (e: Error & { exitCode?: number }) => {
        assert.match(e.message, message);
        assert.is(e.exitCode, 2);
      },
    );
  }
  assert.equal(readdirSync(join(repo, '.tdd')).sort(), [...before, '.gitignore', 'events.jsonl'].sort());
  const events = verdicts(repo);
  assert.is(events.length, cases.length);
  assert.ok(events.every((e) => e.event === 'verdict' && e.verdict === 'ERROR' && e.code === 2));
  assert.is(events[0]?.step, null);
  await verify({ phase: 'purple', step: STEP, cwd: repo, env }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /Expected PHASE to be one of red, green, refactor, got "purple"/),
  );
  await verify({ phase: undefined, step: STEP, cwd: repo, env }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /got "\(missing\)"/),
  );
  assert.is(verdicts(repo).length, cases.length, 'an unknown phase writes no event');
  await verify({ phase: 'red', step: STEP, cwd: makeTempDir(), env }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /not in a git repository/),
  );
});

run('--spec and --ledger stand in for the issue', async () => {
  const { repo, script, env } = setup([{ answer: { verdict: 'PASS', reason: 'ok' } }]);
  const spec = join(makeTempDir(), 'spec.md');
  writeFileSync(spec, 'SPEC FROM A FILE\n');
  const ledger = join(repo, '.tdd', 'issue-3.md');
  const result = await verify({
    phase: 'red',
    step: STEP,
    cwd: repo,
    env: { ...env, VERI_ISSUE: '' },
    specFile: spec,
    ledgerFile: ledger,
  });
  assert.is(result.code, 0);
  assert.ok(readFileSync(movePromptFile(script, 0), 'utf8').includes('SPEC FROM A FILE'));
});

run.run();
