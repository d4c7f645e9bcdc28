// `leap status` in process, against recorded runs in real repositories: --json field by field, the
// terminal text as drawn, and every kind of bad input (no log, empty, malformed, torn, unknown kinds).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '@leap/core';
import { cleanupTempDirs, hostileTitles, isAlive, waitFor } from '@leap/test-utils';
import { statusMain } from '../src/status-cli.js';
import type { StatusData } from '../src/status-data.js';
import { captureIo, cleanEnv, engineRecords, fixture, repoWith, runSlice } from './helpers.js';

const DEMO_LEDGER = `# Slugify step titles

## Steps

- [x] Lowercase the words and join them with dashes <!-- criterion: 1 -->
- [x] Drop characters like ' " $ \` that are not letters or digits <!-- criterion: 2 -->
`;

async function status(
  cwd: string,
  args: string[] = [],
  env = cleanEnv(),
  isTTY = false,
): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo(cwd, env, isTTY);
  const code = await statusMain(args, c.io);
  return { code, out: c.out(), err: c.err() };
}
async function statusJson(cwd: string, env = cleanEnv()): Promise<StatusData> {
  const r = await status(cwd, ['--json'], env);
  assert.is(r.code, 0);
  return JSON.parse(r.out) as StatusData;
}

// ---
const recorded = suite('leap status: a recorded run of the demo');
recorded.after(cleanupTempDirs);

recorded('--json: the ledger with its steps, the last five verdicts, nothing running, no cost reported', async () => {
  const repo = repoWith({ '.tdd/events.jsonl': fixture('demo.jsonl'), '.tdd/issue-1.md': DEMO_LEDGER });
  const data = await statusJson(repo);
  assert.is(data.repo, repo);
  assert.equal(
    [data.log.exists, data.log.events, data.log.problems, data.log.unknown, data.log.tornTail],
    [true, 54, [], [], false],
  );
  assert.equal(
    data.issues.map((i) => [i.issue, i.title, i.done, i.total, i.refactorPending]),
    [[1, 'Slugify step titles', 2, 2, 0]],
  );
  assert.equal(
    data.issues[0]?.steps.map((s) => [s.state, s.criterion, s.current, s.phase]),
    [
      ['done', 1, false, 'refactor'],
      ['done', 2, false, 'refactor'],
    ],
  );
  assert.equal(
    data.verdicts.map((v) => `${v.phase} ${v.verdict}`),
    ['refactor PASS', 'red PASS', 'green REJECT', 'green PASS', 'refactor PASS'],
  );
  assert.is(data.verdicts[2]?.reason, 'ground truth: the suite fails');
  assert.equal([data.running, data.lost, data.bails, data.slices], [[], [], [], []]);
  assert.equal(data.stop, { pending: null, unreadable: null });
  assert.equal(data.cost, {
    leaves: 0,
    input_tokens: null,
    output_tokens: null,
    cost_usd: null,
    unreported: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    estimated: 0,
  });
});

recorded(
  "the issue's own title, from the local tracker's issue file, not the ledger's heading (the plan's first line)",
  async () => {
    const title = 'Slugs for step titles: it\'s `$(id)` "quoted" ✓';
    const repo = repoWith({
      '.tdd/events.jsonl': fixture('demo.jsonl'),
      '.tdd/issue-1.md': DEMO_LEDGER.replace('# Slugify step titles', '# Plan'),
      '.tdd/issues/1.md': `# ${title}\n\n## Acceptance criteria\n\n- [ ] one\n`,
    });
    assert.equal(
      (await statusJson(repo)).issues.map((i) => i.title),
      [title],
    );
    assert.match(
      (await status(repo)).out,
      new RegExp(`^Issue 1  ${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
    );
    // Without an issue file (another tracker), the ledger's heading as before.
    const bare = repoWith({
      '.tdd/events.jsonl': fixture('demo.jsonl'),
      '.tdd/issue-1.md': DEMO_LEDGER.replace('# Slugify step titles', '# Plan'),
    });
    assert.equal(
      (await statusJson(bare)).issues.map((i) => i.title),
      ['Plan'],
    );
  },
);

recorded(
  'a recorded run of leap demo (the conductor): every step done, 21 leaves whose scripted agents report no usage',
  async () => {
    const repo = repoWith({
      '.tdd/events.jsonl': fixture('leap-demo.jsonl'),
      '.tdd/issue-1.md': fixture('leap-demo-issue-1.md'),
    });
    const data = await statusJson(repo);
    assert.equal(
      data.issues.map((i) => [i.done, i.total]),
      [[3, 3]],
    );
    assert.equal([data.log.events, data.log.problems, data.log.unknown, data.running, data.lost], [86, [], [], [], []]);
    assert.equal([data.cost.leaves, data.cost.cost_usd, data.cost.unreported.cost_usd], [21, null, 21]);
    assert.match((await status(repo)).out, /^ {2}21 leaves, none of which reported tokens or cost$/m);
  },
);

recorded('the terminal text: a full progress bar, every step ticked, the verdicts with their reasons', async () => {
  const repo = repoWith({
    '.tdd/events.jsonl': fixture('demo.jsonl'),
    '.tdd/issue-1.md': DEMO_LEDGER.replace('- [x] Drop', '- [ ] Drop'),
  });
  const r = await status(repo);
  assert.is(r.code, 0);
  assert.is(r.err, '');
  assert.ok(!r.out.includes('\x1b'), 'no colour when stdout is not a terminal');
  assert.match(r.out, /^leap status  .+  54 events$/m);
  assert.match(r.out, /^Issue 1  Slugify step titles$/m);
  assert.match(r.out, /^ {2}\[█{12}░{12}\] 1\/2 steps done$/m);
  assert.match(r.out, /^ {2}✓ Lowercase the words and join them with dashes$/m);
  assert.match(r.out, /^ {2}○ Drop characters like ' " \$ ` that are not letters or digits {2}◀ refactor$/m);
  assert.match(r.out, /^ {2}\d\d:\d\d:\d\d {2}REJECT green {4}Drop characters/m);
  assert.match(r.out, /^ {6}ground truth: the suite fails$/m);
  assert.match(r.out, /^Running now\n {2}no leaf is running$/m);
  assert.match(r.out, /^Tokens and cost so far\n {2}no usage reported yet$/m);
  assert.ok(!r.out.includes('Problems'));
});

recorded(
  'a slice: its balls by wave with receipts and rounds, the records on disk merged in, the cost with its gaps',
  async () => {
    const repo = repoWith({
      '.tdd/events.jsonl': fixture('slice.jsonl'),
      '.leap/split-parser/run.json': JSON.stringify({
        base: 'abc',
        balls: [
          { id: 'lexer', deps: [] },
          { id: 'parser', deps: ['lexer'] },
          { id: 'extra', deps: ['parser'] },
        ],
      }),
      '.leap/split-parser/record.json': '{}',
      '.leap/split-parser/extra/round-1.json': JSON.stringify({ receipt: 0 }),
      '.leap/split-parser/extra/result.json': JSON.stringify({ receipt: 0 }),
      '.leap/broken/run.json': '{not json',
    });
    const data = await statusJson(repo);
    const s = data.slices.find((x) => x.id === 'split-parser');
    assert.equal(
      s?.balls.map((b) => [b.id, b.wave, b.receipt, b.rounds.length, b.merged]),
      [
        ['lexer', 0, 1, 2, true],
        ['docs', 0, -1, 1, false],
        ['cli', 1, null, 0, false],
        ['parser', 1, 1, 1, true],
        ['extra', 2, 0, 1, false],
      ],
    );
    assert.is(s?.record, true);
    assert.equal(s?.balls.find((b) => b.id === 'parser')?.deps, ['lexer']);
    assert.equal(
      data.fileProblems.map((p) => [p.file, p.message.slice(0, 8)]),
      [[join(repo, '.leap/broken/run.json'), 'not JSON']],
    );
    assert.equal([data.cost.leaves, data.cost.cost_usd, data.cost.unreported.cost_usd], [5, 0.2863, 2]);
    const r = await status(repo);
    assert.match(r.out, /^Slice split-parser {2}passed \(record\.json written\)$/m);
    assert.match(r.out, /^ {2}wave 0 {2}docs {2}-1 refused {2}dispatched {2}r1:-1$/m);
    assert.match(r.out, /^ {2}wave 2 {2}extra {2}0 held {2}r1:0$/m);
    assert.match(
      r.out,
      /49,000 in \/ 11,400 out tokens, \$0\.29 over 5 leaves \(2 of 5 leaves did not report cost; 1 did not report tokens\)/,
    );
    assert.match(r.out, /^Problems\n {2}\.leap\/broken\/run\.json: not JSON/m);
  },
);

recorded(
  "the engine's records: run.json names the slice file, whose balls give the dependencies; result.json gives a receipt and its reason",
  async () => {
    const repo = repoWith({
      'slices/s2.json': JSON.stringify({
        id: 's2',
        base: 'HEAD',
        spine: 'integrator',
        balls: [
          { id: 'a', deps: [] },
          { id: 'b', deps: ['a'] },
          { id: 'c', deps: ['b', 'ghost'] },
        ],
      }),
      '.leap/s2/run.json': JSON.stringify({
        slice: 's2',
        base: 'f'.repeat(40),
        file: 'slices/s2.json',
        started: '2026-11-30T10:00:00.000Z',
      }),
      '.leap/s2/a/round-1.json': JSON.stringify({
        slice: 's2',
        ball: 'a',
        round: 1,
        receipt: null,
        reason: 'proof failed',
      }),
      '.leap/s2/a/round-2.json': JSON.stringify({ slice: 's2', ball: 'a', round: 2, receipt: 1, reason: 'passed' }),
      '.leap/s2/a/round-x.json': '{}',
      '.leap/s2/a/result.json': JSON.stringify({
        receipt: 1,
        reason: 'proof, jury and re-proof agree',
        candidate: 'abc',
        rounds: 2,
      }),
      '.leap/s2/b/result.json': JSON.stringify({ receipt: 0, reason: 'blocked: a dependency held', blockedBy: ['a'] }),
      '.leap/s2/b/round-1.json': '[1]',
      '.leap/notes.txt': 'not a slice',
    });
    const data = await statusJson(repo);
    assert.equal(
      data.slices.map((s) => s.id),
      ['s2'],
    );
    assert.equal(
      data.slices[0]?.balls.map((b) => [b.id, b.deps, b.wave, b.receipt, b.rounds.map((r) => r.receipt)]),
      [
        ['a', [], 0, 1, [null, 1]],
        ['b', ['a'], 1, 0, [null]],
        ['c', ['b', 'ghost'], null, null, []],
      ],
    );
    assert.equal(
      data.fileProblems.map((p) => [p.file.slice(repo.length), p.message]),
      [['/.leap/s2/b/round-1.json', 'expected a JSON object; ignored']],
    );
    const { collectView } = await import('../src/collect-view.js');
    const view = collectView({ cwd: repo, env: cleanEnv() });
    assert.is(view.model.slices[0]?.balls[0]?.receipt?.evidence, 'proof, jury and re-proof agree');
    assert.match((await status(repo)).out, /^ {2}wave \? {2}c {2}no receipt/m);
  },
);

recorded(
  'a real run of leap slice: balls by wave with their receipts, every leaf and its usage in the slice',
  async () => {
    const { repo } = runSlice();
    const data = await statusJson(repo);
    assert.equal(
      data.slices.map((s) => s.id),
      ['greet'],
      "the engine's .leap/.worktrees is not a slice",
    );
    const balls = data.slices[0]?.balls ?? [];
    const engine = engineRecords(repo, 'greet');
    assert.equal(
      Object.fromEntries(
        balls
          .filter((b) => b.id in engine)
          .map((b) => [b.id, { receipt: b.receipt, merged: b.merged, rounds: b.rounds.map((r) => r.receipt) }]),
      ),
      engine,
    );
    assert.equal(balls.map((b) => [b.id, b.wave]).sort(), [
      ['hello', 1],
      ['stray', 1],
      ['world', 2],
    ]);
    assert.equal(engine.stray, { receipt: -1, merged: false, rounds: [-1] });
    assert.is(data.slices[0]?.cost?.leaves, data.cost.leaves, "every leaf's usage is the slice's");
    assert.ok(data.cost.leaves >= 3);
    assert.is(data.slices[0]?.record, false);
    assert.match((await status(repo)).out, /^ {2}wave 1 {2}stray {2}-1 refused {2}done {2}r1:-1$/m);
  },
);

recorded('usage with nulls, a killed leaf and a cost-budget bail', async () => {
  const repo = repoWith({ '.tdd/events.jsonl': fixture('usage-nulls.jsonl') });
  const data = await statusJson(repo);
  assert.equal(
    data.bails.map((b) => [b.cause, b.class, b.detail]),
    [['cost-budget', 'process', 'spent $0.51 of --max-cost 0.50 on develop-red']],
  );
  assert.equal(
    data.issues.map((i) => [i.issue, i.ledger, i.cost?.cost_usd]),
    [[4, null, 0.5123]],
  );
  const r = await status(repo);
  assert.match(r.out, /^ {2}no ledger yet \(\.tdd\/issue-4\.md\)$/m);
  assert.match(r.out, /bail: cost-budget \(process\) {2}issue 4 {2}spent \$0\.51 of --max-cost 0\.50 on develop-red/);
});

recorded.run();

// ---
const live = suite('leap status: leaves running now, lost leaves, a pending stop');
const sleepers: ChildProcess[] = [];
live.after(() => {
  for (const sleeper of sleepers) if (sleeper.pid !== undefined && isAlive(sleeper.pid)) sleeper.kill('SIGKILL');
  cleanupTempDirs();
});

live(
  "a live supervisor is running: elapsed against the issue's time limit; a dead one is lost; the stop is shown",
  async () => {
    // Two stand-ins for supervisors: one whose environment leaves the limit to the issue's timeout file, one with VERI_TIMEOUT=0.
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore', env: cleanEnv() });
    const unlimited = spawn('sleep', ['60'], { stdio: 'ignore', env: cleanEnv({ VERI_TIMEOUT: '0' }) });
    sleepers.push(sleeper, unlimited);
    const pid = sleeper.pid ?? 0;
    await waitFor(() => isAlive(pid) && isAlive(unlimited.pid ?? 0));
    const starttime = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19];
    const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
    const step = 'Parse the "quoted" words';
    const events = [
      {
        ts: ago(90),
        event: 'launch',
        issue: 5,
        step,
        skill_commit: null,
        leaf: 'develop-green',
        actor: 'developer',
        phase: 'green',
        attempt: 1,
        pid: 999_999_999,
        cmd: ['x'],
        run: 'old',
      },
      {
        ts: ago(60),
        event: 'launch',
        issue: 5,
        step,
        skill_commit: null,
        leaf: 'verify-red',
        actor: 'verifier',
        phase: 'red',
        attempt: 1,
        pid: unlimited.pid,
        cmd: ['x'],
        run: 'reused',
      },
      {
        ts: ago(30),
        event: 'launch',
        issue: 5,
        step,
        skill_commit: null,
        leaf: 'develop-green-2',
        actor: 'developer',
        phase: 'green',
        attempt: 2,
        pid,
        cmd: ['x'],
        run: 'now',
      },
      // Launched just before now (a process that started after its launch event is not its supervisor, see below).
      {
        ts: ago(1.5),
        event: 'launch',
        issue: 5,
        step,
        skill_commit: null,
        leaf: 'verify-green',
        actor: 'verifier',
        phase: 'green',
        attempt: 1,
        pid: unlimited.pid,
        cmd: ['x'],
        run: 'free',
      },
      {
        ts: ago(1),
        event: 'launch',
        issue: 5,
        step: null,
        skill_commit: null,
        leaf: 'plan',
        actor: 'planner',
        phase: 'plan',
        attempt: 1,
        pid: unlimited.pid,
        cmd: ['x'],
        run: 'said',
        timeout_ms: 50_000,
      },
    ]
      .map((e) => JSON.stringify(e))
      .join('\n');
    const repo = repoWith({
      '.tdd/events.jsonl': `${events}\n`,
      '.tdd/develop-green-2.pid': `${pid}\nstarttime=${starttime}\nrun=now\n`,
      '.tdd/issue-5-timeout': '120\n',
      '.tdd/issue-5.md': `# Five\n\n## Steps\n\n- [x] First <!-- refactor-pending -->\n- [ ] ${step}\n`,
      '.tdd/stop': 'at-leaf\n',
    });
    const data = await statusJson(repo, cleanEnv({ VERI_TIMEOUT: '7' }));
    assert.equal(
      data.running.map((r) => [
        r.leaf,
        r.phase,
        r.attempt,
        r.issue,
        r.pid,
        r.timeLimitMs,
        r.timeLimitSource,
        r.fraction === null,
      ]),
      [
        ['develop-green-2', 'green', 2, 5, pid, 120_000, join(repo, '.tdd/issue-5-timeout'), false],
        ['verify-green', 'green', 1, 5, unlimited.pid, 0, 'VERI_TIMEOUT', true],
        ['plan', 'plan', 1, 5, unlimited.pid, 50_000, 'launch event', false],
      ],
    );
    const running = data.running[0];
    assert.ok(running !== undefined && running.elapsedMs >= 30_000 && running.elapsedMs < 40_000);
    assert.ok(running.fraction !== null && running.fraction > 0.24 && running.fraction < 0.34);
    assert.equal(
      data.lost.map((l) => l.leaf),
      ['develop-green', 'verify-red'],
      'a dead pid, and a live pid that started after the launch',
    );
    assert.equal(data.stop, { pending: 'at-leaf', unreadable: null });
    assert.equal(
      data.issues[0]?.steps.map((s) => [s.state, s.current, s.phase]),
      [
        ['refactor-pending', true, null],
        ['todo', false, 'green'],
      ],
    );
    const r = await status(repo, [], cleanEnv({ COLUMNS: '100' }));
    assert.match(
      r.out,
      /^ {2}● develop-green-2 {2}issue 5 {2}green {2}attempt 2 {2}3\d\.\ds of 2m00s \[███░{7}\] \d\d%$/m,
    );
    assert.match(r.out, /^ {6}step: Parse the "quoted" words$/m);
    assert.match(
      r.out,
      /^ {2}\? develop-green {2}launched \d\d:\d\d:\d\d, no exit recorded and its supervisor is gone$/m,
    );
    assert.match(r.out, /^Stop requested: at-leaf\n {2}\.tdd\/stop; the run stops before its next leaf$/m);
    assert.match(r.out, /^ {2}\[▒{12}░{12}\] 0\/2 steps done, 1 refactor pending$/m);
    assert.match(r.out, /^ {2}◐ First \(refactor pending\) {2}◀ next$/m);
    assert.match(r.out, /^ {2}● verify-green {2}issue 5 {2}green {2}attempt 1 {2}\d\.\ds no time limit$/m);
    // Where the supervisor's environment cannot be read, the limit is read as it would read it: VERI_TIMEOUT first.
    const gone = await statusJson(
      repoWith({
        '.tdd/events.jsonl': `${JSON.stringify({ ts: ago(0.5), event: 'launch', issue: 5, step, skill_commit: null, leaf: 'plan', actor: null, phase: null, attempt: null, pid: process.pid, cmd: [] })}\n`,
        '.tdd/issue-5-timeout': '120',
      }),
      cleanEnv({ VERI_TIMEOUT: '7' }),
    );
    assert.ok(
      gone.running[0]?.timeLimitMs === 7000 || gone.running[0]?.timeLimitMs === 120_000,
      JSON.stringify(gone.running.concat(gone.lost as never)),
    );
    writeFileSync(join(repo, '.tdd/stop'), 'whenever\n');
    const bad = await statusJson(repo);
    assert.is(bad.stop.pending, null);
    assert.match(bad.stop.unreadable ?? '', /expected one of at-ledger, at-leaf, now, got "whenever\\n"/);
    assert.match((await status(repo)).out, /^Stop file unreadable\n/m);
  },
);

live.run();

// ---
const bad = suite('leap status: bad input');
bad.after(cleanupTempDirs);

bad('no event log yet, and an empty one: said plainly, exit 0', async () => {
  const none = repoWith();
  const r = await status(none);
  assert.is(r.code, 0);
  assert.match(r.out, /^No event log yet \(\.tdd\/events\.jsonl\): nothing has run in this repository\.$/m);
  assert.is((await statusJson(none)).log.exists, false);
  const empty = repoWith({ '.tdd/events.jsonl': '' });
  assert.match((await status(empty)).out, /^The event log \(\.tdd\/events\.jsonl\) is empty: nothing has run yet\.$/m);
});

bad(
  'malformed lines are listed with their numbers and skipped; unknown kinds listed as such; a torn last line noted',
  async () => {
    const repo = repoWith({ '.tdd/events.jsonl': fixture('malformed.jsonl') });
    const data = await statusJson(repo);
    assert.equal(
      data.log.problems.map((p) => p.line),
      [2, 3, 4, 5, 6, 10],
    );
    assert.equal(data.log.unknown, [{ line: 9, event: 'frobnicate' }]);
    const r = await status(repo);
    assert.is(r.code, 0);
    assert.match(r.out, /^ {2}\.tdd\/events\.jsonl:2: expected one JSON event, got "this is not json"; skipped$/m);
    assert.match(r.out, /^ {2}\.tdd\/events\.jsonl:6: launch event: expected a field "leaf", found none; skipped$/m);
    assert.match(
      r.out,
      /^ {2}\.tdd\/events\.jsonl:9: an event kind this view does not know, "frobnicate"; listed, not drawn$/m,
    );
    const torn = repoWith({ '.tdd/events.jsonl': fixture('torn-tail.jsonl') });
    const t = await statusJson(torn);
    assert.equal([t.log.events, t.log.tornTail, t.log.problems], [3, true, []]);
    assert.match(
      (await status(torn)).out,
      /the last line has no end yet \(being written, or torn by a crash\); not counted$/m,
    );
    const many = repoWith({ '.tdd/events.jsonl': 'x\n'.repeat(25) });
    assert.match((await status(many)).out, /^ {2}\.\.\. and 5 more \(leap status --json lists them all\)$/m);
  },
);

bad('a ledger that does not parse is a problem naming its file; VERI_STATE_DIR is honoured', async () => {
  const repo = repoWith({
    'state/issue-3.md': '# Three\n\nno steps heading\n',
    'state/events.jsonl': fixture('unknown-kind.jsonl'),
  });
  const data = await statusJson(repo, cleanEnv({ VERI_STATE_DIR: 'state' }));
  assert.is(data.stateDir, join(repo, 'state'));
  assert.equal(
    data.fileProblems.map((p) => p.file),
    [join(repo, 'state/issue-3.md')],
  );
  assert.equal(
    data.issues.map((i) => [i.issue, i.ledger]),
    [[3, null]],
  );
});

bad('--help; an unknown option or an argument is a usage error (exit 2) showing the usage', async () => {
  const repo = repoWith();
  const help = await status(repo, ['--help']);
  assert.is(help.code, 0);
  assert.match(help.out, /^Usage: leap status \[--dir DIR\] \[--watch\] \[--json\]$/m);
  assert.match(help.out, /^Exit codes:\n {2}0 {2}shown/m);
  for (const args of [['--nope'], ['extra']]) {
    try {
      await status(repo, args);
      assert.unreachable();
    } catch (error) {
      assert.ok(error instanceof UsageError && error.exitCode === 2, String(error));
      assert.match((error as Error).message, /Usage: leap status/);
    }
  }
});

bad.run();

// ---
const hostile = suite('leap status: titles are data');
hostile.after(cleanupTempDirs);

hostile(
  'hostile titles pass byte for byte in --json; the terminal shows controls as escapes, so none can move the cursor',
  async () => {
    const titles = [...hostileTitles(12), 'clear \x1b[2J\x1b[H the screen\u0007', 'bidi \u202Eevil\u202C'];
    const ledger = `# Hostile\n\n## Steps\n\n${titles.map((t) => `- [ ] ${t}`).join('\n')}\n`;
    const events = titles.map((t, i) =>
      JSON.stringify({
        ts: new Date(Date.parse('2026-11-30T10:00:00Z') + i * 1000).toISOString(),
        event: 'verdict',
        issue: 9,
        step: t,
        skill_commit: null,
        phase: 'red',
        verdict: 'REJECT',
        reason: `because ${t}`,
      }),
    );
    const repo = repoWith({ '.tdd/issue-9.md': ledger, '.tdd/events.jsonl': `${events.join('\n')}\n` });
    const data = await statusJson(repo);
    const parsedTitles = data.issues[0]?.steps.map((s) => s.title) ?? [];
    assert.is(parsedTitles.length, titles.length);
    assert.equal(
      data.verdicts.map((v) => v.step),
      titles.slice(-5),
    );
    assert.equal(
      data.verdicts.map((v) => v.reason),
      titles.slice(-5).map((t) => `because ${t}`),
    );
    const r = await status(repo, [], cleanEnv({ COLUMNS: '400' }));
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/.test(r.out), 'no control character reaches the terminal');
    assert.match(r.out, /clear \\u001b\[2J\\u001b\[H the screen\\u0007/);
    assert.match(r.out, /bidi \\u202eevil\\u202c/);
    const narrow = await status(repo, [], cleanEnv({ COLUMNS: '60' }));
    assert.ok(
      narrow.out
        .split('\n')
        .filter((l) => l.includes('x'.repeat(20)))
        .every((l) => Array.from(l).length <= 60),
      'a 2,000-character title is cut to the width',
    );
    const colour = await status(repo, [], cleanEnv({ FORCE_COLOR: '1' }));
    assert.match(colour.out, /\x1b\[1mleap status\x1b\[0m/);
    assert.ok(!(await status(repo, [], cleanEnv({ FORCE_COLOR: '1', NO_COLOR: '1' }))).out.includes('\x1b'));
  },
);

hostile.run();
