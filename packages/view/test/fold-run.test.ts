// Folding recorded logs: leaves paired by run id, verdicts, ticks, usage attributed, slices and their balls.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ballOfLeafName, foldRun } from '../src/fold-run.js';
import { parseLogText } from '../src/read-log.js';
import { eventLine, fixture } from './helpers.js';

const fold = (name: string) => {
  const log = parseLogText(fixture(name));
  return foldRun(log.records, log.problems);
};

// ---
const demo = suite('foldRun: a recorded run of the demo');

demo('20 leaves, each launch paired with its exit by run id, even where one leaf runs inside another', () => {
  const m = fold('demo.jsonl');
  assert.is(m.leaves.length, 20);
  assert.ok(m.leaves.every((l) => l.exitedAt !== null && l.run !== null));
  const red = m.leaves.filter((l) => l.leaf === 'verdict-red');
  assert.is(red.length, 2);
  const inner = m.leaves.find((l) => l.leaf === 'verify-red');
  assert.ok(
    inner !== undefined &&
      red[0] !== undefined &&
      inner.launchedAt > red[0].launchedAt &&
      (inner.exitedAt ?? 0) < (red[0].exitedAt ?? 0),
  );
  assert.equal(
    m.leaves.map((l) => l.status).filter((s) => s !== 'exited'),
    [],
  );
  const rejected = m.leaves.find((l) => l.leaf === 'verdict-green' && l.code === 1);
  assert.ok(rejected !== undefined, 'the verdict leaf of the REJECT exits 1');
  const revision = m.leaves.find((l) => l.leaf === 'develop-green-2');
  assert.equal([revision?.actor, revision?.phase, revision?.attempt, revision?.issue], ['developer', 'green', 2, 1]);
});

demo('verdicts, ticks and the time span; no problem, no unknown kind, no usage', () => {
  const m = fold('demo.jsonl');
  assert.equal(
    m.verdicts.map((v) => v.verdict),
    ['PASS', 'PASS', 'PASS', 'PASS', 'REJECT', 'PASS', 'PASS'],
  );
  assert.equal(
    m.ticks.map((t) => t.action),
    ['init', 'tick', 'clear-refactor-pending', 'tick-criterion', 'tick', 'clear-refactor-pending', 'tick-criterion'],
  );
  assert.is(m.verdicts[3]?.step, 'Drop characters like \' " $ ` that are not letters or digits');
  assert.equal([m.problems, m.unknown, m.usage], [[], [], []]);
  assert.ok(m.firstAt !== null && m.lastAt !== null && m.lastAt - m.firstAt > 1000);
});

demo.run();

// ---
const slice = suite('foldRun: a slice');

slice('balls with waves, rounds, receipts and merges; reviews placed by candidate; the aggregate review apart', () => {
  const m = fold('slice.jsonl');
  assert.is(m.slices.length, 1);
  const s = m.slices[0];
  assert.ok(s !== undefined);
  assert.equal(
    s.balls.map((b) => [b.id, b.wave, b.state, b.receipt?.value ?? null]),
    [
      ['lexer', 0, 'done', 1],
      ['docs', 0, 'dispatched', -1],
      ['cli', 1, 'blocked', null],
      ['parser', 1, 'dispatched', 1],
    ],
  );
  const lexer = s.balls[0];
  assert.equal(
    lexer?.rounds.map((r) => [r.round, r.receipt]),
    [
      [1, 0],
      [2, 1],
    ],
  );
  assert.equal(
    lexer?.reviews.map((r) => [r.reviewer, r.family, r.value]),
    [
      ['codex', 'openai', 1],
      ['gemini', 'google', 1],
    ],
  );
  assert.is(lexer?.merged?.commit, '1111111111111111111111111111111111111111');
  assert.equal(
    s.aggregate.map((r) => r.verdict),
    ['refuse'],
  );
});

slice('LEAP leaves find their slice through their ball; usage follows its leaf, nulls kept', () => {
  const m = fold('slice.jsonl');
  assert.equal(
    m.leaves.map((l) => [l.leaf, l.ball, l.slice]),
    [
      ['build-lexer-1', 'lexer', 'split-parser'],
      ['build-docs-1', 'docs', 'split-parser'],
      ['build-lexer-2', 'lexer', 'split-parser'],
      ['review-lexer-openai', 'lexer', 'split-parser'],
      ['review-lexer-google', 'lexer', 'split-parser'],
      ['build-parser-1', 'parser', 'split-parser'],
    ],
  );
  assert.equal(
    m.usage.map((u) => [u.leaf, u.slice, u.cost_usd]),
    [
      ['build-lexer-1', 'split-parser', 0.0912],
      ['build-docs-1', 'split-parser', null],
      ['build-lexer-2', 'split-parser', 0.0601],
      ['review-lexer-google', 'split-parser', null],
      ['build-parser-1', 'split-parser', 0.135],
    ],
  );
  assert.is(m.leaves.find((l) => l.leaf === 'review-lexer-google')?.usage?.input_tokens, null);
  assert.is(ballOfLeafName('build-a-b-3'), 'a-b');
  assert.is(ballOfLeafName('develop-red'), null);
  assert.equal(
    ['proof-a-b-1', 'reproof-a-b-2', 'live-a-b-1', 'champion-a-b', 'champion-', 'verify-green'].map(ballOfLeafName),
    ['a-b', 'a-b', 'a-b', 'a-b', null, null],
  );
});

slice.run();

// ---
const odd = suite('foldRun: odd and bad events');

odd('kinds the view does not know are kept with their lines; events missing a field it uses are problems', () => {
  const m = fold('unknown-kind.jsonl');
  assert.equal(
    m.unknown.map((u) => [u.line, u.event]),
    [
      [2, 'teleport'],
      [4, 'teleport'],
    ],
  );
  assert.is(m.verdicts.length, 1);
  const bad = fold('malformed.jsonl');
  assert.equal(
    bad.problems.map((p) => p.line),
    [2, 3, 4, 5, 6, 10],
  );
  assert.match(bad.problems[4]?.message ?? '', /^launch event: expected a field "leaf", found none; skipped$/);
  assert.equal(
    bad.unknown.map((u) => u.event),
    ['frobnicate'],
  );
});

odd('a suite event (the toolchain running the tests) is a kind the view knows: counted, never unknown', () => {
  const log = parseLogText(
    `${JSON.stringify({ ts: '2026-12-02T10:00:00.000Z', event: 'suite', issue: 1, step: 's', skill_commit: null, tree: null, command: 'npm test', code: 1, duration_ms: 12, phase: 'red' })}\n`,
  );
  const m = foldRun(log.records, log.problems);
  assert.equal([m.unknown, m.problems, m.suiteRuns], [[], [], 1]);
});

odd(
  'an exit without launch, a leaf never exited, a launch without run id paired by name, a second usage of one leaf',
  () => {
    const at = (ms: number) => new Date(ms).toISOString();
    const log = parseLogText(
      [
        eventLine({ ts: at(1000), event: 'exit', leaf: 'develop-red', code: 3, status: 'refused-stop' }),
        eventLine({ ts: at(2000), event: 'launch', leaf: 'plan', phase: 'plan', pid: 5 }),
        eventLine({ ts: at(2500), event: 'launch', leaf: 'develop-red', issue: 2, pid: 6 }),
        eventLine({ ts: at(3000), event: 'exit', leaf: 'develop-red', duration_ms: 500 }),
        eventLine({ ts: at(3100), event: 'usage', leaf: 'develop-red', issue: 2, input_tokens: 10 }),
        eventLine({ ts: at(3200), event: 'usage', leaf: 'develop-red', issue: 2, input_tokens: 5 }),
        eventLine({ ts: at(3300), event: 'usage', leaf: 'nobody' }),
        eventLine({ ts: at(3400), event: 'verdict', phase: 7 }),
        eventLine({ ts: at(3500), event: 'receipt', slice: 's', ball: 'b', value: 2 }),
        eventLine({ ts: at(3600), event: 'round', slice: 's' }),
        eventLine({ ts: at(3700), event: 'bail', cause: 'needs-user', reason: 'which test command?' }),
        eventLine({ ts: at(3800), event: 'stop', mode: 'at-leaf', action: 'requested' }),
        eventLine({ ts: at(3900), event: 'review', candidate: 'zz', value: 0, verdict: 'none' }),
        eventLine({ ts: at(4000), event: 'mark', name: 'm' }),
        eventLine({ ts: at(4100), event: 'tick', action: null }),
        eventLine({ ts: at(4200), event: 'usage', leaf: 'develop-red', output_tokens: -1, cost_usd: 'lots' }),
      ].join(''),
    );
    const m = foldRun(log.records, log.problems);
    assert.equal(
      m.leaves.map((l) => [l.leaf, l.status, l.launchedAt, l.durationMs]),
      [
        ['develop-red', 'refused-stop', 1000, 0],
        ['plan', 'running', 2000, null],
        ['develop-red', 'exited', 2500, 500],
      ],
    );
    assert.equal(m.leaves[2]?.usage?.input_tokens, 10);
    assert.is(m.usage.length, 3);
    assert.equal(
      m.problems.map((p) => p.line),
      [8, 9, 10, 15, 16],
      "fields of the wrong type or missing: core's reader skips the line",
    );
    assert.equal(m.problems.at(-1)?.message, 'usage event: "output_tokens" must be >= 0, got -1; skipped');
    assert.equal([m.bails[0]?.detail, m.stops[0]?.mode, m.marks[0]?.name], ['which test command?', 'at-leaf', 'm']);
    assert.equal(m.slices, [], 'an event skipped as a problem adds no ball');
  },
);

odd.run();

// ---
const edges = suite("foldRun: the engine's own shapes and fields of the wrong type");

edges(
  'a ball event carrying its receipt, reviews before their receipt, a second exit of one run, fields of the wrong type',
  () => {
    let s = 0;
    const ev = (event: { event: string } & Record<string, unknown>) =>
      eventLine({ ts: new Date(++s * 1000).toISOString(), ...event });
    const log = parseLogText(
      [
        ev({
          event: 'ball',
          slice: 's',
          ball: 'held',
          state: 'checkpointed',
          wave: 0,
          receipt: 0,
          reason: 'four rounds without a pass',
        }),
        ev({ event: 'ball', slice: 's', ball: 'held', state: 'checkpointed', receipt: 1, deps: ['a', 3] }),
        ev({
          event: 'review',
          slice: 's',
          ball: 'b',
          candidate: 'cb',
          reviewer: 'r',
          family: 'f',
          verdict: 'pass',
          value: 1,
        }),
        ev({ event: 'review', candidate: 'late', reviewer: 'r', family: 'f', verdict: 'pass', value: 1 }),
        ev({ event: 'review', candidate: 'nowhere', value: -1 }),
        ev({ event: 'receipt', slice: 's', ball: 'b', value: 1, candidate: 'late' }),
        ev({ event: 'round', slice: 's', ball: 'b', round: 1 }),
        ev({ event: 'round', slice: 's', ball: 'b', round: 1, receipt: 1 }),
        ev({ event: 'round', slice: 's', ball: 'b', round: 2 }),
        ev({ event: 'merge', slice: 's', ball: 'b' }),
        ev({ event: 'ball', slice: 's', ball: 'x', state: 'lost' }),
        ev({ event: 'ball', slice: 's' }),
        ev({ event: 'review', candidate: 'x', value: 2 }),
        ev({ event: 'launch', leaf: 'develop-red', run: 'r1' }),
        ev({ event: 'exit', leaf: 'develop-red', run: 'r1', duration_ms: 1000 }),
        ev({ event: 'exit', leaf: 'develop-red', run: 'r1' }),
        ev({ event: 'exit', leaf: '' }),
        ev({ event: 'usage', leaf: '' }),
        ev({ event: 'stop', mode: 'now', action: 'paused' }),
        ev({ event: 'mark', name: '' }),
        ev({ event: 'bail', cause: undefined }),
        ev({ event: 'bail', cause: 'agent-failed' }),
        ev({ event: 'verdict', phase: 'red', verdict: 'PASS' }),
        ev({ event: 'verdict', phase: 'amber' }),
        ev({ event: 'launch', leaf: 'build-b-1', slice: 'other' }),
        ev({ event: 'usage', leaf: 'build-b-1', slice: 'other', ball: 'b' }),
        ev({ event: 'usage', leaf: 'review-held-google' }),
        ev({ event: 'launch', leaf: 'develop-red', run: 'r2', issue: 'one', step: 5, attempt: 'two', pid: -1 }),
        ev({ event: 'exit', leaf: 'develop-red', run: 'r2', duration_ms: 'long' }),
      ].join(''),
    );
    const m = foldRun(log.records, log.problems);
    const [held, b] = m.slices[0]?.balls ?? [];
    assert.equal(
      [held?.receipt?.value, held?.receipt?.evidence, held?.wave, held?.deps],
      [0, 'four rounds without a pass', 0, ['a']],
    );
    assert.equal(
      b?.reviews.map((r) => r.candidate),
      ['cb', 'late'],
    );
    assert.equal(
      b?.rounds.map((r) => [r.round, r.receipt]),
      [
        [1, 1],
        [2, null],
      ],
    );
    assert.equal([b?.receipt?.evidence, b?.merged], ['', { commit: '', candidate: '', at: 10_000 }]);
    const red = m.leaves.find((l) => l.leaf === 'develop-red');
    assert.equal(
      [red?.issue, red?.step, red?.attempt, red?.durationMs, red?.status],
      [null, null, null, 1000, 'exited'],
    );
    assert.equal(
      m.leaves.filter((l) => l.leaf === 'develop-red').length,
      2,
      'a second exit of one run is an exit of its own',
    );
    assert.equal(
      [m.stops, m.marks, m.bails.map((x) => [x.cause, x.class]), m.verdicts.map((v) => v.reason)],
      [[], [], [['agent-failed', 'process']], ['']],
    );
    assert.equal(
      m.problems.map((p) => p.line),
      [11, 12, 13, 17, 18, 19, 20, 21, 24, 28, 29],
    );
    assert.equal(
      m.usage.map((u) => [u.slice, u.ball]),
      [
        ['other', 'b'],
        ['s', 'held'],
      ],
    );
    assert.is(m.leaves.find((l) => l.leaf === 'build-b-1')?.slice, 'other');
  },
);

edges.run();
