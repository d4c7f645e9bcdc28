// `leap tdd run|status|stop` in process (tddMain) and through the umbrella bin.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, repoRoot, runCommand } from '@leap/test-utils';
import type { SubcommandIo } from '@leap/core';
import { tddMain } from '../src/tdd-cli.js';
import { TEST_CMD, cleanEnv, commandAgents, makeProject, planFile, slugSteps } from './helpers.js';

const LEAP = join(repoRoot, 'packages/cli/dist/bin/leap.cjs');

function io(cwd: string, env = cleanEnv()): SubcommandIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd, env, isTTY: false };
}

async function fails(argv: string[], cwd: string, pattern: RegExp, code = 2): Promise<void> {
  try {
    await tddMain(argv, io(cwd));
    assert.unreachable(`accepted ${argv.join(' ')}`);
  } catch (error) {
    assert.match((error as Error).message, pattern);
    assert.is((error as { exitCode?: number }).exitCode, code);
  }
}

const cli = suite('tddMain');
cli.after.each(cleanupTempDirs);

cli('help for every subcommand', async () => {
  for (const argv of [['--help'], ['run', '--help'], ['status', '--help'], ['stop', '--help']]) {
    const x = io('/');
    assert.is(await tddMain(argv, x), 0);
    assert.match(x.out.join(''), /Usage: leap tdd/);
    assert.match(x.out.join(''), /Exit codes/);
  }
});

cli('bad input: no subcommand, an unknown one, an unknown option, a bad mode, bad numbers', async () => {
  const repo = makeProject();
  await fails([], repo, /expected an action\nUsage: leap tdd ACTION/);
  await fails(['walk'], repo, /unknown action "walk": expected one of run, status, stop/);
  await fails(['run', '--issue', '1', '--bogus'], repo, /Unknown option '--bogus'/);
  await fails(['run'], repo, /^expected --issue N\nUsage: leap tdd run --issue N/);
  await fails(['run', '--issue', 'x'], repo, /Expected --issue to be a positive integer, got "x"/);
  await fails(
    ['run', '--issue', '1', '--revisions', 'two'],
    repo,
    /Expected --revisions to be a non-negative integer, got "two"/,
  );
  await fails(
    ['run', '--issue', '1', '--tracker', 'jira'],
    repo,
    /Expected --tracker to be local or github, got "jira"/,
  );
  // One list of modes, whatever is wrong: no mode, or one that is not a mode.
  await fails(
    ['stop', 'soon'],
    repo,
    /^expected one MODE, one of at-ledger, at-leaf, now, clear; got "soon"\nUsage: leap tdd stop MODE$/,
  );
  await fails(['stop'], repo, /^expected one MODE, one of at-ledger, at-leaf, now, clear; got 0 arguments\n/);
  await fails(['stats'], repo, /^unknown action "stats" \(did you mean "status"\?\)/);
  await fails(
    ['run', '--issue', '1', '--devloper', 'x'],
    repo,
    /^Unknown option '--devloper' \(did you mean "--developer"\?\)/,
  );
  await fails(['status', '--issue', '-3'], repo, /Expected --issue to be a positive integer/);
  assert.is(git(repo, 'status', '--porcelain'), '');
});

cli('run, then status and stop', async () => {
  const repo = makeProject(['one']);
  const agents = commandAgents(slugSteps(['Only step']));
  const x = io(repo);
  const code = await tddMain(
    [
      'run',
      '--issue',
      '1',
      '--test-cmd',
      TEST_CMD,
      '--plan',
      planFile(['Only step']),
      '--developer',
      'dev',
      '--verifier',
      'ver',
      '--agents',
      agents.file,
      '--json',
    ],
    x,
  );
  assert.is(code, 0, x.err.join(''));
  const result = JSON.parse(x.out.join('')) as { outcome: string; commits: { subject: string }[] };
  assert.is(result.outcome, 'done');
  assert.is(result.commits.length, 4);
  assert.match(x.err.join(''), 'done: 1 step');
  const status = io(repo);
  assert.is(await tddMain(['status', '--issue', '1', '--json'], status), 0);
  const s = JSON.parse(status.out.join('')) as {
    issue: number;
    done: number;
    current: unknown;
    conductor: unknown;
    lastVerdict: { phase: string };
  };
  assert.equal([s.issue, s.done, s.current, s.conductor, s.lastVerdict.phase], [1, 1, null, null, 'refactor']);
  const human = io(repo);
  await tddMain(['status'], human);
  assert.match(human.out.join(''), 'issue 1: done, 1/1 steps\n  conductor: not running\n  last verdict: refactor PASS');
  const stop = io(repo);
  assert.is(await tddMain(['stop', 'at-leaf'], stop), 0);
  assert.is(readFileSync(join(repo, '.tdd/stop'), 'utf8'), 'at-leaf\n');
  const pending = io(repo);
  await tddMain(['status'], pending);
  assert.match(pending.out.join(''), 'stop pending: at-leaf');
  assert.is(await tddMain(['stop', 'clear'], io(repo)), 0);
  assert.is(existsSync(join(repo, '.tdd/stop')), false);
  const none = io(makeProject());
  await tddMain(['status'], none);
  assert.match(none.out.join(''), 'no runs');
});

cli('the umbrella bin: help, a bailed run with its last line and exit 1, a stopped one with exit 3', async () => {
  const help = await runCommand(process.execPath, [LEAP, 'tdd', 'run', '--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, 'Exit codes: 0 done');
  const repo = makeProject();
  const agents = commandAgents(slugSteps(['A step']));
  const env = cleanEnv();
  const bad = await runCommand(process.execPath, [LEAP, 'tdd', 'run', '--issue', '9'], { cwd: repo, env });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /^leap: no issue 9/);
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'x');
  writeFileSync(join(repo, 'dirty.txt'), 'x');
  const args = [
    LEAP,
    'tdd',
    'run',
    '--issue',
    '1',
    '--test-cmd',
    TEST_CMD,
    '--plan',
    planFile(['A step']),
    '--developer',
    'dev',
    '--verifier',
    'ver',
    '--agents',
    agents.file,
  ];
  const bailed = await runCommand(process.execPath, args, { cwd: repo, env });
  assert.is(bailed.code, 1);
  assert.is(bailed.stdout.trim().split('\n').at(-1), 'bail: dirty-tree (process)');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'clean');
  mkdirSync(join(repo, '.tdd'), { recursive: true });
  writeFileSync(join(repo, '.tdd/stop'), 'at-leaf\n');
  const stopped = await runCommand(process.execPath, args, { cwd: repo, env });
  assert.is(stopped.code, 3, stopped.stdout + stopped.stderr);
  assert.match(stopped.stdout.trim().split('\n').at(-1) ?? '', /^stopped: at the start of step 1 "A step"/);
  const status = await runCommand(process.execPath, [LEAP, 'tdd', 'status', '--issue', '1'], { cwd: repo, env });
  assert.is(status.code, 0);
  assert.match(status.stdout, 'issue 1: step 1/1 "A step"; 0 done');
});

cli.run();
