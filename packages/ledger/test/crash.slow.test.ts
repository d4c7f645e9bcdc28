// Crash safety: a tick SIGKILLed at any moment leaves the commit with both the work and the tick, or neither;
// the next ledger command restores agreement between the ledger file, the index and HEAD, and says so.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, waitFor, type RunResult } from '@leap/test-utils';
import {
  BIN,
  cleanEnv,
  fileAt,
  head,
  installHook,
  ledger,
  leftovers,
  makeLedgerRepo,
  readTickEvents,
  snapshot,
  stage,
  type RepoState,
  type StepSpec,
} from './helpers.js';

const LEDGER = '.tdd/issue-7.md';
const TITLE = 'Validate the $(config) `now`';

interface Scenario {
  command: 'tick' | 'clear-refactor-pending';
  steps: StepSpec[];
  /** `list` after the command landed. */
  after: string;
  /** `list` when it did not. */
  before: string;
}

const TICK: Scenario = {
  command: 'tick',
  steps: [
    ['done', 'Parse'],
    ['todo', TITLE, 2],
    ['todo', 'Report'],
  ],
  before: `done\tParse\ntodo\t${TITLE}\ntodo\tReport\n`,
  after: `done\tParse\nrefactor-pending\t${TITLE}\ntodo\tReport\n`,
};
const CLEAR: Scenario = {
  command: 'clear-refactor-pending',
  steps: [
    ['done', 'Parse'],
    ['refactor-pending', TITLE, 2],
    ['todo', 'Report'],
  ],
  before: `done\tParse\nrefactor-pending\t${TITLE}\ntodo\tReport\n`,
  after: `done\tParse\ndone\t${TITLE}\ntodo\tReport\n`,
};

// A repository with the step's work staged, and what it looked like before the command.
function prepare(scenario: Scenario): { dir: string; before: RepoState } {
  const { dir } = makeLedgerRepo(scenario.steps);
  stage(dir, 'src/work.js', "the step's work\n");
  return { dir, before: snapshot(dir) };
}

function commandArgs(scenario: Scenario): string[] {
  return [scenario.command, '--issue', '7', '--step', TITLE];
}

/** The invariant after recovery; returns which way the transaction went. */
async function assertAgreement(
  dir: string,
  scenario: Scenario,
  before: RepoState,
  what: string,
): Promise<'landed' | 'undone'> {
  assert.equal(leftovers(dir), [], `${what}: nothing of the transaction is left`);
  const now = snapshot(dir);
  const list = (await ledger(dir, ['list', '--issue', '7'])).stdout;
  if (now.head === before.head) {
    assert.equal(now, before, `${what}: undone means ledger, index and HEAD as before`);
    assert.is(list, scenario.before, what);
    assert.equal(
      (await readTickEvents(dir)).filter((e) => e.action === scenario.command),
      [],
      `${what}: no ${scenario.command} event`,
    );
    return 'undone';
  }
  assert.is(git(dir, 'rev-parse', 'HEAD^').trim(), before.head, `${what}: one commit on top of the old HEAD`);
  assert.is(
    git(dir, 'show', '--format=', '--name-only', 'HEAD'),
    '.tdd/issue-7.md\nsrc/work.js\n',
    `${what}: the commit holds the work and the ledger`,
  );
  assert.is(now.ledger, fileAt(dir, 'HEAD', LEDGER), `${what}: the ledger file agrees with HEAD`);
  assert.is(now.indexTree, git(dir, 'rev-parse', 'HEAD^{tree}').trim(), `${what}: the index agrees with HEAD`);
  assert.is(list, scenario.after, what);
  const events = (await readTickEvents(dir)).filter((e) => e.action === scenario.command);
  assert.equal(
    events.map((e) => e.commit),
    [now.head],
    `${what}: exactly one ${scenario.command} event, with the commit`,
  );
  return 'landed';
}

// Run the next ledger command (a query on bytes read before it ran, as `cat issue-7.md | leap-ledger` does).
async function nextCommand(dir: string, _scenario: Scenario, env: Record<string, string> = {}): Promise<RunResult> {
  const piped = readFileSync(join(dir, LEDGER));
  const result = await ledger(dir, ['list'], { input: piped, env });
  return result;
}

async function killEveryPoint(scenario: Scenario): Promise<void> {
  const seen = new Set<string>();
  for (let k = 1; k < 100; k++) {
    const { dir, before } = prepare(scenario);
    const run = await ledger(dir, commandArgs(scenario), {
      env: { LEAP_LEDGER_KILL_AT: String(k), LEAP_LEDGER_KILL_TRACE: '1' },
    });
    if (run.signal === 'SIGKILL')
      assert.match(run.stderr, new RegExp(`kill point ${k}: [A-Za-z]`), `k=${k}: the trace names the point`);
    if (run.signal !== 'SIGKILL') {
      assert.is(run.code, 0, run.stderr);
      assert.ok(k > 10, `the transaction has many kill points (got ${k - 1})`);
      await assertAgreement(dir, scenario, before, `after all ${k - 1} kill points`);
      assert.equal([...seen].sort(), ['landed', 'undone'], 'both outcomes occur');
      return;
    }
    const pending = existsSync(join(dir, '.tdd', 'ledger-transaction.json'));
    const next = await nextCommand(dir, scenario);
    assert.is(next.code, 0, `k=${k}: ${next.stderr}`);
    if (pending) assert.match(next.stderr, /^leap-ledger: recovered an interrupted /m, `k=${k}: recovery says so`);
    const outcome = await assertAgreement(dir, scenario, before, `${scenario.command} killed at point ${k}`);
    assert.is(
      next.stdout,
      outcome === 'landed' ? scenario.after : scenario.before,
      `k=${k}: the piped query answers as git says`,
    );
    seen.add(outcome);
    cleanupTempDirs();
  }
  assert.unreachable('the transaction never completed');
}

// ---
const killSuite = suite('crash safety: SIGKILL at every kill point');
killSuite.after.each(cleanupTempDirs);

killSuite('tick', () => killEveryPoint(TICK));
killSuite('clear-refactor-pending', () => killEveryPoint(CLEAR));

killSuite('recovery itself killed at each of its points, then run again', async () => {
  // One point before the commit (undone), one after it (landed).
  for (const k of ['ledger written', 'committed']) {
    for (let j = 1; j < 50; j++) {
      const { dir, before } = prepare(TICK);
      const run = await ledger(dir, commandArgs(TICK), { env: { LEAP_LEDGER_KILL_AT: k } });
      assert.is(run.signal, 'SIGKILL');
      const recovery = await ledger(dir, ['current', '--issue', '7'], { env: { LEAP_LEDGER_KILL_AT: String(j) } });
      const done = recovery.signal !== 'SIGKILL';
      const final = await ledger(dir, ['list', '--issue', '7']);
      assert.is(final.code, 0, final.stderr);
      await assertAgreement(dir, TICK, before, `tick killed at ${k}, recovery killed at ${j}`);
      cleanupTempDirs();
      if (done) break;
    }
  }
});

killSuite.run();

// ---
const externalSuite = suite('crash safety: SIGKILL from outside after a delay');
externalSuite.after.each(cleanupTempDirs);

function spawnTick(dir: string): { pid: number; done: Promise<NodeJS.Signals | number | null> } {
  const child = spawn(process.execPath, [BIN, ...commandArgs(TICK)], { cwd: dir, env: cleanEnv(), stdio: 'ignore' });
  const done = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code)),
  );
  return { pid: child.pid as number, done };
}

externalSuite('ticks killed after delays spread over a whole tick (git children may be mid-run)', async () => {
  const probe = prepare(TICK);
  const started = Date.now();
  assert.is(await spawnTick(probe.dir).done, 0);
  const span = Date.now() - started;
  const outcomes: string[] = [];
  for (let i = 0; i <= 16; i++) {
    const delay = Math.round((span * 1.1 * i) / 16);
    const { dir, before } = prepare(TICK);
    const child = spawnTick(dir);
    await new Promise((r) => setTimeout(r, delay));
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {
      // It finished first: the last delays run past the end of a tick on purpose.
    }
    await child.done;
    const next = await nextCommand(dir, TICK);
    assert.is(next.code, 0, next.stderr);
    outcomes.push(await assertAgreement(dir, TICK, before, `killed after ${delay} ms`));
    cleanupTempDirs();
  }
  assert.ok(outcomes.includes('landed'), outcomes.join(' '));
});

externalSuite(
  'a pre-commit hook still running after the kill: recovery waits for it and the commit git finishes',
  async () => {
    const { dir, before } = prepare(TICK);
    installHook(
      dir,
      'pre-commit',
      '#!/bin/sh\ntouch "$PWD/hook-started"\nsleep 1\ntouch "$PWD/hook-finished"\nexit 0\n',
    );
    const child = spawnTick(dir);
    assert.ok(await waitFor(() => existsSync(join(dir, 'hook-started')), 20_000));
    process.kill(child.pid, 'SIGKILL');
    await child.done;
    const next = await nextCommand(dir, TICK);
    assert.ok(existsSync(join(dir, 'hook-finished')), 'recovery waited for the orphaned hook');
    assert.match(
      next.stderr,
      /recovered an interrupted tick of .*: its commit [0-9a-f]{40} had landed, so it was finished/,
    );
    assert.is(await assertAgreement(dir, TICK, before, 'hook orphan'), 'landed');
    assert.is(next.stdout, TICK.after);
  },
);

externalSuite('git still updating HEAD after the kill: recovery waits, sees HEAD moved, and finishes', async () => {
  const { dir, before } = prepare(TICK);
  installHook(
    dir,
    'reference-transaction',
    '#!/bin/sh\ncat > /dev/null\nif [ "$1" = prepared ]; then touch "$PWD/ref-prepared"; sleep 1; fi\n',
  );
  const child = spawnTick(dir);
  assert.ok(await waitFor(() => existsSync(join(dir, 'ref-prepared')), 20_000));
  process.kill(child.pid, 'SIGKILL');
  await child.done;
  assert.is(head(dir), before.head, 'HEAD has not moved yet when the tick dies');
  const next = await nextCommand(dir, TICK);
  assert.match(
    next.stderr,
    /recovered an interrupted tick of .*: its commit [0-9a-f]{40} had landed, so it was finished/,
  );
  assert.is(await assertAgreement(dir, TICK, before, 'update-ref orphan'), 'landed');
  assert.is(next.stdout, TICK.after);
});

externalSuite('recovery gives up with exit 3 while the orphans outlive its wait, and succeeds later', async () => {
  const { dir, before } = prepare(TICK);
  installHook(dir, 'pre-commit', '#!/bin/sh\ntouch "$PWD/hook-started"\nsleep 2\nexit 1\n');
  const child = spawnTick(dir);
  assert.ok(await waitFor(() => existsSync(join(dir, 'hook-started')), 20_000));
  process.kill(child.pid, 'SIGKILL');
  await child.done;
  const busy = await ledger(dir, ['tick', '--issue', '7', '--step', TITLE], {
    env: { LEAP_LEDGER_RECOVERY_WAIT_MS: '100' },
  });
  assert.is(busy.code, 3);
  assert.match(busy.stderr, /still has running processes \(pid [0-9]+/);
  const later = await ledger(dir, ['next-unchecked', '--issue', '7']);
  assert.equal([later.code, later.stdout], [0, `${TITLE}\n`]);
  assert.is(await assertAgreement(dir, TICK, before, 'after the wait'), 'undone');
});

externalSuite(
  'a lock left empty by a taker killed between its create and its write: the next command takes it',
  async () => {
    const { dir } = prepare(TICK);
    writeFileSync(join(dir, '.tdd', 'ledger.lock'), '');
    const ticked = await ledger(dir, ['tick', '--issue', '7', '--step', TITLE]);
    assert.is(ticked.code, 0, ticked.stderr);
    const list = await ledger(dir, ['list', '--issue', '7']);
    assert.is(list.stdout, TICK.after);
  },
);

externalSuite.run();
