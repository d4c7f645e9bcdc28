// What the plugins make of the real CLIs' failures: readiness of every setup Codex runs with, a refused key
// recognised at its first retry, Gemini's HTTP status in a plain sentence, a killed leaf's last words.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeRetrying } from '@leap/agent-claude';
import { codexRetrying } from '@leap/agent-codex';
import { readFileIfExists } from '@leap/core';
import {
  binPath,
  cleanupTempDirs,
  makeGitRepo,
  makeTempDir,
  runBin,
  startModelServer,
  waitFor,
  type ModelFault,
  type ModelServer,
} from '@leap/test-utils';
import { type AgentLeafResult, checkAgentReady, runAgentLeaf } from '@leap/verify';
import { CLI_NAMES, cleanupHomes, privateHome, sharedHome, type CliName } from './clis.js';
import { TEST_CMD, makeProject, readEvents } from './fixture-repo.js';
import { plugin } from './plugin.js';
import { together } from './together.js';

// The model servers not closed yet (a test that failed before it closed its own).
const open = new Set<ModelServer>();

test.after(async () => {
  for (const server of open) await server.close();
  cleanupTempDirs();
  cleanupHomes();
});

const has = (name: string) => CLI_NAMES.includes(name as never);

// The output up to and including its first line that matches `pattern`: what a watch polling the file saw then.
function upTo(stdout: string, pattern: RegExp): string {
  const lines = stdout.split('\n');
  const at = lines.findIndex((line) => pattern.test(line));
  return at === -1 ? '' : `${lines.slice(0, at + 1).join('\n')}\n`;
}

if (has('codex')) {
  test('codex readiness accepts every setup `codex exec` runs with, and a leaf then runs: a provider env_key, CODEX_API_KEY, codex login', async () => {
    const server = await startModelServer({ script: [{ text: 'ready and answering' }] });
    try {
      const agent = plugin('codex');
      const options = { role: 'verifier' as const, cwd: makeProject() };
      // 1. The provider of config.toml reads its key from STUB_OPENAI_KEY; `codex login status` says "Not logged in".
      const byEnvKey = privateHome('codex', server).env;
      assert.equal(await checkAgentReady(agent, options, byEnvKey), { ready: true });
      const leaf = await runAgentLeaf({
        name: 'verify-green',
        agent,
        prompt: 'Say it.',
        options,
        stateDir: makeTempDir('leap-real-agents-state-'),
        env: byEnvKey,
      });
      assert.is(leaf.answer?.text, 'ready and answering', `${leaf.failure}`);
      // 2. CODEX_API_KEY with the built-in OpenAI provider (its base URL pointed at the server).
      const byApiKey = privateHome('codex', server).env;
      writeFileSync(
        join(byApiKey.CODEX_HOME!, 'config.toml'),
        `check_for_update_on_startup = false\nopenai_base_url = "${server.url}/v1"\n[analytics]\nenabled = false\n`,
      );
      const apiKeyEnv = { ...byApiKey, STUB_OPENAI_KEY: '', CODEX_API_KEY: 'sk-stub-key' };
      assert.equal(await checkAgentReady(agent, options, apiKeyEnv), { ready: true });
      const second = await runAgentLeaf({
        name: 'verify-green',
        agent,
        prompt: 'Say it.',
        options,
        stateDir: makeTempDir('leap-real-agents-state-'),
        env: apiKeyEnv,
      });
      assert.is(second.answer?.text, 'ready and answering', `${second.failure}`);
      assert.ok(
        server.requests.some((r) => r.headers.authorization === 'Bearer sk-stub-key' && r.answer === 200),
        'the CLI used the key',
      );
      // 3. `codex login --with-api-key`.
      const loggedIn = privateHome('codex', server, { codexLogin: true }).env;
      assert.equal(await checkAgentReady(agent, options, { ...loggedIn, STUB_OPENAI_KEY: '' }), {
        ready: false,
        code: 1,
        failureKind: 'failed',
        failure:
          'codex is not ready: `' +
          `${process.execPath} -e eval(process.env.LEAP_CODEX_READINESS) codex` +
          '` exited with code 1: model provider "stub" (config.toml) reads its key from STUB_OPENAI_KEY, which is not set',
      });
      const plain = privateHome('codex', server, { codexLogin: true }).env;
      writeFileSync(join(plain.CODEX_HOME!, 'config.toml'), 'check_for_update_on_startup = false\n');
      assert.equal(
        await checkAgentReady(agent, options, plain),
        { ready: true },
        'the built-in provider with a login: codex login status says so',
      );
      // And no setup at all is refused in the CLI's own words, before any leaf.
      const none = privateHome('codex', server).env;
      writeFileSync(join(none.CODEX_HOME!, 'config.toml'), 'check_for_update_on_startup = false\n');
      const refused = await checkAgentReady(agent, options, none);
      assert.ok(!refused.ready && /: Not logged in$/.test(refused.failure), JSON.stringify(refused));
    } finally {
      await server.close();
    }
  });
}

if (has('claude')) {
  test("claude: a refused key (401) is final at its first api_retry event, and the leaf ends as failed with the CLI's words", async () => {
    const server = await startModelServer({ script: [{ text: 'never', fault: 401 }] });
    try {
      const { env } = privateHome('claude', server);
      // The retry watch of @leap/verify as it is today ends a leaf after 3 retries and retryLimitMs; the
      // plugin's `final` says at the first retry that no retry can succeed (see the report for the watch).
      const leaf = await runAgentLeaf({
        name: 'verify-green',
        agent: plugin('claude'),
        prompt: 'x',
        options: { role: 'verifier', cwd: makeProject() },
        stateDir: makeTempDir('leap-real-agents-state-'),
        env,
        retryLimitMs: 1,
      });
      assert.is(leaf.failureKind, 'failed');
      assert.match(
        leaf.failure ?? '',
        /API retry \d+ of 10 \(error: authentication_failed, HTTP 401\); a refused key is refused again, so the leaf ends/,
      );
      const first = claudeRetrying(upTo(leaf.stdout, /"subtype":"api_retry"/));
      assert.equal([first?.attempts, first?.final], [1, true], 'final from the first retry');
      assert.ok(server.requests.filter((r) => r.answer === 401).length < 10, 'ended before the CLI gave up by itself');
    } finally {
      await server.close();
    }
  });

  test('claude: a leaf killed while the CLI retries a 500 says what the CLI said last', async () => {
    const server = await startModelServer({ script: [{ text: 'never', fault: 500 }] });
    try {
      const { env } = privateHome('claude', server);
      const stateDir = makeTempDir('leap-real-agents-state-');
      const agent = plugin('claude');
      const options = { role: 'verifier' as const, cwd: makeProject() };
      // Killed once the CLI has retried twice: a TERM to the process running the leaf ends the leaf (killed-signal),
      // as any kill of a leaf would end it.
      const pending = runAgentLeaf({ name: 'verify-green', agent, prompt: 'x', options, stateDir, env });
      await server.waitForRequest(() => server.requests.filter((q) => q.answer === 500).length >= 3);
      await waitFor(() => (readFileIfExists(join(stateDir, 'verify-green.out')) ?? '').includes('"attempt":2'), 60_000);
      process.kill(process.pid, 'SIGTERM');
      const leaf = await pending;
      assert.is(leaf.failureKind, 'killed');
      assert.match(
        agent.explainFailure!(leaf.stdout, leaf.stderr) ?? '',
        /^the last thing Claude Code said: API retry \d+ of 10 \(error: \w+, HTTP 500\)$/,
      );
    } finally {
      await server.close();
    }
  });
}

if (has('codex')) {
  test("codex: a refused key is final at its first Reconnecting event; the failed turn is the leaf's failure, in the CLI's words", async () => {
    const server = await startModelServer({ script: [{ text: 'never', fault: 401 }] });
    try {
      const { env } = privateHome('codex', server);
      const leaf = await runAgentLeaf({
        name: 'verify-green',
        agent: plugin('codex'),
        prompt: 'x',
        options: { role: 'verifier', cwd: makeProject() },
        stateDir: makeTempDir('leap-real-agents-state-'),
        env,
      });
      assert.is(leaf.failureKind, 'failed');
      assert.match(
        leaf.failure ?? '',
        /unexpected status 401 Unauthorized: invalid x-api-key \(the stub server refuses this key\)/,
      );
      const first = codexRetrying(upTo(leaf.stdout, /Reconnecting/));
      assert.equal([first?.attempts, first?.final], [1, true]);
    } finally {
      await server.close();
    }
  });
}

if (has('gemini')) {
  for (const [fault, status] of [[401, 'UNAUTHENTICATED']] as const) {
    test(`gemini: an HTTP ${fault} becomes one plain sentence with the status, and the exit code is explained`, async () => {
      const server = await startModelServer({ script: [{ text: 'never', fault }] });
      try {
        const { env } = privateHome('gemini', server);
        const leaf = await runAgentLeaf({
          name: 'verify-green',
          agent: plugin('gemini'),
          prompt: 'x',
          options: { role: 'verifier', cwd: makeProject() },
          stateDir: makeTempDir('leap-real-agents-state-'),
          env,
        });
        assert.equal([leaf.status, leaf.code], ['exited', fault % 256]);
        assert.is(
          leaf.failure,
          `gemini exited with code ${fault % 256} (exited): the Gemini API answered HTTP ${fault} ${status}: invalid x-api-key (the stub server refuses this key) (the CLI's exit code ${fault % 256} is that status mod 256)`,
        );
      } finally {
        await server.close();
      }
    });
  }
}

// What each CLI says of each fault, as the plugin reads it (runAgentLeaf's failure): one plain sentence with the
// status or the CLI's own words, whether the CLI gave up by itself or its leaf was ended while it retried (a short
// time limit: Claude Code retries a 500 about ten times over three minutes, Gemini CLI about five minutes).
const FAULT_WORDS: Record<string, Record<string, RegExp>> = {
  claude: {
    500: /^claude was stopped by its supervisor \(killed-timeout\); the CLI said last: the last thing Claude Code said: API retry \d+ of 10 \(error: server_error, HTTP 500\)$/,
    429: /^claude was stopped by its supervisor \(killed-timeout\); the CLI said last: the last thing Claude Code said: API retry \d+ of 10 \(error: rate_limit, HTTP 429\)$/,
    401: /^claude was refused by its service: API retry \d+ of 10 \(error: authentication_failed, HTTP 401\); a refused key is refused again, so the leaf ends \(the leaf was ended\)$/,
    overload: /^claude exited with code 1 \(exited\): API Error: Repeated 529 Overloaded errors\. /,
  },
  codex: {
    500: /^codex exited with code 1 \(exited\): We.re currently experiencing high demand, which may cause temporary errors\.$/,
    429: /^codex exited with code 1 \(exited\): exceeded retry limit, last status: 429 Too Many Requests$/,
    401: /^codex was refused by its service: Reconnecting\.\.\. \d\/5 \(unexpected status 401 Unauthorized: invalid x-api-key \(the stub server refuses this key\), url: http:\/\/127\.0\.0\.1:\d+\/v1\/responses\) \(the leaf was ended\)$/,
    // Five retries five seconds apart: the CLI gives up (about 30 s) about when the retry watch would end it (30 s after the first).
    overload:
      /^(codex exited with code 1 \(exited\): Selected model is at capacity\. Please try a different model\.|codex ran dry \(its service is overloaded\): Reconnecting\.\.\. \d\/5 \(Selected model is at capacity\. Please try a different model\.\) \(the leaf was ended after \d+ attempts in [\d.]+ s\))$/,
  },
  gemini: {
    500: /^gemini was stopped by its supervisor \(killed-timeout\); the CLI said last: the Gemini API answered HTTP 500 INTERNAL: internal server error \(the stub server says so\) \(attempt \d+; the CLI was retrying\)$/,
    429: /^gemini was stopped by its supervisor \(killed-timeout\); the CLI said last: the Gemini API answered HTTP 429 RESOURCE_EXHAUSTED: rate limit reached \(the stub server says so\) \(attempt \d+; the CLI was retrying\)$/,
    401: /^gemini exited with code 145 \(exited\): the Gemini API answered HTTP 401 UNAUTHENTICATED: invalid x-api-key \(the stub server refuses this key\) \(the CLI's exit code 145 is that status mod 256\)$/,
    overload:
      /^gemini was stopped by its supervisor \(killed-timeout\); the CLI said last: the Gemini API answered HTTP 503 UNAVAILABLE: overloaded \(the stub server says so\) \(attempt \d+; the CLI was retrying\)$/,
  },
};

const FAULTS = [500, 429, 401, 'overload'] as const;
type FaultRun = { cli: CliName; fault: (typeof FAULTS)[number] };
// Fault by fault, the families taking turns: the leaves that wait out their time limit (500, 429) start first.
const FAULT_RUNS: FaultRun[] = FAULTS.flatMap((fault) => CLI_NAMES.map((cli) => ({ cli, fault })));
// Claude Code's and Gemini CLI's retries of a 500, a 429 or an overload are ended by the leaf's time limit, which
// counts the CLI's start (Gemini CLI's takes 10 to 20 s on a loaded machine): 40 s, with the retry watch's limit
// (30 s after the first retry by default) raised past it so that the time limit, not the watch, ends them.
// Codex gives up by itself or is ended by the watch, as it would be with the defaults.
const LIMITS: Record<CliName, { timeout: string; retryLimitMs?: number }> = {
  claude: { timeout: '40', retryLimitMs: 60_000 },
  codex: { timeout: '60' },
  gemini: { timeout: '40', retryLimitMs: 60_000 },
};

async function runFault(
  { cli, fault }: FaultRun,
  begun: () => void,
): Promise<{ server: ModelServer; leaf: AgentLeafResult }> {
  const server = await startModelServer({ script: [{ text: 'never', fault }] });
  open.add(server);
  server.waitForRequest((r) => r.vendor !== null).then(begun);
  const { env } = privateHome(cli, server, { codexLogin: true });
  const leaf = await runAgentLeaf({
    name: 'verify-green',
    agent: plugin(cli),
    prompt: 'x',
    options: { role: 'verifier', cwd: makeProject() },
    stateDir: makeTempDir('leap-real-agents-state-'),
    env: { ...env, VERI_TIMEOUT: LIMITS[cli].timeout },
    retryLimitMs: LIMITS[cli].retryLimitMs,
  });
  return { server, leaf };
}

// These leaves mostly wait (a time limit, a CLI's retries): they run side by side, started by the first of these
// tests (after the test above that sends this process a TERM, which would end every leaf it runs); two start at a
// time, the next once one has asked its server.
const faultRun = together(FAULT_RUNS, 2, runFault);

for (const cli of CLI_NAMES) {
  test(`${cli}: the server's 500, 429, 401 and overload each end the leaf with one plain sentence of the cause, never raw output lines`, async () => {
    for (const run of FAULT_RUNS.filter((r) => r.cli === cli)) {
      const { fault } = run;
      const { server, leaf } = await faultRun(run);
      try {
        assert.ok(
          server.requests.some((r) => r.answer !== 200 && r.vendor !== null),
          `${fault}: the fault was answered`,
        );
        assert.ok(leaf.failureKind === 'failed' || leaf.failureKind === 'killed', `${fault}: ${leaf.failureKind}`);
        assert.match(leaf.failure ?? '', FAULT_WORDS[cli]![String(fault)]!, `${cli} ${fault}: ${leaf.failure}`);
        assert.not.match(leaf.failure ?? '', /[{}]|"type"|^\s+at /m, 'no JSON, no stack frame');
        if (fault === 500 || fault === 401) {
          // Hostile: a server error or a refused key is no vendor that ran dry, whether the leaf failed or was killed.
          assert.is(leaf.dry, null, `${fault}: ${JSON.stringify(leaf.dry)}`);
          assert.is(plugin(cli).ranDry?.(leaf.stdout, leaf.stderr), null, `${cli} ${fault}: its output read as dry`);
        }
      } finally {
        open.delete(server);
        await server.close();
      }
    }
  });
}

// The bail a run ends with quotes the plugin's explanation, once: never the raw stream-json or JSON lines it reads it from.
const BAILS: [CliName, ModelFault, CliName, RegExp][] = [
  ['codex', 429, 'claude', /exceeded retry limit, last status: 429 Too Many Requests/],
  ['gemini', 401, 'claude', /the Gemini API answered HTTP 401 UNAUTHENTICATED: invalid x-api-key/],
  ['claude', 'overload', 'codex', /API Error: Repeated 529 Overloaded errors/],
];
for (const [developer, fault, verifier, words] of BAILS.filter(([d, , v]) => has(d) && has(v))) {
  test(`leap tdd run: a ${developer} developer answered ${fault} bails agent-failed quoting its plugin's sentence, no raw lines`, async () => {
    const repo = makeGitRepo({
      prefix: 'leap-real-faults-',
      files: {
        'add.js': 'exports.add = (a, b) => a + b;\n',
        'test/add.test.js':
          "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => assert.ok(true));\n",
        '.tdd/issues/1.md': '# Subtraction\n\n## Acceptance criteria\n\n- [ ] sub(a, b) returns a - b\n',
      },
    });
    const plan = join(makeTempDir('leap-real-faults-plan-'), 'plan.txt');
    writeFileSync(plan, 'Plan\nsub subtracts (criterion 1)\n');
    const devServer = await startModelServer({ script: [{ text: 'never', fault }] });
    const verServer = await startModelServer({ script: [] });
    try {
      const env = sharedHome({ cli: developer, server: devServer }, { cli: verifier, server: verServer });
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
          developer,
          '--verifier',
          verifier,
        ],
        {
          cwd: repo,
          env: { ...env, VERI_TEST_CMD: TEST_CMD },
        },
      );
      assert.not.equal(run.code, 0);
      const bail = readEvents(join(repo, '.tdd')).find((e) => e.event === 'bail');
      assert.is(bail?.cause, 'agent-failed', JSON.stringify(bail));
      const message = String(bail?.message);
      assert.match(message, words);
      assert.not.match(message, /\{"|"type"|^\s+at /m, `raw lines quoted: ${message}`);
      assert.is(message.match(new RegExp(words.source, 'g'))?.length, 1, `said once: ${message}`);
      assert.match(`${run.stdout}${run.stderr}`, words);
      assert.is(verServer.requests.filter((r) => r.vendor !== null).length, 0, 'no verifier was asked');
    } finally {
      await devServer.close();
      await verServer.close();
    }
  });
}

test.run();
