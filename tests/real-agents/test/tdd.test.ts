// `leap tdd run` driven by the real CLIs, one pair of families per test, as the runs were: claude
// develops and codex verifies, codex develops and gemini verifies, gemini develops and claude verifies.
// Each CLI talks to its own scripted model server; the scripts are picked per leaf by the prompt's phase.
// A run of one step goes to done: its commits, its verdicts and its usage events agree with the servers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binPath, cleanupTempDirs, git, makeGitRepo, makeTempDir, runBin, startModelServer, type ModelServer } from '@leap/test-utils';
import { CLI_NAMES, cleanupHomes, sharedHome, type CliName } from './clis.js';
import { TEST_CMD, readEvents } from './fixture-repo.js';

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
// A step title that is data: quotes, `$( )`, backticks and non-ASCII pass through every command byte for byte.
const TITLE = 'sub(a, b) returns a - b: it\'s `$(id)` "exact" ✓';
const SUB_TEST = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sub } = require('../sub.js');\ntest('subtracts', () => assert.strictEqual(sub(5, 3), 2));\n";
const SUB = 'exports.sub = (a, b) => a - b;\n';
const SUB_TIDY = '// Subtraction, the inverse of add.\nexports.sub = (a, b) => a - b;\n';

function project(): string {
  return makeGitRepo({
    prefix: 'leap-real-tdd-',
    files: {
      'add.js': 'exports.add = (a, b) => a + b;\n',
      'test/add.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
      'package.json': '{"name": "sample", "private": true}\n',
      '.tdd/issues/1.md': '# Subtraction\n\nThe library subtracts too.\n\n## Acceptance criteria\n\n- [ ] sub(a, b) returns a - b\n',
    },
  });
}

function planFile(): string {
  const file = join(makeTempDir('leap-real-tdd-plan-'), 'plan.txt');
  writeFileSync(file, `Plan\n${TITLE} (criterion 1)\n`);
  return file;
}

// What each leaf's model does, picked by the prompt: the developer's phases, then the verifier's.
function developerServer(repo: string): Promise<ModelServer> {
  return startModelServer({
    conversations: [
      { when: '## Your phase: red', script: [{ write: join(repo, 'test', 'sub.test.js'), content: SUB_TEST }, { text: 'Wrote the failing test of sub.' }] },
      { when: '## Your phase: green', script: [{ write: join(repo, 'sub.js'), content: SUB }, { text: 'Implemented sub.' }] },
      // Read before it is rewritten: Claude Code refuses to write over a file its session has not read.
      { when: '## Your phase: refactor', script: [{ read: join(repo, 'sub.js') }, { write: join(repo, 'sub.js'), content: SUB_TIDY }, { text: 'Named what sub is.' }] },
    ],
  });
}

function verifierServer(): Promise<ModelServer> {
  const verdict = (reason: string) => [{ structured: { verdict: 'PASS', reason } }];
  return startModelServer({
    conversations: [
      { when: 'Phase: red', script: verdict('the new test fails only because sub is missing') },
      { when: 'Phase: green', script: verdict('sub subtracts; the test passes') },
      { when: 'Phase: refactor', script: verdict('a comment only; behaviour unchanged') },
    ],
  });
}

for (const [developer, verifier] of PAIRS) {
  test(`leap tdd run: ${developer} develops, ${verifier} verifies; one step to done, its commits, verdicts and usage agree with the servers`, async () => {
    const repo = project();
    const devServer = await developerServer(repo);
    const verServer = await verifierServer();
    try {
      const env = sharedHome({ cli: developer, server: devServer }, { cli: verifier, server: verServer });
      const run = await runBin(LEAP, ['tdd', 'run', '--issue', '1', '--test-cmd', TEST_CMD, '--plan', planFile(), '--developer', developer, '--verifier', verifier], {
        cwd: repo,
        env: { ...env, VERI_TEST_CMD: TEST_CMD },
      });
      const events = readEvents(join(repo, '.tdd'));
      const failed = events.filter((e) => e.event === 'bail' || (e.event === 'exit' && e.code !== 0)).map((e) => JSON.stringify(e));
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
      assert.equal([...new Set(verServer.requests.filter((r) => r.turn !== null).map((r) => r.conversation))], ['Phase: red', 'Phase: green', 'Phase: refactor']);

      // Usage: per role, what the CLI reported is what its server counted, to the token.
      const usage = events.filter((e) => e.event === 'usage');
      const sum = (role: string) =>
        usage.filter((e) => String(e.leaf).startsWith(role)).reduce((t, e) => ({ input: t.input + e.input_tokens, output: t.output + e.output_tokens }), { input: 0, output: 0 });
      const dev = devServer.usage();
      const ver = verServer.usage();
      assert.equal(sum('develop-'), { input: dev.input, output: dev.output }, "the developer's usage events are its server's count");
      assert.equal(sum('verify-'), { input: ver.input, output: ver.output }, "the verifier's usage events are its server's count");
      assert.equal(usage.map((e) => e.agent).sort(), [...Array(3).fill(developer), ...Array(3).fill(verifier)].sort());
    } finally {
      await devServer.close();
      await verServer.close();
    }
  });
}

test.run();
