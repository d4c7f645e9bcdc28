// A vendor that ran dry, as each real CLI meets it: the model server answers every model call with a rate
// limit (429), an overload (Anthropic 529, OpenAI and Gemini 503) or a spent quota (each vendor's own answer),
// and the leaf, run by @leap/verify's runAgentLeaf with the default retry watch, ends `failed` with `dry`
// naming the kind in the CLI's words: at once where the CLI gives up at once, after the watch's limit (30 s)
// where the CLI would retry for minutes (Claude Code about 3, Gemini CLI 4 to 5).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AgentDryKind } from '@leap/core';
import { cleanupTempDirs, makeTempDir, startModelServer, type ModelFault, type ModelServer } from '@leap/test-utils';
import { runAgentLeaf, type AgentLeafResult } from '@leap/verify';
import { CLI_NAMES, cleanupHomes, privateHome, type CliName } from './clis.js';
import { makeProject } from './fixture-repo.js';
import { plugin } from './plugin.js';
import { together } from './together.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

interface DryCase {
  cli: CliName;
  fault: ModelFault;
  kind: AgentDryKind;
  /** The CLI's words, as the leaf's `dry.message`. */
  words: RegExp;
  /** The leaf's failure: the CLI gave up by itself (exited), or the retry watch ended it. */
  failure: RegExp;
  /** The model calls the server answered with the fault: the fewest and the most. */
  calls: [number, number];
  status: number;
  model?: string;
}

const watched = (name: string, kind: string, words: string) =>
  new RegExp(`^${name} ran dry \\(${kind}\\): ${words} \\(the leaf was ended after \\d+ attempts in [\\d.]+ s\\)$`);
const exited = (name: string, code: number, words: string) =>
  new RegExp(`^${name} exited with code ${code} \\(exited\\): ${words}$`);

const CLAUDE_429 = 'API retry \\d+ of 10 \\(error: rate_limit, HTTP 429\\)';
const CLAUDE_529 = 'API retry \\d+ of 10 \\(error: overloaded, HTTP 529\\)';
const REPEATED_529 =
  'API Error: Repeated 529 Overloaded errors\\. The API is at capacity — this is usually temporary\\. Try again in a moment\\..*';
const CODEX_429 = 'exceeded retry limit, last status: 429 Too Many Requests';
const CODEX_503 = 'Selected model is at capacity\\. Please try a different model\\.';
const CODEX_QUOTA = 'Quota exceeded\\. Check your plan and billing details\\.';
const GEMINI_RETRY = (status: string, words: string) =>
  `the Gemini API answered HTTP ${status}: ${words} \\(attempt \\d+; the CLI was retrying\\)`;
const GEMINI_QUOTA =
  "the Gemini API answered HTTP 429: You have exhausted your daily quota on this model\\. \\(the CLI's exit code 173 is that status mod 256\\)";

const CASES: DryCase[] = [
  // Claude Code retries a 429 ten times over about 3 minutes (recorded: 188 s): the watch ends it.
  {
    cli: 'claude',
    fault: 429,
    kind: 'rate-limit',
    words: new RegExp(`^${CLAUDE_429}$`),
    failure: watched('claude', 'rate-limited', CLAUDE_429),
    calls: [3, 10],
    status: 429,
  },
  // Its default model gives up on a 529 after three tries (about 3 s), in its own words.
  {
    cli: 'claude',
    fault: 'overload',
    kind: 'overload',
    words: new RegExp(`^${REPEATED_529}$`),
    failure: exited('claude', 1, REPEATED_529),
    calls: [3, 3],
    status: 529,
  },
  // Another model retries a 529 like a 429: the watch ends it.
  {
    cli: 'claude',
    fault: 'overload',
    kind: 'overload',
    words: new RegExp(`^${CLAUDE_529}$`),
    failure: watched('claude', 'its service is overloaded', CLAUDE_529),
    calls: [3, 10],
    status: 529,
    model: 'sonnet',
  },
  {
    cli: 'claude',
    fault: 'quota',
    kind: 'quota',
    words: /^Credit balance is too low$/,
    failure: exited('claude', 1, 'Credit balance is too low'),
    calls: [1, 1],
    status: 400,
  },
  {
    cli: 'codex',
    fault: 429,
    kind: 'rate-limit',
    words: new RegExp(`^${CODEX_429}$`),
    failure: exited('codex', 1, CODEX_429),
    calls: [6, 6],
    status: 429,
  },
  // Five retries five seconds apart (about 30 s): the CLI gives up about when the watch would end it; either way, overloaded.
  {
    cli: 'codex',
    fault: 'overload',
    kind: 'overload',
    words: new RegExp(`^(Reconnecting\\.\\.\\. \\d/5 \\()?${CODEX_503}\\)?$`),
    failure: new RegExp(
      `^(${exited('codex', 1, CODEX_503).source.slice(1, -1)}|${watched('codex', 'its service is overloaded', `Reconnecting\\.\\.\\. \\d/5 \\(${CODEX_503}\\)`).source.slice(1, -1)})$`,
    ),
    calls: [3, 30],
    status: 503,
  },
  {
    cli: 'codex',
    fault: 'quota',
    kind: 'quota',
    words: new RegExp(`^${CODEX_QUOTA}$`),
    failure: exited('codex', 1, CODEX_QUOTA),
    calls: [1, 1],
    status: 429,
  },
  // Gemini CLI retries a 429 or a 503 ten times over four to five minutes: the watch ends it.
  {
    cli: 'gemini',
    fault: 429,
    kind: 'rate-limit',
    words: new RegExp(
      `^${GEMINI_RETRY('429 RESOURCE_EXHAUSTED', 'rate limit reached \\(the stub server says so\\)')}$`,
    ),
    failure: watched(
      'gemini',
      'rate-limited',
      GEMINI_RETRY('429 RESOURCE_EXHAUSTED', 'rate limit reached \\(the stub server says so\\)'),
    ),
    calls: [3, 9],
    status: 429,
  },
  {
    cli: 'gemini',
    fault: 'overload',
    kind: 'overload',
    words: new RegExp(`^${GEMINI_RETRY('503 UNAVAILABLE', 'overloaded \\(the stub server says so\\)')}$`),
    failure: watched(
      'gemini',
      'its service is overloaded',
      GEMINI_RETRY('503 UNAVAILABLE', 'overloaded \\(the stub server says so\\)'),
    ),
    calls: [3, 9],
    status: 503,
  },
  // A per-day quota is a TerminalQuotaError to the CLI: no retry, rc 173 (429 mod 256).
  {
    cli: 'gemini',
    fault: 'quota',
    kind: 'quota',
    words: new RegExp(`^${GEMINI_QUOTA}$`),
    failure: exited('gemini', 173, GEMINI_QUOTA),
    calls: [1, 1],
    status: 429,
  },
];

// The requests of the conversation (not Claude Code's probe, not Gemini's model router), with their answers.
function modelCalls(server: ModelServer): (number | string)[] {
  return server.requests.filter((r) => r.vendor !== null && r.turn !== null).map((r) => r.answer);
}

async function runDry(c: DryCase, begun: () => void): Promise<{ server: ModelServer; leaf: AgentLeafResult }> {
  const server = await startModelServer({ script: [{ text: 'never', fault: c.fault }] });
  server.waitForRequest((r) => r.vendor !== null).then(begun);
  try {
    const { env } = privateHome(c.cli, server);
    const leaf = await runAgentLeaf({
      name: 'verify-green',
      agent: plugin(c.cli),
      prompt: 'Say hello.',
      options: { role: 'verifier', cwd: makeProject(), ...(c.model === undefined ? {} : { model: c.model }) },
      stateDir: makeTempDir('leap-real-agents-state-'),
      env,
    });
    return { server, leaf };
  } catch (error) {
    await server.close();
    throw error;
  }
}

const RUN = CASES.filter((c) => CLI_NAMES.includes(c.cli));
// Half the leaves wait out the watch's 30 s while their CLI sleeps between retries: they run side by side, two
// starting at a time.
const ran = together(RUN, 2, runDry);

for (const c of RUN) {
  test(`${c.cli}${c.model === undefined ? '' : ` --model ${c.model}`}: the server's ${c.fault} ends the leaf failed and dry (${c.kind}) in the CLI's words`, async () => {
    const { server, leaf } = await ran(c);
    try {
      assert.is(leaf.failureKind, 'failed', `${leaf.status}: ${leaf.failure}`);
      assert.is(leaf.dry?.kind, c.kind, `${leaf.failure}`);
      assert.match(leaf.dry?.message ?? '', c.words);
      assert.match(leaf.failure ?? '', c.failure);
      assert.not.match(
        `${leaf.failure}\n${leaf.dry?.message}`,
        /[{}]|"type"|^\s+at /m,
        'one plain sentence: no JSON, no stack frame',
      );
      // What was asked: every model call answered with the fault, as many as the CLI makes before it (or the watch) gives up.
      const calls = modelCalls(server);
      assert.ok(
        calls.every((answer) => answer === c.status),
        `answers: ${calls.join(', ')}`,
      );
      assert.ok(
        calls.length >= c.calls[0] && calls.length <= c.calls[1],
        `${calls.length} model calls, expected ${c.calls[0]} to ${c.calls[1]}`,
      );
      assert.ok(
        server.requests.every((r) => r.answer !== 404),
        'nothing but the vendor API was asked',
      );
    } finally {
      await server.close();
    }
  });
}

test.run();
