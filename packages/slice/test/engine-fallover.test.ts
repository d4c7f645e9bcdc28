import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git } from '@leap/test-utils';
import {
  ball,
  claudeEntry,
  contentProof,
  eventsOf,
  fixtures,
  launches,
  launchesOf,
  leapSlice,
  readLeap,
  setupRepo,
  showFile,
  writeAgents,
  writeSlice,
} from './engine-helpers.js';

// The builder list and its fall-over (issue 21 §3): a builder whose vendor runs dry hands the round to the next
// builder of the list, from the same commit, without spending a round. The builders that run dry are `claude`
// plugin entries whose `bin` is fixtures/claude.mjs, a stand-in answering as Claude Code's stream-json does
// against a 429 or a 529 (the claude plugin's ranDry reads it); the builder that takes over is the command
// agent `b` (family fb) of engine-helpers.
// The fall-over is read by the claude plugin's ranDry (plugins/agent-claude), from the stand-in's output shaped as
// the recorded runs of plugins/agent-claude/test/fixtures/recorded/dry-* are.

const BASE = { 'src/x.txt': 'old x\n', 'src/y.txt': 'old y\n', 'README.md': '# repo\n' };

/** A reviewer of family anthropic (the claude builder's): a command agent as engine-helpers' are. */
function anthropicReviewer(dir: string) {
  return {
    plugin: 'command',
    family: 'anthropic',
    command: [process.execPath, join(fixtures, 'reviewer.mjs')],
    env: { REVIEW_MODE: 'pass', REVIEWER_NAME: 'ra', PROMPT_DIR: join(dir, 'prompts') },
    paths: { write: [join(dir, 'prompts')] },
  };
}

type Round = {
  round: number;
  builder: { agent: string; family: string; leaf: string };
  fallovers?: { agent: string; family: string; cause: string; message: string }[];
  changed: string[];
  jury: {
    seats: { reviewer: string; family: string }[];
    refused: { reviewer: string; family: string; reason: string }[];
  } | null;
};

const test = suite('leap slice run: the builder list and its fall-over');
test.after.each(cleanupTempDirs);

test('a builder whose vendor answers 429 hands the round to the next builder, from the same commit, not counted; skipped for the rest of the run; reviewers never of the family of the builder that built', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'fall',
    balls: [
      ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X by b\n' }) } }),
      ball('y', ['src/y.txt'], BASE, { deps: ['x'], proof: { argv: contentProof({ 'src/y.txt': 'Y by b\n' }) } }),
    ],
  });
  // The claude builder edits its scope file, then its vendor keeps answering 429: what it wrote must not survive.
  const cl = claudeEntry(dir, 'cl', {
    x: { '*': { edits: [{ path: 'src/x.txt', content: 'half-done by cl\n' }], dry: 429 } },
    y: { '*': { say: 'cl built y' } },
  });
  const agents = writeAgents(
    dir,
    {
      x: { '*': { edits: [{ path: 'src/x.txt', content: 'X by b\n' }] } },
      y: { '*': { edits: [{ path: 'src/y.txt', content: 'Y by b\n' }] } },
    },
    { cl, ra: anthropicReviewer(dir) },
  );
  const out = await leapSlice(repo, [
    'run',
    file,
    '--jobs',
    '1',
    '--agents',
    agents,
    '--builder',
    'cl,b',
    '--reviewers',
    'r1,same,ra,r2',
    '--json',
  ]);
  assert.is(out.code, 0, out.stderr + out.stdout);
  assert.equal(
    (JSON.parse(out.stdout) as { dried?: { agent: string; cause: string }[] }).dried?.map((d) => [d.agent, d.cause]),
    [['cl', 'rate-limit']],
  );
  // cl was launched once (ball x's round 1), never again: ball y was built by b alone.
  assert.equal(launchesOf(dir, 'cl'), ['x 1']);
  const x1 = readLeap<Round>(repo, 'fall', 'x', 'round-1.json');
  assert.is(x1?.builder.agent, 'b');
  assert.is(x1?.builder.family, 'fb');
  assert.equal(
    x1?.fallovers?.map((f) => [f.agent, f.family, f.cause]),
    [['cl', 'anthropic', 'rate-limit']],
  );
  assert.match(x1?.fallovers?.[0]?.message ?? '', /429/, 'the CLI words');
  // From the same commit: the half-done edit of cl is not b's start, nor in what the round changed.
  assert.equal(x1?.changed, ['src/x.txt']);
  assert.is(showFile(repo, 'leap/fall/spine', 'src/x.txt'), 'X by b\n');
  assert.not.ok(git(repo, 'log', '--all', '-p', '--format=%H').includes('half-done'), 'no commit holds what cl wrote');
  // Not a round: one round record for x, its result one round.
  assert.is(readLeap(repo, 'fall', 'x', 'round-2.json'), null);
  assert.is(readLeap<{ rounds: number }>(repo, 'fall', 'x', 'result.json')?.rounds, 1);
  const y1 = readLeap<Round>(repo, 'fall', 'y', 'round-1.json');
  assert.is(y1?.builder.agent, 'b');
  assert.is(y1?.fallovers, undefined, 'y had no fall-over: cl was skipped, not tried again');
  // The jury of each round: never of fb (b built it); ra (anthropic) sits, since no work of cl was kept.
  for (const r of [x1, y1]) {
    assert.ok(r?.jury !== null && r?.jury !== undefined);
    assert.not.ok(
      r.jury.seats.some((s) => s.family === 'fb'),
      JSON.stringify(r.jury.seats),
    );
    assert.ok(r.jury.refused.some((s) => s.reviewer === 'same'));
    assert.ok(r.jury.seats.some((s) => s.reviewer === 'ra'));
  }
  // The event log: one fallover event, the round events name who built, the builder leaf launched twice.
  const fallovers = eventsOf(repo, 'fallover');
  assert.is(fallovers.length, 1);
  assert.equal(
    { ...fallovers[0], ts: undefined, message: undefined, issue: undefined, step: undefined, skill_commit: undefined },
    {
      ts: undefined,
      event: 'fallover',
      issue: undefined,
      step: undefined,
      skill_commit: undefined,
      leaf: 'build-x-1',
      role: 'builder',
      agent: 'cl',
      family: 'anthropic',
      cause: 'rate-limit',
      message: undefined,
      next: 'b',
      slice: 'fall',
      ball: 'x',
    },
  );
  assert.equal(
    eventsOf(repo, 'round').map((e) => [e.ball, e.round, e.agent, e.family]),
    [
      ['x', 1, 'b', 'fb'],
      ['y', 1, 'b', 'fb'],
    ],
  );
  assert.equal(launches(repo, 'build-'), ['build-x-1', 'build-x-1', 'build-y-1']);
  // Narrated.
  assert.match(
    out.stderr,
    /ball x: build-x-1: the builder cl \(anthropic\) ran dry \(rate-limit: .+\); built again by b \(fb\), from the same commit, not counted as a round/,
  );
  assert.match(out.stderr, /builder cl \(anthropic\), then b \(fb\)/);
  // leap slice status says who built the round, after whom.
  const status = await leapSlice(repo, ['status', file]);
  assert.match(status.stdout, /\n {2}x {2}passed {7}round 1 by b \(after cl rate-limit\) {2}receipt 1/);
  assert.match(status.stdout, /\n {2}y {2}passed {7}round 1 {2}receipt 1/);
  // The aggregate jury: only b built kept work; ra may sit there too, never same.
  const aggregate = readLeap<{ seats: { reviewer: string; family: string }[] }>(
    repo,
    'fall',
    'spine',
    'aggregate.json',
  );
  assert.not.ok(aggregate?.seats.some((s) => s.family === 'fb'));
});

test('a fall-over never spends a round: the round a builder ran dry on is built again, four real rounds still follow; the jury refuses the family of every builder whose work the candidate holds', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'four',
    balls: [ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X4\n' }) } })],
  });
  // Round 1: cl builds something the proof fails (kept on the branch); round 2: cl's vendor answers 529.
  const cl = claudeEntry(dir, 'cl', {
    x: { 1: { edits: [{ path: 'src/x.txt', content: 'X1 by cl\n' }] }, '*': { dry: 529 } },
  });
  const agents = writeAgents(
    dir,
    {
      x: {
        2: { edits: [{ path: 'src/x.txt', content: 'X2\n' }] },
        3: { edits: [{ path: 'src/x.txt', content: 'X3\n' }] },
        4: { edits: [{ path: 'src/x.txt', content: 'X4\n' }] },
      },
    },
    { cl, ra: anthropicReviewer(dir) },
  );
  const out = await leapSlice(repo, [
    'run',
    file,
    '--agents',
    agents,
    '--builder',
    'cl,b',
    '--reviewers',
    'r1,ra,r2',
    '--json',
  ]);
  assert.is(out.code, 0, out.stderr + out.stdout);
  assert.equal(launchesOf(dir, 'cl'), ['x 1', 'x 2']);
  const rounds = [1, 2, 3, 4].map((n) => readLeap<Round>(repo, 'four', 'x', `round-${n}.json`));
  assert.equal(
    rounds.map((r) => r?.builder.agent),
    ['cl', 'b', 'b', 'b'],
  );
  assert.equal(
    rounds.map((r) => r?.fallovers?.map((f) => `${f.agent} ${f.cause}`) ?? []),
    [[], ['cl overload'], [], []],
  );
  assert.is(readLeap(repo, 'four', 'x', 'round-5.json'), null);
  assert.is(readLeap<{ receipt: number; rounds: number }>(repo, 'four', 'x', 'result.json')?.rounds, 4);
  // Round 4's candidate holds cl's round-1 work underneath b's: neither fb nor anthropic sits.
  const jury = rounds[3]?.jury;
  assert.equal(jury?.seats.map((s) => s.reviewer).sort(), ['r1', 'r2']);
  assert.ok(
    jury?.refused.some((s) => s.reviewer === 'ra' && s.family === 'anthropic'),
    JSON.stringify(jury?.refused),
  );
  assert.is(showFile(repo, 'leap/four/spine', 'src/x.txt'), 'X4\n');
  assert.equal(
    eventsOf(repo, 'round').map((e) => [e.round, e.agent]),
    [
      [1, 'cl'],
      [2, 'b'],
      [3, 'b'],
      [4, 'b'],
    ],
  );
  assert.equal(
    eventsOf(repo, 'fallover').map((e) => [e.leaf, e.agent, e.cause, e.next]),
    [['build-x-2', 'cl', 'overload', 'b']],
  );
  // The aggregate jury on the spine: the work of cl (anthropic) and b (fb) is there; ra never sits.
  const aggregate = readLeap<{ seats: { reviewer: string }[] }>(repo, 'four', 'spine', 'aggregate.json');
  assert.equal(aggregate?.seats.map((s) => s.reviewer).sort(), ['r1', 'r2']);
});

test('a held ball run again with another builder: the jury refuses the family of the earlier builder whose work the branch kept', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'again',
    balls: [ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } })],
  });
  const b2Plan = join(dir, 'b2-plan.json');
  writeFileSync(b2Plan, JSON.stringify({ x: { '*': { edits: [{ path: 'src/x.txt', content: 'X\n' }] } } }));
  const agents = writeAgents(
    dir,
    { x: { '*': { edits: [{ path: 'src/x.txt', content: 'not yet, by b\n' }] } } },
    {
      b2: {
        plugin: 'command',
        family: 'fb2',
        command: [process.execPath, join(fixtures, 'builder.mjs')],
        env: { BUILDER_PLAN: b2Plan },
        paths: { write: [dir] },
      },
    },
  );
  const first = await leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2,same']);
  assert.is(first.code, 3, first.stderr);
  const again = await leapSlice(repo, [
    'run',
    file,
    '--agents',
    agents,
    '--builder',
    'b2',
    '--reviewers',
    'r1,r2,same',
  ]);
  assert.is(again.code, 0, again.stderr);
  const round = readLeap<Round>(repo, 'again', 'x', 'round-1.json');
  assert.is(round?.builder.agent, 'b2');
  assert.equal(round?.jury?.seats.map((s) => s.reviewer).sort(), ['r1', 'r2']);
  assert.ok(
    round?.jury?.refused.some(
      (r) => r.reviewer === 'same' && /a builder whose work the candidate holds \(fb\)/.test(r.reason),
    ),
    JSON.stringify(round?.jury?.refused),
  );
  const aggregate = readLeap<{ seats: { reviewer: string }[] }>(repo, 'again', 'spine', 'aggregate.json');
  assert.equal(aggregate?.seats.map((s) => s.reviewer).sort(), ['r1', 'r2']);
});

test('the list runs out: the ball is held, nothing built, no round spent, the reason naming each builder and its cause; a fallover event with no next', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'dry',
    balls: [ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } })],
  });
  const agents = writeAgents(
    dir,
    {},
    {
      cl: claudeEntry(dir, 'cl', { x: { '*': { dry: 429 } } }),
      // Another claude account, declared of another family: its credit balance is spent.
      cl2: claudeEntry(
        dir,
        'cl2',
        { x: { '*': { edits: [{ path: 'src/x.txt', content: 'half\n' }], dry: 'quota' } } },
        { family: 'other' },
      ),
    },
  );
  const out = await leapSlice(repo, [
    'run',
    file,
    '--agents',
    agents,
    '--builder',
    'cl,cl2',
    '--reviewers',
    'r1,r2',
    '--json',
  ]);
  assert.is(out.code, 3, out.stderr + out.stdout);
  assert.equal(
    ((s) => [s.receipt, s.exitCode])(JSON.parse(out.stdout) as { receipt: number; exitCode: number }),
    [0, 3],
    'held: receipt 0, exit 3, in --json as in the exit code',
  );
  const result = readLeap<{ receipt: number; rounds: number; reason: string }>(repo, 'dry', 'x', 'result.json');
  assert.is(result?.receipt, 0);
  assert.is(result?.rounds, 0);
  assert.match(
    result?.reason ?? '',
    /^every builder of the list ran dry: cl \(anthropic\) rate-limit: .+; cl2 \(other\) quota: Credit balance is too low; nothing was built, no round spent/,
  );
  assert.is(readLeap(repo, 'dry', 'x', 'round-1.json'), null);
  assert.ok(
    existsSync(join(repo, '.leap', 'dry', 'x', 'checkpoint.md')),
    'held as an agent failure is: with a checkpoint',
  );
  assert.equal(
    eventsOf(repo, 'fallover').map((e) => [e.agent, e.cause, e.next]),
    [
      ['cl', 'rate-limit', 'cl2'],
      ['cl2', 'quota', null],
    ],
  );
  assert.equal(eventsOf(repo, 'round'), []);
  assert.is(
    git(repo, 'rev-parse', 'leap/dry/x'),
    git(repo, 'rev-parse', 'HEAD'),
    "the ball's branch is at its start: cl2's edit undone",
  );
  assert.match(out.stderr, /no builder of the list is left/);
});

test('a builder that says "429 rate limit" in its answer but exits 0 did not run dry: its round stands, no fall-over', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'claim',
    balls: [ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } })],
  });
  const agents = writeAgents(
    dir,
    { x: { '*': { edits: [{ path: 'src/x.txt', content: 'wrong, by b\n' }] } } },
    { cl: claudeEntry(dir, 'cl', { x: { '*': { edits: [{ path: 'src/x.txt', content: 'X\n' }], claim: true } } }) },
  );
  const out = await leapSlice(repo, [
    'run',
    file,
    '--agents',
    agents,
    '--builder',
    'cl,b',
    '--reviewers',
    'r1,r2',
    '--json',
  ]);
  assert.is(out.code, 0, out.stderr + out.stdout);
  assert.is(readLeap<Round>(repo, 'claim', 'x', 'round-1.json')?.builder.agent, 'cl');
  assert.is(readLeap<Round>(repo, 'claim', 'x', 'round-1.json')?.fallovers, undefined);
  assert.equal(eventsOf(repo, 'fallover'), []);
  assert.equal(launches(repo, 'build-'), ['build-x-1']);
  assert.is(showFile(repo, 'leap/claim/spine', 'src/x.txt'), 'X\n');
});

test('a juror whose vendor ran dry is re-seated from the alternates (leap-jury re-seats any juror that never answered); not counted', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'juror',
    balls: [ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } })],
  });
  const agents = writeAgents(
    dir,
    { x: { '*': { edits: [{ path: 'src/x.txt', content: 'X\n' }] } } },
    { clr: claudeEntry(dir, 'clr', { '*': { '*': { dry: 429 } } }) },
  );
  const out = await leapSlice(repo, [
    'run',
    file,
    '--agents',
    agents,
    '--builder',
    'b',
    '--reviewers',
    'r1,clr',
    '--alternates',
    'r3',
    '--json',
  ]);
  assert.is(out.code, 0, out.stderr + out.stdout);
  const jury = readLeap<{ jury: { value: number; seats: { reviewer: string; value: number; replaced: boolean }[] } }>(
    repo,
    'juror',
    'x',
    'round-1.json',
  )?.jury;
  assert.is(jury?.value, 1);
  assert.equal(
    jury?.seats.map((s) => [s.reviewer, s.value, s.replaced]),
    [
      ['r1', 1, false],
      ['clr', 0, true],
      ['r3', 1, false],
    ],
  );
  // clr ran dry on the ball's jury: its seat says so, and the aggregate jury passes over it instead of trying again.
  assert.is(
    readLeap<{ jury: { seats: { reviewer: string; dry?: string }[] } }>(
      repo,
      'juror',
      'x',
      'round-1.json',
    )?.jury.seats.find((s) => s.reviewer === 'clr')?.dry,
    'rate-limit',
  );
  assert.equal(launchesOf(dir, 'clr'), ['- -']);
  assert.match(out.stderr, "reviewer clr's vendor ran dry (rate-limit): passed over by every later jury of this run");
  const aggregate = readLeap<{ aggregate: { value: number; seats: { reviewer: string }[] } }>(
    repo,
    'juror',
    'record.json',
  )?.aggregate;
  assert.equal([aggregate?.value, aggregate?.seats.map((s) => s.reviewer).sort()], [1, ['r1', 'r3']]);
});

test('the builder list is input: every name resolved and the jury checked for each builder before anything runs; else the agents file roles.builder', async () => {
  const { repo, dir } = setupRepo(BASE);
  const file = writeSlice(dir, {
    id: 'input',
    balls: [ball('x', ['src/x.txt'], BASE, { proof: { argv: contentProof({ 'src/x.txt': 'X\n' }) } })],
  });
  const agents = writeAgents(dir, { x: { '*': { edits: [{ path: 'src/x.txt', content: 'X\n' }] } } });
  for (const [builder, reviewers, message] of [
    ['b,ghost', 'r1,r2', /--builder: unknown agent "ghost"/],
    ['b,b', 'r1,r2', /--builder: names an agent twice/],
    ['b,$(touch pwned)', 'r1,r2', /--builder: expected an agent name, or names separated by commas/],
    // r1 is of f1: with builder r1 only r2 is left to judge its rounds.
    [
      'b,r1',
      'r1,r2',
      /--reviewers: the jury needs at least 2 reviewers of families other than builder "r1"'s \("f1"\)/,
    ],
  ] as const) {
    const out = await leapSlice(repo, [
      'run',
      file,
      '--agents',
      agents,
      '--builder',
      builder,
      '--reviewers',
      reviewers,
    ]);
    assert.is(out.code, 2, `${builder}: ${out.stderr}`);
    assert.match(out.stderr, message);
    assert.not.ok(existsSync(join(repo, '.leap')), 'nothing written');
    assert.is(git(repo, 'branch', '--list', 'leap/*').trim(), '', 'no branch');
  }
  assert.not.ok(existsSync(join(repo, 'pwned')));
  // No --builder: the agents file's roles.builder, in order.
  const withRoles = join(dir, 'roles.json');
  const parsed = JSON.parse(readFileSync(agents, 'utf8')) as Record<string, unknown>;
  writeFileSync(withRoles, JSON.stringify({ ...parsed, roles: { builder: ['b', 'r3'] } }));
  const out = await leapSlice(repo, ['run', file, '--agents', withRoles, '--reviewers', 'r1,r2']);
  assert.is(out.code, 0, out.stderr);
  assert.match(out.stderr, /builder b \(fb\), then r3 \(f3\)/);
  assert.is(readLeap<Round>(repo, 'input', 'x', 'round-1.json')?.builder.agent, 'b');
});

test.run();
