import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { keepOrRevert, readMetric, renderCheckpoint, renderSummary } from '../src/index.js';
import { buildProvenance } from '../src/engine/provenance.js';
import { readStatusV2 } from '../src/engine/checkout.js';
import { worktreeGit } from '../src/engine/git.js';
import { CostMeter } from '../src/engine/cost.js';
import type { ProofRun, RoundRecord, ResultRecord, RunRecord } from '../src/index.js';
import type { RunSummary } from '../src/engine/run-slice.js';
import { ball } from './engine-helpers.js';

const run = (code: number, metric: Record<string, number> | null = null): ProofRun => ({ code, metric, ms: 1 });
const fields = [
  { field: 'passed', better: 'higher' as const },
  { field: 'ms', better: 'lower' as const },
];

// ---
const keep = suite('keepOrRevert');

keep('a failing champion is beaten by a passing proof; without a metric a passing champion is a tie', () => {
  assert.equal(keepOrRevert({ argv: ['t'] }, run(1), run(0)).keep, true);
  const tie = keepOrRevert({ argv: ['t'] }, run(0), run(0));
  assert.equal(
    [tie.keep, /a tie \(the proof already passes at the start and no metric is declared\)/.test(tie.reason)],
    [false, true],
  );
});

keep(
  'fields in order: a regression on the first loses whatever the second does; lower is better where declared; a full tie loses',
  () => {
    const proof = { argv: ['t'], metric: fields };
    const regress = keepOrRevert(proof, run(0, { passed: 5, ms: 100 }), run(0, { passed: 4, ms: 1 }));
    assert.equal(
      [regress.keep, regress.reason],
      [false, 'loses to the champion: a regression on passed (5 -> 4, higher is better)'],
    );
    assert.equal(
      keepOrRevert(proof, run(0, { passed: 5, ms: 100 }), run(0, { passed: 5, ms: 90 })).reason,
      'beats the champion on ms (100 -> 90, lower is better)',
    );
    assert.equal(keepOrRevert(proof, run(0, { passed: 5, ms: 100 }), run(0, { passed: 5, ms: 120 })).keep, false);
    assert.equal(
      keepOrRevert(proof, run(0, { passed: 5, ms: 100 }), run(0, { passed: 5, ms: 100 })).reason,
      'loses to the champion: a tie on passed, ms',
    );
    // A champion whose metric could not be read is no evidence: any passing candidate beats it.
    assert.equal(keepOrRevert(proof, run(0, null), run(0, { passed: 1, ms: 1 })).keep, true);
  },
);

// ---
const proof = suite('readMetric and readStatusV2');
proof.after.each(cleanupTempDirs);

proof('the metric is the last non-empty stdout line, every field a number', () => {
  assert.equal(readMetric('noise\n{"passed": 3, "ms": 2}\n\n', fields), { metric: { passed: 3, ms: 2 } });
  assert.equal(readMetric('', fields).note, 'the proof printed no metric line');
  assert.match(readMetric('all good\n', fields).note ?? '', /the proof's last line is not JSON: "all good"/);
  assert.equal(readMetric('[1,2]\n', fields).note, "the proof's last line is not a JSON object");
  assert.equal(readMetric('{"passed": "3", "ms": 1}\n', fields).note, 'the proof\'s metric has no number "passed"');
});

proof('readStatusV2: HEAD, and the paths whose work tree differs from the index or that git does not track', () => {
  const oid = 'a'.repeat(40);
  const h = 'b'.repeat(40);
  // A rename's origin is the entry after it, whatever it looks like (here like an untracked file): skipped.
  const out = [
    `# branch.oid ${oid}`,
    '# branch.head leap/s/a',
    `1 .M N... 100644 100644 100644 ${h} ${h} src/a b.txt`,
    `1 M. N... 100644 100644 100644 ${h} ${h} staged only.txt`,
    `2 RM N... 100644 100644 100644 ${h} ${h} R100 new name.txt`,
    '? old name.txt',
    `u UU N... 100644 100644 100644 100644 ${h} ${h} ${h} both.txt`,
    '? $(x) é.txt',
    '',
  ].join('\0');
  assert.equal(readStatusV2(out), { head: oid, dirty: ['src/a b.txt', 'new name.txt', 'both.txt', '$(x) é.txt'] });
  assert.equal(readStatusV2('# branch.oid (initial)\0# branch.head main\0'), { head: null, dirty: [] });
});

// ---
const records = suite('the record, the checkpoint, the summary, the cost meter');
records.after.each(cleanupTempDirs);

const base = { 'src/a.txt': 'a\n' };
const slice = { id: 's', base: 'HEAD', spine: 'integrator', balls: [ball('a', ['src/a.txt'], base)] } as never;
const runRecord: RunRecord = { slice: 's', base: 'b'.repeat(40), file: 's.json', started: '2026-01-01T00:00:00.000Z' };
const round = (candidate: string, extra: Partial<RoundRecord> = {}): RoundRecord => ({
  slice: 's',
  ball: 'a',
  round: 1,
  receipt: 1,
  reason: 'passed',
  candidate,
  proof: { code: 0, metric: null },
  changed: ['src/a.txt'],
  ts: '',
  start: 'x',
  commit: 'y',
  builder: { agent: 'b', family: 'fb', leaf: 'build-a-1', status: 'exited' },
  champion: run(1),
  jury: { value: 1, reason: 'unanimous', candidate, seats: [], refused: [] },
  reproof: { code: 0, candidate },
  ...extra,
});
const result = (candidate: string, extra: Partial<ResultRecord> = {}): ResultRecord => ({
  receipt: 1,
  reason: 'passed',
  candidate,
  rounds: 1,
  merged: 'm',
  ts: '',
  commit: 'y',
  ...extra,
});
const aggregate = { value: 1 as const, reason: 'unanimous', candidate: 'agg', seats: [], refused: [] };

records(
  'the record needs one candidate hash in every receipt, every receipt 1, every ball merged, a unanimous aggregate',
  () => {
    const input = (r: RoundRecord, res: ResultRecord, agg = aggregate) =>
      buildProvenance({
        slice,
        run: runRecord,
        spine: { branch: 'leap/s/spine', commit: 'c' },
        balls: [{ id: 'a', round: r, result: res }],
        aggregate: agg,
      });
    const ok = input(round('h'), result('h'));
    assert.ok('record' in ok);
    assert.match(
      (input(round('h', { reproof: { code: 0, candidate: 'other' } }), result('h')) as { incomplete: string })
        .incomplete,
      /do not carry one candidate hash/,
    );
    assert.match(
      (input(round('h', { reproof: { code: 1, candidate: 'h' } }), result('h')) as { incomplete: string }).incomplete,
      /a receipt that is not 1/,
    );
    assert.match(
      (input(round('h'), result('h', { merged: null })) as { incomplete: string }).incomplete,
      /is not merged/,
    );
    assert.match(
      (input(round('h'), result('h'), { ...aggregate, value: 0 as never }) as { incomplete: string }).incomplete,
      /aggregate jury returned 0/,
    );
    assert.match(
      (
        buildProvenance({
          slice,
          run: runRecord,
          spine: { branch: 'x', commit: 'c' },
          balls: [{ id: 'ghost', round: round('h'), result: result('h') }],
          aggregate,
        }) as { incomplete: string }
      ).incomplete,
      /not in the slice/,
    );
  },
);

records('a checkpoint of a ball waiting on a dependency, and of one that never ran', () => {
  const text = renderCheckpoint({
    slice: 's',
    sliceFile: 's.json',
    ball: ball('a', ['src/a.txt'], base) as never,
    base: 'b',
    start: 'b',
    branch: 'leap/s/a',
    commit: 'b',
    rounds: [],
    reason: 'held: dependency x held (0)',
    waitingOn: ['x'],
  });
  assert.match(text, /Waiting on x: this ball runs once they return 1\./);
  assert.match(text, /- no round ran in this episode\./);
  assert.match(text, /The ball has not been built\./);
  assert.match(text, /"waiting_on": \[\n\s+"x"\n\s+\]/);
});

records('the summary: one line a ball, the aggregate, the reviewers, what was spent, the wall time', () => {
  const summary: RunSummary = {
    slice: 's',
    base: 'b',
    spine: 'leap/s/spine',
    spineCommit: 'c'.repeat(40),
    receipt: -1,
    aggregate: { ...aggregate, value: -1, reason: 'refuse:\nr1' },
    balls: [
      {
        id: 'a',
        wave: 1,
        receipt: 1,
        reason: 'x'.repeat(200),
        rounds: 1,
        candidate: 'd'.repeat(64),
        merged: 'm',
        reused: true,
      },
    ],
    reviewers: [],
    record: null,
    wallMs: 1234,
    spent: {
      usd: 0.5,
      unknown: 1,
      leaves: [
        { leaf: 'build-a-1', usd: 0.5 },
        { leaf: 'review-x', usd: null },
      ],
    },
    stopped: 'stopped by SIGTERM',
    dried: [
      {
        agent: 'claude',
        family: 'anthropic',
        cause: 'rate-limit',
        message: 'API Error: Request rejected (429)\n· rate limit reached',
      },
    ],
  };
  const text = renderSummary(summary);
  assert.match(text, /^slice s: refused \(-1\) on leap\/s\/spine at cccccccccccc; stopped by SIGTERM\n/);
  assert.match(text, /a {11}1 {7}1  d{12}  \(passed earlier\) x+\.\.\.\n/);
  assert.match(text, /aggregate jury: -1: refuse: r1\n/);
  assert.match(
    text,
    /reviewers: none seated\nran dry: claude \(anthropic\) rate-limit: API Error: Request rejected \(429\) · rate limit reached; skipped for the rest of the run\nspent: \$0\.5000 \(1 leaf\/leaves reported no cost\)\nwall time: 1\.2 s\n$/,
  );
});

records(
  "the cost meter adds up the usage events of the run's leaves since it started (a leaf launched twice costs twice), else the leaf's own report",
  () => {
    const dir = makeTempDir();
    mkdirSync(dir, { recursive: true });
    const since = Date.parse('2026-01-01T00:00:00.000Z');
    const line = (leaf: string, cost: number | null, ts = '2026-01-01T00:00:01.000Z') =>
      JSON.stringify({
        ts,
        event: 'usage',
        issue: null,
        step: null,
        skill_commit: null,
        leaf,
        agent: 'x',
        family: 'f',
        model: null,
        input_tokens: null,
        output_tokens: null,
        cost_usd: cost,
      });
    writeFileSync(
      join(dir, 'events.jsonl'),
      [
        line('build-a-1', 0.25),
        line('build-a-1', 0.3, '2025-01-01T00:00:00.000Z'),
        line('other', 9),
        '{"torn',
        line('review-x-f1', null),
        line('build-a-1', null),
        line('build-c-1', 0.05),
        line('build-c-1', 0.1),
      ].join('\n'),
    );
    const meter = new CostMeter(dir, since, 0.5);
    assert.not.ok(meter.over(), 'nothing ran yet');
    meter.ran([
      { leaf: 'build-a-1', usage: null },
      { leaf: 'review-x-f1', usage: null },
      { leaf: 'build-b-1', usage: { model: null, input_tokens: 1, output_tokens: 1, cost_usd: 0.3 } },
      // Launched twice (a fall-over: the dry launch, then the next builder's): both launches cost.
      { leaf: 'build-c-1', usage: null },
    ]);
    const t = meter.tally();
    assert.equal(
      t.leaves.map((l) => [l.leaf, l.usd === null ? null : Math.round(l.usd * 100)]),
      [
        ['build-a-1', 25],
        ['review-x-f1', null],
        ['build-b-1', 30],
        ['build-c-1', 15],
      ],
    );
    assert.equal([Math.round(t.usd * 100), t.unknown, meter.over()], [70, 1, true]);
    assert.match(
      meter.reason(),
      /\$0\.7000 of --max-cost \$0\.5 \(build-b-1 \$0\.3000, build-a-1 \$0\.2500, build-c-1 \$0\.1500\)/,
    );
  },
);

const worktrees = suite('worktreeGit');
worktrees.after.each(cleanupTempDirs);

worktrees("eight balls' worktrees added with -B and removed at once, five times over: none fails", async () => {
  // Plain `git worktree` commands run side by side fail here (measured: 24 of 320, "failed to read
  // .git/worktrees/NAME/commondir"): `add -B` reads every other worktree's files while they are written.
  const repo = makeGitRepo({ files: { 'a.txt': 'a\n' } });
  const head = git(repo, 'rev-parse', 'HEAD').trim();
  const place = makeTempDir();
  const balls = Array.from({ length: 8 }, (_, i) => `b${i}`);
  for (let round = 0; round < 5; round++) {
    await Promise.all(balls.map((b) => worktreeGit(repo, ['add', '-q', '-B', `leap/s/${b}`, join(place, b), head])));
    const listed = git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length;
    assert.is(listed, 9, `round ${round}: the main worktree and eight more`);
    await Promise.all(balls.map((b) => worktreeGit(repo, ['remove', '--force', '--force', join(place, b)])));
  }
  assert.is(
    git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length,
    1,
  );
});

keep.run();
proof.run();
records.run();
worktrees.run();
