// `leap tdd run` driven by the real CLIs, one pair of families per test, as the runs were: claude
// develops and codex verifies, codex develops and gemini verifies, gemini develops and claude verifies.
// Each CLI talks to its own scripted model server; the scripts are picked per leaf by the prompt's phase.
// A run of one step goes to done: its commits, its verdicts and its usage events agree with the servers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { binPath, cleanupTempDirs, git, runBin } from '@leap/test-utils';
import { CLI_NAMES, cleanupHomes, sharedHome, type CliName } from './clis.js';
import { TEST_CMD, readEvents } from './fixture-repo.js';
import { SUB_TEST, SUB_TIDY, TITLE, developerServer, planFile, project, verifierServer } from './tdd-fixture.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

const LEAP = binPath('cli', 'leap');
const PAIRS = (
  [
    ['claude', 'codex'],
    ['codex', 'gemini'],
    ['gemini', 'claude'],
  ] as [CliName, CliName][]
).filter((pair) => pair.every((cli) => CLI_NAMES.includes(cli)));
for (const [developer, verifier] of PAIRS) {
  test(`leap tdd run: ${developer} develops, ${verifier} verifies; one step to done, its commits, verdicts and usage agree with the servers`, async () => {
    const repo = project();
    const devServer = await developerServer(repo);
    const verServer = await verifierServer();
    try {
      const env = sharedHome({ cli: developer, server: devServer }, { cli: verifier, server: verServer });
      const run = await runBin(
        LEAP,
        [
          'tdd',
          'run',
          '--issue',
          '1',
          '--test-cmd',
          TEST_CMD,
          '--plan',
          planFile(),
          '--developer',
          developer,
          '--verifier',
          verifier,
        ],
        {
          cwd: repo,
          env: { ...env, VERI_TEST_CMD: TEST_CMD },
        },
      );
      const events = readEvents(join(repo, '.tdd'));
      const failed = events
        .filter((e) => e.event === 'bail' || (e.event === 'exit' && e.code !== 0))
        .map((e) => JSON.stringify(e));
      assert.is(run.code, 0, `${run.stdout}\n${run.stderr.slice(-4000)}\n${failed.join('\n')}`);

      // The branch's history is the plan, then red, green, refactor of the step, with the title byte for byte.
      const subjects = git(repo, 'log', '--format=%s', 'main..leap/issue-1').trimEnd().split('\n').reverse();
      assert.equal(subjects, ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
      assert.is(git(repo, 'show', 'leap/issue-1:sub.js'), SUB_TIDY);
      assert.is(git(repo, 'show', 'leap/issue-1:test/sub.test.js'), SUB_TEST);
      assert.match(readFileSync(join(repo, '.tdd', 'issues', '1.md'), 'utf8'), /- \[x\] sub\(a, b\) returns a - b/);

      // Three blind verdicts, each the verifier's, each PASS, each from its own conversation.
      const verdicts = events.filter((e) => e.event === 'verdict');
      assert.equal(
        verdicts.map((e) => [e.phase, e.verdict, e.agent, e.step]),
        [
          ['red', 'PASS', verifier, TITLE],
          ['green', 'PASS', verifier, TITLE],
          ['refactor', 'PASS', verifier, TITLE],
        ],
      );
      assert.equal(
        [...new Set(verServer.requests.filter((r) => r.turn !== null).map((r) => r.conversation))],
        ['Phase: red', 'Phase: green', 'Phase: refactor'],
      );

      // Usage: per role, what the CLI reported is what its server counted, to the token.
      const usage = events.filter((e) => e.event === 'usage');
      const sum = (role: string) =>
        usage
          .filter((e) => String(e.leaf).startsWith(role))
          .reduce((t, e) => ({ input: t.input + e.input_tokens, output: t.output + e.output_tokens }), {
            input: 0,
            output: 0,
          });
      const dev = devServer.usage();
      const ver = verServer.usage();
      assert.equal(
        sum('develop-'),
        { input: dev.input, output: dev.output },
        "the developer's usage events are its server's count",
      );
      assert.equal(
        sum('verify-'),
        { input: ver.input, output: ver.output },
        "the verifier's usage events are its server's count",
      );
      assert.equal(usage.map((e) => e.agent).sort(), [...Array(3).fill(developer), ...Array(3).fill(verifier)].sort());
    } finally {
      await devServer.close();
      await verServer.close();
    }
  });
}

test.run();
