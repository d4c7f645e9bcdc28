// leap-jury with the real CLIs as jurors (each family seated once), through their plugins, against one scripted
// model server per CLI: the jury's verdict is the jurors' answers, each review event is its juror's, and each
// juror's usage event is exactly what its server counted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import {
  binPath,
  cleanupTempDirs,
  git,
  runBin,
  startModelServer,
  type ModelServer,
  type ModelTurn,
} from '@leap/test-utils';
import { CLI_NAMES, cleanupHomes, installedCli, privateHome, type CliName } from './clis.js';
import { makeProject, readEvents } from './fixture-repo.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

const LEAP_JURY = binPath('verify', 'leap-jury');
const FAMILY: Record<CliName, string> = { claude: 'anthropic', codex: 'openai', gemini: 'google' };

// One HOME for every juror, each CLI pointed at its own server.
async function jurors(
  verdicts: Record<string, ModelTurn[]>,
): Promise<{ servers: Map<CliName, ModelServer>; env: Record<string, string> }> {
  const servers = new Map<CliName, ModelServer>();
  let env: Record<string, string> = {};
  let home: string | undefined;
  for (const cli of CLI_NAMES) {
    const server = await startModelServer({ script: verdicts[cli] ?? [] });
    servers.set(cli, server);
    const made = privateHome(cli, server, { codexLogin: true, home });
    home ??= made.home;
    env = { ...env, ...made.env };
  }
  env.HOME = home as string;
  env.PATH = `${CLI_NAMES.map((cli) => installedCli(cli)).join(':')}:${process.env.PATH ?? ''}`;
  return { servers, env };
}

const pass = (cli: string): ModelTurn[] => [
  {
    structured: {
      verdict: 'pass',
      lens: 'defect',
      findings: [`[info] add.js:2 add returns a + b (${cli})`],
      reasoning: `checked add.js against the criteria (${cli})`,
    },
  },
];
const refuse = (cli: string): ModelTurn[] => [
  {
    structured: {
      verdict: 'refuse',
      lens: 'defect',
      findings: [`[blocker] add.js:2 add ignores overflow (${cli})`],
      reasoning: `refused by ${cli}`,
    },
  },
];

async function convene(env: Record<string, string>, repo: string) {
  return runBin(
    LEAP_JURY,
    [
      '--builder-family',
      'mistral',
      '--reviewers',
      CLI_NAMES.join(','),
      '--intent',
      'add(a, b) returns the sum',
      '--criteria',
      'add sums two numbers',
      '--json',
      'add.js',
    ],
    {
      cwd: repo,
      env,
    },
  );
}

if (CLI_NAMES.length >= 2) {
  test(`leap-jury with ${CLI_NAMES.join(', ')} as jurors: a unanimous pass is 1, each review and usage event is its juror's and its server's count`, async () => {
    const repo = makeProject();
    const { servers, env } = await jurors(Object.fromEntries(CLI_NAMES.map((cli) => [cli, pass(cli)])));
    try {
      const run = await convene(env, repo);
      const events = readEvents(join(repo, '.tdd'));
      assert.is(run.code, 0, `${run.stdout}\n${run.stderr.slice(-3000)}`);
      assert.is((JSON.parse(run.stdout) as { value: number }).value, 1);
      const reviews = events.filter((e) => e.event === 'review' && e.reviewer !== null);
      assert.equal(
        reviews.map((e) => [e.reviewer, e.family, e.verdict, e.value]).sort(),
        CLI_NAMES.map((cli) => [cli, FAMILY[cli], 'pass', 1]).sort(),
      );
      for (const cli of CLI_NAMES) {
        const review = reviews.find((e) => e.reviewer === cli);
        assert.equal(review?.findings, [{ severity: 'info', message: `add.js:2 add returns a + b (${cli})` }], cli);
        const usage = events.filter((e) => e.event === 'usage' && e.agent === cli);
        const counted = servers.get(cli)!.usage();
        assert.ok(counted.answers >= 1, `${cli} was asked`);
        assert.equal(
          usage.map((e) => [e.family, e.input_tokens, e.output_tokens]),
          [[FAMILY[cli], counted.input, counted.output]],
          cli,
        );
        assert.match(String(usage[0]!.leaf), new RegExp(`^review-[0-9a-f]{8}-${FAMILY[cli]}$`));
      }
      assert.is(
        git(repo, 'status', '--porcelain', '--untracked-files=all').replace(/^\?\? \.tdd\/\n?/m, ''),
        '',
        'the jury changed nothing',
      );
    } finally {
      for (const server of servers.values()) await server.close();
    }
  });

  test('leap-jury: one real juror refusing makes the jury -1 (exit 1), its blocker in its review event', async () => {
    const repo = makeProject();
    const [first, ...rest] = CLI_NAMES;
    const { servers, env } = await jurors(
      Object.fromEntries([[first, refuse(first!)], ...rest.map((cli) => [cli, pass(cli)])]),
    );
    try {
      const run = await convene(env, repo);
      assert.is(run.code, 1, `${run.stdout}\n${run.stderr.slice(-3000)}`);
      assert.is((JSON.parse(run.stdout) as { value: number }).value, -1);
      const review = readEvents(join(repo, '.tdd')).find((e) => e.event === 'review' && e.reviewer === first);
      assert.equal(
        [review?.verdict, review?.value, review?.findings],
        ['refuse', -1, [{ severity: 'blocker', message: `add.js:2 add ignores overflow (${first})` }]],
      );
    } finally {
      for (const server of servers.values()) await server.close();
    }
  });
}

test.run();
