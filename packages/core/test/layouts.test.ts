import { appendFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { LEAP_DIR, RECORD_ID, readUsage, ROUND_RECORD, slicePaths, statePaths, usageOf } from '../src/index.js';

const layouts = suite('one owner for each layout on disk');
layouts.after(cleanupTempDirs);

layouts("a slice's records and the conductor's run files have one set of names", () => {
  const p = slicePaths('/r', 'split');
  assert.is(p.leap, join('/r', LEAP_DIR));
  assert.is(p.run, '/r/.leap/split/run.json');
  assert.is(p.record, '/r/.leap/split/record.json');
  assert.is(p.round('a', 3), '/r/.leap/split/a/round-3.json');
  assert.is(p.result('a'), '/r/.leap/split/a/result.json');
  // Ball worktrees lie outside the repository, in the user's state folder (XDG_STATE_HOME's), one folder per repository.
  const xdg = process.env.XDG_STATE_HOME;
  try {
    process.env.XDG_STATE_HOME = '/c';
    assert.match(slicePaths('/r', 'split').worktree('a'), /^\/c\/leap\/worktrees\/r-[0-9a-f]{16}\/split\/a$/);
    delete process.env.XDG_STATE_HOME;
    assert.match(
      slicePaths('/r', 'split').worktree('a'),
      new RegExp(`^${join(homedir(), '.local', 'state', 'leap', 'worktrees')}/r-[0-9a-f]{16}/split/a$`),
    );
    assert.not.equal(slicePaths('/s/r', 'split').worktrees, slicePaths('/r', 'split').worktrees);
  } finally {
    if (xdg === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = xdg;
  }
  assert.is(p.aggregate, '/r/.leap/split/spine/aggregate.json');
  assert.is(ROUND_RECORD.exec('round-12.json')?.[1], '12');
  assert.is(ROUND_RECORD.test('round-0.json'), false);
  assert.is(RECORD_ID.test('.worktrees'), false);
  const s = statePaths('/r/.tdd');
  assert.is(s.runJournal(7), '/r/.tdd/issue-7-run.json');
  assert.is(s.conductorLock(7), '/r/.tdd/issue-7-conductor.pid');
});

layouts('usage is read once: checked figures, torn and foreign lines skipped, from an offset', () => {
  const log = join(makeTempDir(), 'events.jsonl');
  assert.equal(readUsage(log), []);
  const good = {
    event: 'usage',
    ts: '2026-12-01T00:00:00.000Z',
    leaf: 'develop-red',
    agent: 'claude',
    family: 'anthropic',
    model: 'm',
    input_tokens: 10,
    output_tokens: 2,
    cost_usd: 0.5,
    issue: 7,
    step: 'a `$(x)` step',
  };
  writeFileSync(
    log,
    `${JSON.stringify(good)}\n{"event":"usage","leaf":\n${JSON.stringify({ event: 'launch', leaf: 'usage' })}\n`,
  );
  const offset = Buffer.byteLength(`${JSON.stringify(good)}\n`);
  appendFileSync(
    log,
    `${JSON.stringify({ event: 'usage', leaf: 'verify-red', cost_usd: -1, input_tokens: 'many', slice: 's', ball: 'b' })}\n`,
  );
  const all = readUsage(log);
  assert.is(all.length, 2);
  assert.equal(all[0], {
    leaf: 'develop-red',
    ts: good.ts,
    agent: 'claude',
    family: 'anthropic',
    model: 'm',
    input_tokens: 10,
    output_tokens: 2,
    cost_usd: 0.5,
    cost_estimated: false,
    issue: 7,
    step: good.step,
    slice: null,
    ball: null,
  });
  assert.equal(
    [all[1]?.cost_usd, all[1]?.input_tokens, all[1]?.slice, all[1]?.ball, all[1]?.issue],
    [null, null, 's', 'b', null],
  );
  assert.equal(
    readUsage(log, offset).map((u) => u.leaf),
    ['verify-red'],
  );
  assert.is(usageOf({ event: 'usage', leaf: '' }), null);
  assert.is(
    usageOf({ event: 'usage', leaf: 'x', cost_usd: 0.1, cost_estimated: true })?.cost_estimated,
    true,
    'priced from an agents file',
  );
  assert.is(
    usageOf({ event: 'usage', leaf: 'x', cost_usd: null, cost_estimated: true })?.cost_estimated,
    false,
    'no cost, nothing estimated',
  );
  assert.is(usageOf({ event: 'exit', leaf: 'x' }), null);
});

layouts.run();
