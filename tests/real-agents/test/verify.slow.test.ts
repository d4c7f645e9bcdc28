// leap-verify with each real CLI as the blind verifier: the agent reads the source through its own tool,
// answers a verdict, and the run's end, the verdict and the usage event agree with what the server saw.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFileIfExists } from '@leap/core';
import { binPath, cleanupTempDirs, runBin, startModelServer } from '@leap/test-utils';
import { CLI_NAMES, cleanupHomes, privateHome, unknownRequests } from './clis.js';
import { SOURCE_MARK, TEST_CMD, makeProject, readEvents, sentBack, specFile } from './fixture-repo.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

const LEAP_VERIFY = binPath('verify', 'leap-verify');

for (const cli of CLI_NAMES) {
  test(`leap-verify green with ${cli} as the verifier: it reads the source, its verdict is the run's, its usage is the server's count`, async () => {
    const repo = makeProject();
    const server = await startModelServer({
      script: [
        { read: join(repo, 'add.js') },
        { structured: { verdict: 'PASS', reason: `add sums its arguments (${cli})` } },
      ],
    });
    try {
      const { env } = privateHome(cli, server, { codexLogin: true });
      const run = await runBin(
        LEAP_VERIFY,
        ['--step', 'add sums two numbers', 'green', '--spec', specFile(), '--agent', cli],
        {
          cwd: repo,
          env: { ...env, VERI_TEST_CMD: TEST_CMD },
        },
      );
      assert.is(
        run.code,
        0,
        `${run.stdout}\n${run.stderr.slice(-3000)}\n${readFileIfExists(join(repo, '.tdd', 'verify-green.out'))?.slice(-3000)}`,
      );
      assert.match(run.stdout, `add sums its arguments (${cli})`);
      assert.ok(sentBack(server, SOURCE_MARK), 'the file the verifier read went back to the model: its read tool ran');
      assert.equal(unknownRequests(server), []);

      const events = readEvents(join(repo, '.tdd'));
      const exit = events.find((e) => e.event === 'exit' && e.leaf === 'verify-green');
      assert.is(exit?.status, 'exited');
      assert.is(exit?.code, 0);
      const verdict = events.find((e) => e.event === 'verdict');
      assert.equal([verdict?.phase, verdict?.verdict, verdict?.agent], ['green', 'PASS', cli]);
      const usage = events.filter((e) => e.event === 'usage');
      assert.is(usage.length, 1);
      const counted = server.usage();
      assert.ok(counted.answers >= 2, 'two turns at least were answered');
      assert.equal(
        [usage[0]!.leaf, usage[0]!.agent, usage[0]!.input_tokens, usage[0]!.output_tokens],
        ['verify-green', cli, counted.input, counted.output],
      );
      if (cli === 'claude')
        assert.ok(
          typeof usage[0]!.cost_usd === 'number' && usage[0]!.cost_usd > 0,
          'Claude Code prices its own tokens',
        );
      else assert.is(usage[0]!.cost_usd, null, `${cli} reports no cost`);
      // Claude and Gemini name the model they used; Codex's events name none (the plugin records a --model it passed).
      if (cli === 'codex') assert.is(usage[0]!.model, null);
      // (Claude Code adds its context window to the name: `claude-opus-4-8[1m]`.)
      else
        assert.ok(
          String(usage[0]!.model).startsWith(
            server.requests
              .filter((r) => r.turn !== null)
              .map((r) => (cli === 'claude' ? (r.body as { model: string }).model : /models\/([^:]+):/.exec(r.url)![1]))
              .at(-1)!,
          ),
          String(usage[0]!.model),
        );
      const out = readFileSync(join(repo, '.tdd', 'verify-green.out'), 'utf8');
      if (cli === 'claude') {
        // The verdict schema (which declares draft 2020-12) reached the CLI as a schema it accepts: it offered
        // the StructuredOutput tool, and the verdict came back as `structured_output`, not parsed from text.
        const offered = server.requests
          .filter((r) => r.turn !== null)
          .map((r) => ((r.body as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name));
        assert.ok(
          offered.every((names) => names.includes('StructuredOutput')),
          'every turn offered StructuredOutput',
        );
        const result = JSON.parse(out.trim().split('\n').at(-1)!) as { structured_output?: unknown };
        assert.equal(result.structured_output, { verdict: 'PASS', reason: `add sums its arguments (${cli})` });
      }
    } finally {
      await server.close();
    }
  });
}

test.run();
