// Codex CLI with its CODEX_HOME under the temporary folder (TMPDIR, else /tmp): it refuses to make the helper its
// own sandbox runs every command through, says so in one warning line, and goes on. Every command the model asks
// for then fails (`bwrap: execvp codex-linux-sandbox`), and the run exits 0 with the model's answer: a developer
// that wrote nothing, a verifier that read nothing. Proven here with the real CLI, and what the plugin makes of it:
// the readiness check refuses such a setup with that cause, before any model call, and `leap tdd run` bails
// `agent-failed` with it; inside the toolchain's sandbox codex runs none of its own, so there it is ready and writes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binPath, cleanupTempDirs, git, makeGitRepo, makeTempDir, runBin, startModelServer } from '@leap/test-utils';
import { agentSandbox, runAgentLeaf } from '@leap/verify';
import { CLI_NAMES, cleanupHomes, installedCli, privateHome } from './clis.js';
import { SOURCE_MARK, TEST_CMD, makeProject, readEvents, sentBack } from './fixture-repo.js';
import { plugin } from './plugin.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

// The private HOME of clis.ts, with CODEX_HOME moved into a temp folder that TMPDIR names.
function homeUnderTemp(server: Parameters<typeof privateHome>[1]) {
  const { env } = privateHome('codex', server);
  const temp = makeTempDir('leap-real-codex-tmp-');
  const codexHome = join(temp, 'codex-home');
  mkdirSync(codexHome);
  writeFileSync(join(codexHome, 'config.toml'), readFileSync(join(env.CODEX_HOME!, 'config.toml')));
  return { env: { ...env, CODEX_HOME: codexHome, TMPDIR: temp } as Record<string, string>, codexHome, temp };
}

// A project with an issue for `leap tdd run`: one passing test, one criterion.
function issueProject(): string {
  return makeGitRepo({
    prefix: 'leap-real-codex-home-',
    files: {
      'add.js': 'exports.add = (a, b) => a + b;\n',
      'test/add.test.js':
        "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.ok(true));\n",
      '.tdd/issues/1.md': '# Subtraction\n\n## Acceptance criteria\n\n- [ ] sub(a, b) returns a - b\n',
    },
  });
}

const REFUSAL = (mode: string, codexHome: string, temp: string) =>
  `codex cannot run its own ${mode} sandbox: its CODEX_HOME ${JSON.stringify(codexHome)} lies under the temporary folder ${JSON.stringify(temp)} (TMPDIR), where Codex CLI refuses to create the helper its sandbox runs every command through, so each command would fail and the run would still end as if it had worked; give CODEX_HOME a folder outside ${JSON.stringify(temp)}, or point TMPDIR elsewhere`;

if (CLI_NAMES.includes('codex')) {
  test('the fault, as the real CLI has it: unchecked, a developer writes nothing and a verifier reads nothing though both exit 0; the plugin makes each leaf failed with the cause', async () => {
    const repo = makeProject();
    const server = await startModelServer({
      conversations: [
        {
          when: 'Add sub.js.',
          script: [
            { write: join(repo, 'sub.js'), content: 'exports.sub = (a, b) => a - b;\n' },
            { text: 'wrote sub.js' },
          ],
        },
        { when: 'Judge add.js.', script: [{ read: join(repo, 'add.js') }, { text: 'read add.js' }] },
      ],
    });
    try {
      const { env } = homeUnderTemp(server);
      for (const [role, prompt, answer] of [
        ['developer', 'Add sub.js.', 'wrote sub.js'],
        ['verifier', 'Judge add.js.', 'read add.js'],
      ] as const) {
        const leaf = await runAgentLeaf({
          name: `${role}-unchecked`,
          agent: plugin('codex'),
          prompt,
          options: { role, cwd: repo },
          stateDir: makeTempDir('leap-real-agents-state-'),
          env,
          preflight: false,
        });
        // The CLI exits 0 with its answer; the plugin reads its warning, so the leaf is no success that did nothing.
        assert.equal(
          [leaf.status, leaf.code, leaf.failureKind, leaf.answer],
          ['exited', 0, 'failed', null],
          `${leaf.failure}`,
        );
        assert.match(leaf.stdout, answer, "the model's answer was printed all the same");
        assert.match(leaf.stderr, /Refusing to create helper binaries under temporary dir/, 'its one warning');
        assert.match(
          leaf.failure ?? '',
          /^codex exited 0 but could not do its work: codex could not run its own (workspace-write|read-only) sandbox \(it said: Refusing to create helper binaries/,
        );
      }
      assert.not.ok(existsSync(join(repo, 'sub.js')), 'the write never happened');
      assert.not.ok(sentBack(server, SOURCE_MARK), 'the read never happened');
      const results = server.requests.filter((r) => r.turn === 1).map((r) => JSON.stringify(r.body));
      assert.is(results.length, 2);
      for (const body of results)
        assert.match(
          body,
          /bwrap: execvp codex-linux-sandbox: No such file or directory/,
          'what the model was told, and no one else',
        );
    } finally {
      await server.close();
    }
  });

  test('the plugin refuses it: the readiness check names the cause before any model call, for a writer and a reader', async () => {
    const repo = makeProject();
    const server = await startModelServer({
      script: [{ write: join(repo, 'sub.js'), content: 'x' }, { text: 'never asked' }],
    });
    try {
      const { env, codexHome, temp } = homeUnderTemp(server);
      for (const [role, mode] of [
        ['developer', 'workspace-write'],
        ['verifier', 'read-only'],
      ] as const) {
        const leaf = await runAgentLeaf({
          name: `${role}-checked`,
          agent: plugin('codex'),
          prompt: 'Add sub.js.',
          options: { role, cwd: repo },
          stateDir: makeTempDir('leap-real-agents-state-'),
          env,
        });
        assert.equal([leaf.status, leaf.failureKind], ['failed-start', 'failed']);
        assert.is(
          leaf.failure,
          `codex is not ready: \`${process.execPath} -e eval(process.env.LEAP_CODEX_READINESS) codex\` exited with code 1: ${REFUSAL(mode, codexHome, temp)}`,
        );
      }
      assert.equal(
        server.requests.filter((r) => r.vendor !== null),
        [],
        'no model call was spent',
      );
      // TMPDIR elsewhere: the same CODEX_HOME is fine, and the write lands.
      const elsewhere = { ...env, TMPDIR: makeTempDir('leap-real-codex-other-tmp-') };
      const leaf = await runAgentLeaf({
        name: 'develop-green',
        agent: plugin('codex'),
        prompt: 'Add sub.js.',
        options: { role: 'developer', cwd: repo },
        stateDir: makeTempDir('leap-real-agents-state-'),
        env: elsewhere,
      });
      assert.equal([leaf.failure, leaf.answer?.text], [null, 'never asked']);
      assert.is(readFileSync(join(repo, 'sub.js'), 'utf8'), 'x');
    } finally {
      await server.close();
    }
  });

  test("inside the toolchain's sandbox codex runs none of its own: the same CODEX_HOME is ready there, and the developer's write lands", async () => {
    const repo = makeProject();
    const server = await startModelServer({
      script: [
        { write: join(repo, 'sub.js'), content: 'exports.sub = (a, b) => a - b;\n' },
        { text: 'wrote it inside' },
      ],
    });
    try {
      const { env } = homeUnderTemp(server);
      const stateDir = makeTempDir('leap-real-agents-state-');
      const leaf = await runAgentLeaf({
        name: 'develop-green',
        agent: plugin('codex'),
        prompt: 'Add sub.js.',
        options: { role: 'developer', cwd: repo },
        stateDir,
        env,
        sandbox: agentSandbox(plugin('codex'), 'writer', repo, env, stateDir),
      });
      assert.equal([leaf.failure, leaf.answer?.text], [null, 'wrote it inside'], leaf.stderr.slice(-2000));
      assert.is(readFileSync(join(repo, 'sub.js'), 'utf8'), 'exports.sub = (a, b) => a - b;\n');
      assert.equal(readEvents(stateDir).find((e) => e.event === 'launch')?.sandbox, 'bwrap');
    } finally {
      await server.close();
    }
  });

  if (CLI_NAMES.includes('claude'))
    test('leap tdd run --sandbox off with such a codex developer bails agent-failed with the cause, before any leaf or commit', async () => {
      const repo = issueProject();
      const server = await startModelServer({ script: [] });
      try {
        const { env, codexHome, temp } = homeUnderTemp(server);
        const plan = join(makeTempDir('leap-real-codex-plan-'), 'plan.txt');
        writeFileSync(plan, 'Plan\nsub subtracts (criterion 1)\n');
        const run = await runBin(
          binPath('cli', 'leap'),
          [
            'tdd',
            'run',
            '--issue',
            '1',
            '--test-cmd',
            TEST_CMD,
            '--plan',
            plan,
            '--developer',
            'codex',
            '--verifier',
            'claude',
            '--sandbox',
            'off',
          ],
          {
            cwd: repo,
            env: { ...env, PATH: `${env.PATH}:${installedCli('claude')}`, VERI_TEST_CMD: TEST_CMD },
          },
        );
        assert.not.equal(run.code, 0, run.stdout);
        const bail = readEvents(join(repo, '.tdd')).find((e) => e.event === 'bail');
        assert.is(bail?.cause, 'agent-failed', JSON.stringify(bail));
        assert.ok(String(bail?.message).includes(REFUSAL('workspace-write', codexHome, temp)), String(bail?.message));
        assert.match(`${run.stdout}${run.stderr}`, /codex cannot run its own workspace-write sandbox/);
        assert.equal(
          server.requests.filter((r) => r.vendor !== null),
          [],
        );
        assert.is(git(repo, 'rev-list', '--count', 'HEAD').trim(), '1', 'no commit');
      } finally {
        await server.close();
      }
    });

  if (CLI_NAMES.includes('claude'))
    test('with its readiness check off (an agents file\'s "preflight": false), the codex developer\'s leaf that wrote nothing bails agent-failed with the cause; nothing is committed as red', async () => {
      const repo = issueProject();
      const server = await startModelServer({
        script: [
          { write: join(repo, 'test', 'sub.test.js'), content: 'never written\n' },
          { text: 'Wrote the failing test.' },
        ],
      });
      try {
        const { env } = homeUnderTemp(server);
        const dir = makeTempDir('leap-real-codex-plan-');
        const plan = join(dir, 'plan.txt');
        writeFileSync(plan, 'Plan\nsub subtracts (criterion 1)\n');
        const agents = join(dir, 'agents.json');
        writeFileSync(agents, JSON.stringify({ agents: { unchecked: { plugin: 'codex', preflight: false } } }));
        const run = await runBin(
          binPath('cli', 'leap'),
          [
            'tdd',
            'run',
            '--issue',
            '1',
            '--test-cmd',
            TEST_CMD,
            '--plan',
            plan,
            '--agents',
            agents,
            '--developer',
            'unchecked',
            '--verifier',
            'claude',
            '--sandbox',
            'off',
          ],
          { cwd: repo, env: { ...env, PATH: `${env.PATH}:${installedCli('claude')}`, VERI_TEST_CMD: TEST_CMD } },
        );
        assert.is(run.code, 1, run.stdout);
        const bail = readEvents(join(repo, '.tdd')).find((e) => e.event === 'bail');
        assert.is(bail?.cause, 'agent-failed', JSON.stringify(bail));
        assert.match(
          String(bail?.message),
          /codex could not run its own workspace-write sandbox \(it said: Refusing to create helper binaries under temporary dir/,
        );
        assert.ok(
          server.requests.some((r) => r.vendor !== null),
          'the leaf ran: the model was asked',
        );
        assert.not.ok(existsSync(join(repo, 'test', 'sub.test.js')), 'the write never happened');
        assert.equal(
          git(repo, 'log', '--format=%s', 'leap/issue-1').trim().split('\n'),
          ['plan: issue 1', 'initial'],
          'no red commit of a leaf that did nothing',
        );
      } finally {
        await server.close();
      }
    });
}

test.run();
