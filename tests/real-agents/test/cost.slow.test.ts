// Cost from the real CLIs' outputs (issue 21 section 4): Claude Code prices its own tokens; Codex and Gemini report
// none, so an agents-file entry's `usd_per_million_tokens` gives the cost, computed from the tokens the CLI
// reported (which are the server's count) and marked `cost_estimated`. Through leap-verify, as a verifier.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { binPath, cleanupTempDirs, makeTempDir, runBin, startModelServer } from '@leap/test-utils';
import { CLI_NAMES, cleanupHomes, privateHome } from './clis.js';
import { TEST_CMD, makeProject, readEvents, specFile } from './fixture-repo.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

const LEAP_VERIFY = binPath('verify', 'leap-verify');
const PRICES = { input: 1.25, output: 10 };

function agentsFile(entries: Record<string, unknown>): string {
  const file = join(makeTempDir('leap-real-cost-'), 'agents.json');
  writeFileSync(file, JSON.stringify({ agents: entries }));
  return file;
}

for (const cli of CLI_NAMES.filter((c) => c !== 'claude')) {
  test(`${cli} with prices in its agents-file entry: the usage event's cost is the server's tokens at those prices, marked estimated`, async () => {
    const repo = makeProject();
    const server = await startModelServer({
      script: [{ read: join(repo, 'add.js') }, { structured: { verdict: 'PASS', reason: 'priced' } }],
    });
    try {
      const { env } = privateHome(cli, server, { codexLogin: true });
      const agents = agentsFile({ priced: { plugin: cli, usd_per_million_tokens: PRICES } });
      const run = await runBin(
        LEAP_VERIFY,
        ['--step', 'add sums two numbers', 'green', '--spec', specFile(), '--agent', 'priced'],
        {
          cwd: repo,
          env: { ...env, VERI_AGENTS: agents, VERI_TEST_CMD: TEST_CMD },
        },
      );
      assert.is(run.code, 0, `${run.stdout}\n${run.stderr.slice(-3000)}`);
      const usage = readEvents(join(repo, '.tdd')).filter((e) => e.event === 'usage');
      assert.is(usage.length, 1);
      const counted = server.usage();
      assert.equal(
        [usage[0]!.agent, usage[0]!.input_tokens, usage[0]!.output_tokens],
        ['priced', counted.input, counted.output],
      );
      assert.is(usage[0]!.cost_usd, (counted.input * PRICES.input + counted.output * PRICES.output) / 1_000_000);
      assert.is(usage[0]!.cost_estimated, true);
    } finally {
      await server.close();
    }
  });
}

if (CLI_NAMES.includes('claude')) {
  test("claude's cost is its own, never estimated; an entry that prices it is refused, naming why", async () => {
    const repo = makeProject();
    const server = await startModelServer({ script: [{ structured: { verdict: 'PASS', reason: 'its own cost' } }] });
    try {
      const { env } = privateHome('claude', server);
      const run = await runBin(
        LEAP_VERIFY,
        ['--step', 'add sums two numbers', 'green', '--spec', specFile(), '--agent', 'claude'],
        { cwd: repo, env: { ...env, VERI_TEST_CMD: TEST_CMD } },
      );
      assert.is(run.code, 0, run.stderr.slice(-2000));
      const usage = readEvents(join(repo, '.tdd')).filter((e) => e.event === 'usage');
      assert.ok(typeof usage[0]!.cost_usd === 'number' && usage[0]!.cost_usd > 0);
      assert.is(usage[0]!.cost_estimated, undefined);
      const refused = await runBin(
        LEAP_VERIFY,
        ['--step', 'add sums two numbers', 'green', '--spec', specFile(), '--agent', 'priced'],
        {
          cwd: repo,
          env: {
            ...env,
            VERI_AGENTS: agentsFile({ priced: { plugin: 'claude', usd_per_million_tokens: PRICES } }),
            VERI_TEST_CMD: TEST_CMD,
          },
        },
      );
      assert.is(refused.code, 2, refused.stderr);
      assert.match(
        refused.stderr,
        /agent "priced": "usd_per_million_tokens" is for codex and gemini, which report no cost; claude reports its own or none/,
      );
    } finally {
      await server.close();
    }
  });
}

test.run();
