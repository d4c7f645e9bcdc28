// runAgentLeaf with the real CLI plugins and their stand-ins (plugins/agent-*/test/fixtures), which behave
// as the recorded Claude Code 2.1.197, Codex CLI 0.171.0 and Gemini CLI 0.61.0: failures in the CLI's words,
// a missing login before a leaf is spent, a CLI retrying for ever ended, one usage event per leaf.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createClaudeAgent } from '@leap/agent-claude';
import { createCodexAgent } from '@leap/agent-codex';
import { createGeminiAgent } from '@leap/agent-gemini';
import type { AgentPlugin } from '@leap/core';
import { readEvents } from '@leap/core';
import { cleanupTempDirs, git, hostileTitles, makeGitRepo, makeTempDir, repoRoot } from '@leap/test-utils';
import { DEFAULT_RETRY_LIMIT_MS, checkAgentReady, runAgentLeaf, type AgentLeafOptions } from '../src/run-agent-leaf.js';
import { verifyEnv } from './helpers.js';

const standIns = ['agent-claude', 'agent-codex', 'agent-gemini']
  .map((p) => join(repoRoot, 'plugins', p, 'test', 'fixtures'))
  .join(':');
const codexHome = join(repoRoot, 'plugins', 'agent-codex', 'test', 'fixtures', 'codex-home');
const LOGINS = [
  'ANTHROPIC_API_KEY',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CODEX_HOME',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GENAI_USE_VERTEXAI',
  'GOOGLE_GENAI_USE_GCA',
  'STANDIN_MODE',
];

// A machine with the three CLIs on PATH, logged in unless `loggedIn` is false, in a HOME of its own.
function cliEnv(extra: Record<string, string> = {}, loggedIn = true): NodeJS.ProcessEnv {
  // TMPDIR of its own: the clone may lie under /tmp, and codex's check refuses a CODEX_HOME under the temp folder.
  const env = verifyEnv({
    PATH: `${standIns}:${process.env.PATH ?? ''}`,
    HOME: makeTempDir(),
    TMPDIR: makeTempDir('leap-tmpdir-'),
    ...extra,
  });
  for (const name of LOGINS) if (extra[name] === undefined) delete env[name];
  if (loggedIn)
    Object.assign(
      env,
      { ANTHROPIC_API_KEY: 'sk-ant-standin', CODEX_HOME: codexHome, GEMINI_API_KEY: 'standin' },
      extra,
    );
  return env;
}

// A fresh worktree, as a builder gets, with its state folder.
function setup() {
  const repo = makeGitRepo({ files: { 'README.md': 'hi\n' } });
  const tree = join(makeTempDir('leap-wt-'), 'wt');
  git(repo, 'worktree', 'add', '-q', '-b', 'leap/ball', tree);
  const stateDir = join(tree, '.tdd');
  mkdirSync(stateDir);
  return { tree, stateDir };
}

function usageEvents(stateDir: string) {
  return readEvents(join(stateDir, 'events.jsonl'))
    .map((r) => r.event)
    .filter((e) => e.event === 'usage');
}

function leafOf(
  agent: AgentPlugin,
  name: string,
  tree: string,
  stateDir: string,
  env: NodeJS.ProcessEnv,
  more: Partial<AgentLeafOptions> = {},
): AgentLeafOptions {
  return { name, agent, prompt: 'Say hello.', options: { role: 'developer', cwd: tree }, stateDir, env, ...more };
}

const clis = suite('runAgentLeaf with the agent CLIs');
clis.after.each(cleanupTempDirs);

clis(
  'every role of every CLI answers in a fresh worktree; one usage event per leaf, with what each CLI reports',
  async () => {
    const { tree, stateDir } = setup();
    const env = cliEnv({ VERI_STEP: 'greet' });
    const agents = [createClaudeAgent({ model: 'sonnet' }), createCodexAgent(), createGeminiAgent()];
    const roles = ['developer', 'verifier', 'reviewer', 'builder', 'planner'] as const;
    const [prompt] = hostileTitles(1, 29) as [string];
    let leaves = 0;
    for (const agent of agents) {
      for (const role of roles) {
        const name = `${role}-${agent.name}`;
        const ran = await runAgentLeaf({
          ...leafOf(agent, name, tree, stateDir, env),
          prompt,
          options: { role, cwd: tree },
        });
        leaves++;
        assert.is(ran.failure, null, `${name}: ${ran.failure} ${ran.stderr}`);
        assert.ok(ran.answer?.text.startsWith(`echo:${prompt}`), `${name} answered ${ran.answer?.text}`);
        assert.equal(
          ran.usage,
          ran.answer?.usage === undefined ? null : { ...ran.answer.usage, model: ran.answer.usage.model ?? null },
        );
      }
    }
    const events = usageEvents(stateDir);
    assert.is(events.length, leaves);
    const byAgent = (agent: string) => events.filter((e) => e.agent === agent);
    assert.ok(
      byAgent('claude').every(
        (e) =>
          e.family === 'anthropic' && e.model === 'sonnet' && (e.cost_usd ?? 0) > 0 && (e.input_tokens ?? 0) > 1200,
      ),
    );
    assert.ok(
      byAgent('codex').every(
        (e) => e.family === 'openai' && e.model === null && e.cost_usd === null && (e.output_tokens ?? 0) > 0,
      ),
    );
    assert.ok(
      byAgent('gemini').every(
        (e) =>
          e.family === 'google' && e.model === 'gemini-2.5-pro' && e.cost_usd === null && (e.input_tokens ?? 0) > 2900,
      ),
    );
    assert.ok(events.every((e) => e.issue === 3 && e.step === 'greet'));
  },
);

clis("claude not logged in: the failure in its words, and its error result's cost recorded", async () => {
  const { tree, stateDir } = setup();
  const ran = await runAgentLeaf(leafOf(createClaudeAgent(), 'develop-green', tree, stateDir, cliEnv({}, false)));
  assert.equal([ran.code, ran.status, ran.failureKind], [1, 'exited', 'failed']);
  assert.is(ran.failure, 'claude exited with code 1 (exited): Not logged in · Please run /login');
  assert.equal(ran.usage, { model: null, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
  assert.equal(
    usageEvents(stateDir).map((e) => [e.leaf, e.agent, e.cost_usd]),
    [['develop-green', 'claude', 0]],
  );
});

clis('claude refusing bypassPermissions as root: its words, not an empty line', async () => {
  if (process.getuid?.() !== 0) return; // only root sees the refusal
  const { tree, stateDir } = setup();
  const agent = createClaudeAgent({ writePermissionMode: 'bypassPermissions' });
  const ran = await runAgentLeaf(leafOf(agent, 'develop-red', tree, stateDir, cliEnv()));
  assert.is(ran.failureKind, 'failed');
  assert.match(
    ran.failure ?? '',
    /^claude exited with code 1 \(exited\): --dangerously-skip-permissions cannot be used with root\/sudo privileges/,
  );
  assert.is(ran.usage, null);
  assert.is(usageEvents(stateDir).length, 0);
});

clis('gemini without credentials: the JSON error\'s message, not its last line "}"', async () => {
  const { tree, stateDir } = setup();
  const ran = await runAgentLeaf(leafOf(createGeminiAgent(), 'develop-green', tree, stateDir, cliEnv({}, false)));
  assert.equal([ran.code, ran.failureKind], [41, 'failed']);
  assert.match(
    ran.failure ?? '',
    /^gemini exited with code 41 \(exited\): Please set an Auth method in your .*\/\.gemini\/settings\.json or specify one of the following environment variables before running: GEMINI_API_KEY/,
  );
  assert.is(ran.usage, null);
});

clis('gemini cannot take a prompt over 8 MiB: refused before anything runs', async () => {
  const { tree, stateDir } = setup();
  const ran = await runAgentLeaf({
    ...leafOf(createGeminiAgent(), 'develop-green', tree, stateDir, cliEnv()),
    prompt: 'x'.repeat(8 * 1024 * 1024 + 1),
  });
  assert.equal([ran.status, ran.failureKind, ran.code], ['failed-start', 'failed', 2]);
  assert.match(ran.failure ?? '', /^gemini cannot take this prompt: gemini reads at most 8388608 bytes/);
  assert.not.ok(existsSync(join(stateDir, 'develop-green.exit')));
});

clis('codex not logged in: said at once by `codex login status`, no leaf spent', async () => {
  const { tree, stateDir } = setup();
  const started = Date.now();
  const ran = await runAgentLeaf(
    leafOf(createCodexAgent(), 'develop-green', tree, stateDir, cliEnv({ CODEX_HOME: makeTempDir() })),
  );
  assert.ok(Date.now() - started < 5000);
  assert.equal([ran.code, ran.status, ran.failureKind, ran.usage], [1, 'failed-start', 'failed', null]);
  assert.is(
    ran.failure,
    `codex is not ready: \`${process.execPath} -e eval(process.env.LEAP_CODEX_READINESS) codex\` exited with code 1: Not logged in`,
  );
  assert.not.ok(existsSync(join(stateDir, 'develop-green.exit')), 'no leaf ran');
  assert.not.ok(existsSync(join(stateDir, 'events.jsonl')), 'no launch, no usage');
});

clis(
  "codex with no network retries for ever: the leaf is ended once it has retried for the limit, in the CLI's words",
  async () => {
    const { tree, stateDir } = setup();
    const env = cliEnv({ STANDIN_MODE: 'offline', STANDIN_RETRY_MS: '100' });
    const started = Date.now();
    const ran = await runAgentLeaf(
      leafOf(createCodexAgent(), 'develop-green', tree, stateDir, env, { retryLimitMs: 1000 }),
    );
    const took = Date.now() - started;
    assert.ok(took >= 1000 && took < 6000, `ended after ${took} ms`);
    assert.equal([ran.status, ran.code, ran.failureKind], ['killed-stuck', 2, 'failed']);
    assert.match(
      ran.failure ?? '',
      /^codex cannot reach its service: \d+ failed attempts in [\d.]+ s, the last: Reconnecting\.\.\. waiting for network \(Connection failed: error sending request\) \(the leaf was ended\)$/,
    );
    assert.equal(ran.usage, { model: null, input_tokens: null, output_tokens: null, cost_usd: null });
    assert.is(usageEvents(stateDir).length, 1);
    assert.ok(DEFAULT_RETRY_LIMIT_MS >= 10_000, 'by default a blip has time to pass');
  },
);

clis(
  'claude with a key and no network retries the API (api_retry events): ended the same way, not after minutes',
  async () => {
    const { tree, stateDir } = setup();
    const ran = await runAgentLeaf(
      leafOf(createClaudeAgent(), 'develop-green', tree, stateDir, cliEnv({ STANDIN_MODE: 'retry' }), {
        retryLimitMs: 800,
      }),
    );
    assert.equal([ran.status, ran.failureKind], ['killed-stuck', 'failed']);
    assert.match(
      ran.failure ?? '',
      /^claude cannot reach its service: \d+ failed attempts in [\d.]+ s, the last: API retry \d+ of 10 \(error: unknown\) \(the leaf was ended\)$/,
    );
    assert.is(ran.usage, null, 'no result object, nothing reported');
  },
);

clis('the same without the preflight: exec does not check the login, and is ended the same way', async () => {
  const { tree, stateDir } = setup();
  const env = cliEnv({ CODEX_HOME: makeTempDir(), STANDIN_RETRY_MS: '100' });
  const ran = await runAgentLeaf(
    leafOf(createCodexAgent(), 'develop-green', tree, stateDir, env, { retryLimitMs: 800, preflight: false }),
  );
  assert.is(ran.failureKind, 'failed');
  assert.match(ran.failure ?? '', /^codex cannot reach its service/);
});

clis('a retry limit of 0 leaves the leaf to its time limit; a blip it recovered from is no failure', async () => {
  const { tree, stateDir } = setup();
  const offline = cliEnv({ STANDIN_MODE: 'offline', STANDIN_RETRY_MS: '50', VERI_TIMEOUT: '1.5' });
  const killed = await runAgentLeaf(
    leafOf(createCodexAgent(), 'develop-green', tree, stateDir, offline, { retryLimitMs: 0 }),
  );
  assert.equal([killed.status, killed.failureKind], ['killed-timeout', 'killed']);
  const blip = await runAgentLeaf(
    leafOf(createCodexAgent(), 'develop-green', tree, stateDir, cliEnv({ STANDIN_MODE: 'blip' }), {
      retryLimitMs: 100,
    }),
  );
  assert.is(blip.failure, null);
  assert.is(blip.answer?.text, 'echo:Say hello.|sandbox=workspace-write');
});

clis('a CLI not installed is `missing`, whether its preflight or the leaf finds it', async () => {
  const { tree, stateDir } = setup();
  const env = cliEnv();
  const viaPreflight = await runAgentLeaf(
    leafOf(createCodexAgent({ bin: 'no-such-codex' }), 'develop-green', tree, stateDir, env),
  );
  assert.equal(
    [viaPreflight.code, viaPreflight.failureKind, viaPreflight.failure],
    [127, 'missing', 'codex could not start: no-such-codex was not found'],
  );
  const viaLeaf = await runAgentLeaf(
    leafOf(createClaudeAgent({ bin: 'no-such-claude' }), 'develop-green', tree, stateDir, env),
  );
  assert.equal([viaLeaf.code, viaLeaf.failureKind], [127, 'missing']);
});

clis.run();

// ---

const ready = suite('checkAgentReady');
ready.after.each(cleanupTempDirs);

ready("ready when the agent has no check or its check exits 0; the CLI's words otherwise", async () => {
  const options = { role: 'reviewer' as const, cwd: makeTempDir() };
  assert.equal(await checkAgentReady(createClaudeAgent(), options, cliEnv({}, false)), { ready: true });
  assert.equal(await checkAgentReady(createCodexAgent(), options, cliEnv()), { ready: true });
  assert.equal(await checkAgentReady(createCodexAgent(), options, cliEnv({ CODEX_HOME: makeTempDir() })), {
    ready: false,
    code: 1,
    failureKind: 'failed',
    failure: `codex is not ready: \`${process.execPath} -e eval(process.env.LEAP_CODEX_READINESS) codex\` exited with code 1: Not logged in`,
  });
});

ready('a check that is not executable, or says nothing, or feeds on stdin', async () => {
  const options = { role: 'reviewer' as const, cwd: makeTempDir() };
  const base = createCodexAgent();
  const withCheck = (command: string, args: string[], stdin?: string): AgentPlugin => ({
    ...base,
    explainFailure: undefined,
    preflight: () => ({ command, args, stdin, env: { DROPPED: undefined } }),
  });
  const dir = makeTempDir();
  assert.equal(await checkAgentReady(withCheck(dir, []), options, process.env), {
    ready: false,
    code: 126,
    failureKind: 'missing',
    failure: `codex could not start: ${dir} is not executable`,
  });
  assert.equal(await checkAgentReady(withCheck('bash', ['-c', 'exit 3']), options, process.env), {
    ready: false,
    code: 3,
    failureKind: 'failed',
    failure: 'codex is not ready: `bash -c exit 3` exited with code 3',
  });
  assert.equal(
    await checkAgentReady(withCheck('bash', ['-c', '[ "$(cat)" = ok ] && [ -z "${DROPPED+x}" ]']), options, {
      ...process.env,
      DROPPED: '1',
    }),
    {
      ready: false,
      code: 1,
      failureKind: 'failed',
      failure: 'codex is not ready: `bash -c [ "$(cat)" = ok ] && [ -z "${DROPPED+x}" ]` exited with code 1',
    },
  );
  assert.equal(
    await checkAgentReady(withCheck('bash', ['-c', '[ "$(cat)" = ok ] && [ -z "${DROPPED+x}" ]'], 'ok'), options, {
      ...process.env,
      DROPPED: '1',
    }),
    { ready: true },
  );
  assert.equal(
    await checkAgentReady(withCheck('bash', ['-c', 'echo "said on stdout"; exit 4']), options, process.env),
    {
      ready: false,
      code: 4,
      failureKind: 'failed',
      failure: 'codex is not ready: `bash -c echo "said on stdout"; exit 4` exited with code 4: said on stdout',
    },
  );
});

ready('a check that hangs is killed at its time limit, with everything it started', async () => {
  const options = { role: 'reviewer' as const, cwd: makeTempDir() };
  const hang: AgentPlugin = {
    ...createCodexAgent(),
    preflight: () => ({ command: 'bash', args: ['-c', 'sleep 30 & sleep 30'] }),
  };
  const started = Date.now();
  const result = await checkAgentReady(hang, options, process.env, 300);
  assert.ok(Date.now() - started < 5000);
  assert.equal(result, {
    ready: false,
    code: 2,
    failureKind: 'failed',
    failure: 'codex is not ready: `bash -c sleep 30 & sleep 30` did not answer within 0.3 s',
  });
});

ready.run();

// ---

const words = suite('runAgentLeaf: the words of a failure');
words.after.each(cleanupTempDirs);

words(
  'a leaf its supervisor could not start for another reason than a missing CLI is `failed`, with the reason',
  async () => {
    const { tree, stateDir } = setup();
    const ran = await runAgentLeaf(
      leafOf(createCodexAgent(), 'develop-green', tree, stateDir, cliEnv({ VERI_TIMEOUT: 'soon' })),
    );
    assert.equal([ran.status, ran.failureKind], ['failed-start', 'failed']);
    assert.match(ran.failure ?? '', /^codex could not start: codex could not be supervised: .*VERI_TIMEOUT/);
  },
);

words("a plain agent's last stderr line, colours off and cut at 500 characters", async () => {
  const { tree, stateDir } = setup();
  const { createCommandAgent } = await import('@leap/agent-command');
  const loud = createCommandAgent({
    name: 'loud',
    family: 'x',
    command: [
      'bash',
      '-c',
      `cat >/dev/null; printf 'answer\\n'; printf '\\033[31m%s\\033[0m\\n\\n' "$(printf 'y%.0s' {1..600})" >&2; exit 9`,
    ],
  });
  const ran = await runAgentLeaf(leafOf(loud, 'develop-green', tree, stateDir, cliEnv()));
  assert.is(ran.failure, `loud exited with code 9 (exited): ${'y'.repeat(500)}…`);
});

words.run();
