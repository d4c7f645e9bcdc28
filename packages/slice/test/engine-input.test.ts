import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { runSlice } from '../src/index.js';
import {
  ball,
  contentProof,
  engineEnv,
  eventsOf,
  extraWorktrees,
  fixtures,
  leapSlice,
  readLeap,
  setupRepo,
  showFile,
  writeAgents,
  writeSlice,
} from './engine-helpers.js';

const BASE = { 'src/a.txt': 'old a\n' };
const PASS_A = { a: { '*': { edits: [{ path: 'src/a.txt', content: 'A\n' }] } } };
const good = (dir: string, extra: Record<string, unknown> = {}) =>
  writeSlice(dir, {
    id: 'input',
    balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: contentProof({ 'src/a.txt': 'A\n' }) } })],
    ...extra,
  });

/** Nothing was run or left: no records, no state folder, no leap branches, no worktrees. */
function untouched(repo: string): void {
  assert.not.ok(existsSync(join(repo, '.leap')), '.leap/ left');
  assert.not.ok(existsSync(join(repo, '.tdd')), '.tdd/ left');
  assert.is(git(repo, 'branch', '--list', 'leap/*').trim(), '');
  assert.equal(extraWorktrees(repo), []);
  assert.is(git(repo, 'status', '--porcelain', '--untracked-files=all'), '');
}

const input = suite('leap slice run: bad input');
input.after.each(cleanupTempDirs);

input(
  'a malformed file, an unknown field, a path leaving the repository: exit 2 naming the file and the field, nothing run',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const agents = writeAgents(dir, PASS_A);
    const run = (file: string) =>
      leapSlice(repo, ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"id": "input", "balls": [');
    const a = await run(broken);
    assert.is(a.code, 2);
    assert.ok(a.stderr.includes(broken), a.stderr);
    const unknown = good(dir, { owner: 'me' });
    const b = await run(unknown);
    assert.is(b.code, 2);
    assert.ok(b.stderr.includes(unknown) && b.stderr.includes('owner'), b.stderr);
    const leaving = writeSlice(dir, { id: 'input', balls: [ball('a', ['../outside.txt'], BASE)] }, 'leaving.json');
    const c = await run(leaving);
    assert.is(c.code, 2);
    assert.ok(c.stderr.includes('../outside.txt'), c.stderr);
    const missing = await run(join(dir, 'no-such-slice.json'));
    assert.is(missing.code, 2);
    assert.match(missing.stderr, /no-such-slice\.json: cannot read the slice file: no such file/);
    untouched(repo);
  },
);

input(
  'a base that does not resolve, an agent that does not exist, a malformed agents file: exit 2, nothing run',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const agents = writeAgents(dir, PASS_A);
    const noBase = good(dir, { base: 'no-such-branch' });
    const a = await leapSlice(repo, ['run', noBase, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2']);
    assert.is(a.code, 2);
    assert.ok(
      a.stderr.includes(`${noBase}: "base": "no-such-branch" does not resolve to a commit in ${repo}`),
      a.stderr,
    );
    const dashed = await leapSlice(repo, [
      'run',
      good(dir, { base: '--all' }),
      '--agents',
      agents,
      '--builder',
      'b',
      '--reviewers',
      'r1,r2',
    ]);
    assert.is(dashed.code, 2);
    const file = good(dir);
    for (const [args, pattern] of [
      [['--builder', 'ghost', '--reviewers', 'r1,r2'], /--builder: unknown agent "ghost"/],
      [['--builder', 'b', '--reviewers', 'r1,ghost'], /--reviewers: unknown agent "ghost"/],
      [['--builder', 'b', '--reviewers', 'r1,r2', '--alternates', 'ghost'], /--alternates: unknown agent "ghost"/],
    ] as const) {
      const out = await leapSlice(repo, ['run', file, '--agents', agents, ...args]);
      assert.is(out.code, 2, args.join(' '));
      assert.match(out.stderr, pattern);
    }
    const badAgents = join(dir, 'bad-agents.json');
    writeFileSync(badAgents, '{"agents": {"b": {"plugin": "telepathy"}}}');
    const d = await leapSlice(repo, ['run', file, '--agents', badAgents, '--builder', 'b']);
    assert.is(d.code, 2);
    assert.ok(d.stderr.includes(badAgents) && d.stderr.includes('"plugin"'), d.stderr);
    untouched(repo);
  },
);

input('options: --help, a missing FILE, --jobs and --max-cost checked; outside a repository', async () => {
  const { repo, dir } = setupRepo(BASE);
  const help = await leapSlice(repo, ['run', '--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /Exit codes: 0 the slice passed; 1 refused/);
  assert.is((await leapSlice(repo, ['run'])).code, 2);
  const jobs = await leapSlice(repo, ['run', good(dir), '--jobs', '0']);
  assert.equal([jobs.code, /Expected --jobs to be a positive integer, got "0"/.test(jobs.stderr)], [2, true]);
  const cost = await leapSlice(repo, ['run', good(dir), '--max-cost', '-1']);
  assert.equal(
    [cost.code, /Expected --max-cost to be a non-negative number of US dollars, got "-1"/.test(cost.stderr)],
    [2, true],
  );
  const outside = makeTempDir();
  const nowhere = await leapSlice(outside, [
    'run',
    good(dir),
    '--agents',
    writeAgents(dir, PASS_A),
    '--builder',
    'b',
    '--reviewers',
    'r1,r2',
  ]);
  assert.is(nowhere.code, 2);
  assert.match(nowhere.stderr, /works in a git repository/);
  assert.equal(readdirSync(outside), []);
  untouched(repo);
});

// ---
input(
  'VERI_TIMEOUT is read as the supervisor reads it: 2m is 120 s for the proofs, 1s kills a hanging proof at 1000 ms, "soon" is exit 2',
  async () => {
    const { repo, dir } = setupRepo(BASE);
    const agents = writeAgents(dir, PASS_A);
    // The proof hangs once the builder wrote A (at base it fails at once): only the time limit ends it.
    const hang = [
      process.execPath,
      '-e',
      "const fs=require('fs');if(fs.readFileSync('src/a.txt','utf8')==='A\\n')setInterval(()=>{},1e6);else process.exit(1)",
    ];
    const file = writeSlice(dir, { id: 'timed', balls: [ball('a', ['src/a.txt'], BASE, { proof: { argv: hang } })] });
    const asked: number[] = [];
    const summary = await runSlice({
      file,
      cwd: repo,
      env: engineEnv({ VERI_TIMEOUT: '2m' }),
      agentsFile: agents,
      builder: 'b',
      reviewers: ['r1', 'r2'],
      createRunner: () => ({
        name: 'asking',
        buildRound: async (request) => {
          asked.push(request.timeoutMs);
          return {
            receipt: 0,
            reason: 'held by the test',
            candidate: null,
            commit: null,
            proof: null,
            changed: [],
            champion: null,
            jury: null,
            reproof: null,
            builder: { agent: 'b', family: 'fb', leaf: 'x', status: null },
            leaves: [],
          };
        },
        releaseBall: async () => undefined,
        close: async () => undefined,
      }),
    });
    assert.is(summary.receipt, 0);
    assert.equal(asked, [120_000]);
    const killed = await leapSlice(
      repo,
      ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2', '--json'],
      engineEnv({ VERI_TIMEOUT: '1s' }),
    );
    assert.is(killed.code, 3, killed.stderr);
    const round = readLeap<{ proof: { code: number }; reason: string }>(repo, 'timed', 'a', 'round-1.json');
    assert.is(round?.proof.code, 124);
    assert.match(round?.reason ?? '', /^the proof could not run: it ran past its time limit \(1s\) and was ended/);
    const { repo: fresh } = setupRepo(BASE);
    const bad = await leapSlice(
      fresh,
      ['run', file, '--agents', agents, '--builder', 'b', '--reviewers', 'r1,r2'],
      engineEnv({ VERI_TIMEOUT: 'soon' }),
    );
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /VERI_TIMEOUT.*"soon"/);
    untouched(fresh);
  },
);

const cost = suite('--max-cost');
cost.after.each(cleanupTempDirs);

cost('past the budget, the balls not yet done are held, and the run says what was spent on what', async () => {
  const base = { 'src/a.txt': 'old a\n', 'src/b.txt': 'old b\n', 'src/c.txt': 'old c\n' };
  const { repo, dir } = setupRepo(base);
  const balls = ['a', 'b', 'c'].map((id) =>
    ball(id, [`src/${id}.txt`], base, { proof: { argv: contentProof({ [`src/${id}.txt`]: `${id}!\n` }) } }),
  );
  const file = writeSlice(dir, { id: 'budget', balls });
  const plan = Object.fromEntries(
    ['a', 'b', 'c'].map((id) => [
      id,
      { '*': { edits: [{ path: `src/${id}.txt`, content: `${id}!\n` }], cost_usd: 0.4 } },
    ]),
  );
  // The builder answers as `claude -p --output-format json` does, with its cost; its entry passes BUILDER_* into its sandbox.
  const agents = writeAgents(dir, plan, {
    paid: { plugin: 'claude', bin: join(fixtures, 'builder.mjs'), pass_env: ['BUILDER_*'], paths: { write: [dir] } },
  });
  const env = engineEnv({ BUILDER_CLAUDE_JSON: '1', BUILDER_PLAN: join(dir, 'plan.json') });
  // A user's EDITOR, VISUAL and PAGER (which simple-git refuses to pass on to git) do not stop the engine.
  const saved = { EDITOR: process.env.EDITOR, VISUAL: process.env.VISUAL, PAGER: process.env.PAGER };
  Object.assign(process.env, { EDITOR: 'vim', VISUAL: 'code --wait', PAGER: 'less' });
  let out: Awaited<ReturnType<typeof leapSlice>>;
  try {
    // One ball at a time (fan-out is the default), so the spending order is a, then b, then c.
    out = await leapSlice(
      repo,
      [
        'run',
        file,
        '--jobs',
        '1',
        '--agents',
        agents,
        '--builder',
        'paid',
        '--reviewers',
        'r1,r2',
        '--max-cost',
        '0.5',
        '--json',
      ],
      env,
    );
  } finally {
    for (const [key, value] of Object.entries(saved))
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
  }
  assert.is(out.code, 3, out.stderr);
  const s = JSON.parse(out.stdout) as {
    balls: { id: string; receipt: number; reason: string }[];
    spent: { usd: number; leaves: { leaf: string; usd: number | null }[] };
  };
  // a spent 0.40; b's builder spent 0.40 more than the 0.10 left (its work undone); c never started.
  assert.equal(
    s.balls.map((b) => [b.id, b.receipt]),
    [
      ['a', 1],
      ['b', 0],
      ['c', 0],
    ],
  );
  assert.match(
    s.balls[1]?.reason ?? '',
    /^the cost budget is spent: build-b-1 cost \$0\.4000, \$0\.1000 of --max-cost was left/,
  );
  assert.match(
    s.balls[2]?.reason ?? '',
    /the cost budget is spent: \$0\.8000 of --max-cost \$0\.5 \(build-a-1 \$0\.4000, build-b-1 \$0\.4000\)/,
  );
  assert.is(Math.round(s.spent.usd * 100), 80);
  assert.match(out.stderr, /spent \$0\.8000 of --max-cost \$0\.5/);
  assert.not.ok(existsSync(join(repo, '.tdd', 'build-c-1.pid')), 'no leaf past the budget');
  assert.ok(existsSync(join(repo, '.leap', 'budget', 'c', 'checkpoint.md')));
  assert.is(readLeap(repo, 'budget', 'record.json'), null);
  // Checked after the builder's leaf too: one that spends more than is left holds its ball before any jury.
  const dear = writeSlice(dir, { id: 'dear', balls: [balls[0]] }, 'dear.json');
  writeAgents(
    dir,
    { a: { '*': { edits: [{ path: 'src/a.txt', content: 'a!\n' }], cost_usd: 0.6 } } },
    {
      paid: { plugin: 'claude', bin: join(fixtures, 'builder.mjs'), pass_env: ['BUILDER_*'], paths: { write: [dir] } },
    },
  );
  const reviewsBefore = eventsOf(repo, 'review').length;
  const held = await leapSlice(
    repo,
    ['run', dear, '--agents', agents, '--builder', 'paid', '--reviewers', 'r1,r2', '--max-cost', '0.5', '--json'],
    env,
  );
  assert.is(held.code, 3, held.stderr);
  assert.match(
    (JSON.parse(held.stdout) as { balls: { reason: string }[] }).balls[0]?.reason ?? '',
    /^the cost budget is spent: build-a-1 cost \$0\.6000, \$0\.5000 of --max-cost was left; its work is undone, unjudged$/,
  );
  assert.is(eventsOf(repo, 'review').length, reviewsBefore, 'no juror was paid for');
  assert.is(showFile(repo, 'leap/dear/a', 'src/a.txt'), 'old a\n');
});

input.run();
cost.run();
