// vitest 3 as it is, installed from npm into a cache folder: what its commands do when stdin is not a terminal,
// as in every suite run (runSuite gives the suite /dev/null). Measured, so the watch-mode rule (watch-mode.ts,
// the README) stands on what vitest does: `vitest` alone runs once here, CI or not; `vitest --watch`, `vitest watch`
// and `vitest dev` wait for file changes even with CI=true, and the run's idle limit ends them, workers and all.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeGitRepo, processesWhoseArgv, suite } from '@leap/test-utils';
import { SuiteLimitError, runSuite } from '@leap/verify';
import { runTdd } from '../src/index.js';
import { watchModeOf } from '../src/watch-mode.js';
import { commandAgents, oneStepRun, readEvents, slugSteps } from './helpers.js';

const VERSION = '3.2.7';
const CACHE = process.env.LEAP_TEST_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'leap-test');

/** node_modules holding vitest VERSION, installed into the cache first when it is not there (once; renamed into place whole). */
function vitestModules(): string {
  const dir = join(CACHE, 'runners', `vitest@${VERSION}`);
  const manifest = join(dir, 'node_modules', 'vitest', 'package.json');
  if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version === VERSION)
    return join(dir, 'node_modules');
  mkdirSync(join(CACHE, 'runners'), { recursive: true });
  const staging = mkdtempSync(`${dir}.installing-`);
  try {
    writeFileSync(join(staging, 'package.json'), '{"private": true}\n');
    execFileSync(
      'npm',
      ['install', '--prefix', staging, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `vitest@${VERSION}`],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 600_000,
      },
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return join(dir, 'node_modules');
}

const vitest = suite('vitest 3 with stdin not a terminal');
let modules = '';
vitest.before(() => {
  modules = vitestModules();
});
vitest.after.each(cleanupTempDirs);

/** A vitest project (its `test` script plain `vitest`) with issue 1, committed; node_modules linked to the cache. */
function project(): string {
  const repo = makeGitRepo({
    files: {
      '.gitignore': 'node_modules\n',
      'package.json': `${JSON.stringify({ name: 'v', private: true, type: 'module', scripts: { test: 'vitest' } })}\n`,
      'test/a.test.js': "import { expect, test } from 'vitest';\ntest('one', () => expect(1).toBe(1));\n",
      '.tdd/issues/1.md': '# Slugs\n\n## Acceptance criteria\n\n- [ ] slugs\n',
    },
  });
  symlinkSync(modules, join(repo, 'node_modules'));
  return repo;
}

/** Live processes (zombies aside) whose working folder is in `repo`: the suite's, its workers' included. */
function processesIn(repo: string): number[] {
  const inside = realpathSync(repo);
  return processesWhoseArgv(() => true).filter((pid) => {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      return cwd === inside || cwd.startsWith(`${inside}/`);
    } catch {
      return false;
    }
  });
}

function run(repo: string, testCmd: string, extra: Record<string, string> = {}): Promise<number> {
  const env = { ...process.env, VERI_TIMEOUT: '180', VERI_IDLE_TIMEOUT: '4', VERI_KILL_AFTER: '1', ...extra };
  return runSuite({ testCmd, env, stateDir: join(repo, '.tdd'), suiteLog: join(repo, '.tdd', 'suite.log') }, repo);
}

vitest('`vitest` without `run` runs once and exits, CI or not; the rule does not flag it', async () => {
  const repo = project();
  assert.is(await run(repo, 'npx vitest'), 0);
  assert.is(await run(repo, 'npx vitest', { CI: 'true' }), 0);
  assert.is(await run(repo, 'npm test'), 0);
  assert.is(watchModeOf(repo, 'npx vitest'), null);
  assert.is(watchModeOf(repo, 'npm test'), null);
  assert.equal(
    readEvents(repo)
      .filter((e) => e.event === 'suite')
      .map((e) => [e.code, e.limit]),
    [
      [0, undefined],
      [0, undefined],
      [0, undefined],
    ],
  );
});

vitest(
  '`vitest --watch`, `vitest watch` and `vitest dev` wait for changes, CI=true too: the idle limit ends them whole; the rule flags each',
  async () => {
    const repo = project();
    for (const [command, env] of [
      ['npx vitest --watch', {}],
      ['npx vitest --watch', { CI: 'true' }],
      ['npx vitest watch', {}],
      ['npx vitest dev', {}],
    ] as const) {
      const error = await run(repo, command, env).then(
        (code) => new Error(`${command} ended by itself with ${code}`),
        (e: unknown) => e,
      );
      assert.instance(error, SuiteLimitError, `${command} ${JSON.stringify(env)}`);
      assert.is((error as SuiteLimitError).limit, 'idle');
      assert.match((error as SuiteLimitError).lastLine ?? '', /press q to quit|Waiting for file changes/);
      assert.match(readFileSync(join(repo, '.tdd', 'suite.log'), 'utf8'), 'Waiting for file changes...');
      assert.ok(watchModeOf(repo, command) !== null, command);
      assert.equal(processesIn(repo), [], `nothing of ${command} is left`);
    }
  },
);

vitest(
  'leap tdd run with `npx vitest --watch`, or `npm test` whose script watches: the suite-limit bail before the baseline',
  async () => {
    const repo = project();
    const agents = commandAgents(slugSteps(['Slugs']));
    const direct = await runTdd(oneStepRun(repo, agents.file, { testCmd: 'npx vitest --watch' }, 'Slugs'));
    assert.is(direct.bail?.cause, 'suite-limit');
    assert.match(
      direct.bail?.narration ?? '',
      "Use its run form `npx vitest run`, which runs the suite once: run again with --test-cmd 'npx vitest run'.",
    );
    writeFileSync(
      join(repo, 'package.json'),
      `${JSON.stringify({ name: 'v', private: true, type: 'module', scripts: { test: 'vitest --watch' } })}\n`,
    );
    git(repo, 'commit', '-qam', 'a watching test script');
    const script = await runTdd(oneStepRun(repo, agents.file, { testCmd: 'npm test' }, 'Slugs'));
    assert.is(script.bail?.cause, 'suite-limit');
    assert.match(
      script.bail?.narration ?? '',
      'the "test" script of package.json (`vitest --watch`) runs `vitest --watch`',
    );
    assert.equal(
      readEvents(repo).filter((e) => e.event === 'suite'),
      [],
    );
  },
);

vitest.run();
