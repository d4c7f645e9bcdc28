// `leap demo`: a real run through the built umbrella bin (npm run build -w @leap/conductor && npm run build
// -w @leap/cli), then the command in process: bad input, a stop at a step's end, a bail on a dirty tree, a resume.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir, repoRoot, runBin } from '@leap/test-utils';
import type { SubcommandIo } from '@leap/core';
import type { TddRunResult } from '../src/index.js';
import { parseLedger } from '@leap/core/ledger';
import { readEvents } from '@leap/core';
import { demoMain, formatDemoSummary } from '../src/demo/demo-cli.js';
import { DEMO_PLAN, DEMO_REJECT_REASON, DEVELOPER_MOVES } from '../src/demo/demo-moves.js';
import { DEMO_TEST_CMD } from '../src/demo/sample-project.js';

const LEAP = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');
const TITLES = DEMO_PLAN.trim()
  .split('\n')
  .slice(1)
  .map((line) => line.replace(/ \(criterion \d\)$/, ''));
const HOSTILE = TITLES[1] as string;
const SUBJECTS = ['plan: issue 1', ...TITLES.flatMap((t) => [`red: ${t}`, `green: ${t}`, `refactor: ${t}`])];

/** The run's commits on its branch, oldest first. */
const subjects = (dir: string) => git(dir, 'log', '--reverse', '--format=%s', 'main..leap/issue-1').trim().split('\n');
const tree = (dir: string) => git(dir, 'rev-parse', 'leap/issue-1^{tree}').trim();

/** A SubcommandIo that keeps what the command prints; `onText` sees each write, to either stream, as it comes. */
function captureIo(cwd: string, onText: (text: string) => void = () => {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: SubcommandIo = {
    stdout: (t) => (out.push(t), onText(t)),
    stderr: (t) => (err.push(t), onText(t)),
    cwd,
    env: process.env,
    isTTY: false,
  };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

async function rejects(promise: Promise<unknown>, message: RegExp | string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.is((error as { exitCode?: number }).exitCode, 2, 'bad input exits 2');
    assert.match((error as Error).message, message);
    return;
  }
  assert.unreachable('accepted');
}

let uninterrupted: string | null = null;

// ---
const bin = suite('leap demo through the built bin');

bin('drives issue 1 end to end: progress, a rejected green revised, a summary, and where to look', async () => {
  assert.ok(existsSync(LEAP), `${LEAP} is missing: npm run build -w @leap/conductor && npm run build -w @leap/cli`);
  const dir = join(makeTempDir('leap-demo-bin-'), 'demo');
  const run = await runBin(LEAP, ['demo', '--dir', dir]);
  assert.is(run.code, 0, run.stdout + run.stderr);
  uninterrupted = dir;
  const out = run.stdout;
  assert.ok(
    out.startsWith(
      `leap demo: sample project in ${dir}; driving issue 1 (three acceptance criteria) with scripted agents\n`,
    ),
    out,
  );
  assert.match(out, /^ +\[\d+\.\ds\] step 1 red: develop-red$/m, 'progress lines, timed');
  assert.match(out, `verdict green: REJECT: ${DEMO_REJECT_REASON}`);
  assert.match(out, /develop-green-2 \(revision 1\)/);
  assert.match(out, /\nSummary: 3 of 3 steps done, 10 commits, 10 verdicts, \d+ leaves, in \d+\.\d s\n/);
  assert.match(out, 'verdicts: 9 PASS, 1 REJECT\n');
  for (const subject of SUBJECTS)
    assert.match(out, new RegExp(`^  [0-9a-f]{7} ${subject.replace(/[$`'"().*+?[\]\\^|{}]/g, '\\$&')}$`, 'm'));
  for (const place of [
    `the ledger        ${dir}/.tdd/issue-1.md`,
    `the events        ${dir}/.tdd/events.jsonl`,
    `the history       git -C ${dir} log --oneline main..leap/issue-1`,
  ])
    assert.match(out, place);
  assert.ok(out.endsWith('\ndone: every step and criterion of issue 1 is ticked (exit 0)\n'), out.slice(-300));

  // The branch's history is exactly section 9's, the ledger and the issue agree with it, the tree is clean.
  assert.equal(subjects(dir), SUBJECTS);
  const ledger = parseLedger(readFileSync(join(dir, '.tdd', 'issue-1.md'), 'utf8'));
  assert.equal(
    ledger.steps.map((s) => [s.title, s.state]),
    TITLES.map((t) => [t, 'done']),
  );
  assert.is(
    git(dir, 'show', 'leap/issue-1:.tdd/issues/1.md').match(/^- \[x\] /gm)?.length,
    3,
    'the three criteria ticked, and committed',
  );
  assert.is(
    git(dir, 'status', '--porcelain', '--untracked-files=all'),
    '',
    "nothing left uncommitted, the demo's agents ignored",
  );
  assert.is(spawnSync('bash', ['-c', DEMO_TEST_CMD], { cwd: dir }).status, 0, "the project's tests pass at the end");
  // The apostrophe, quotes, $ and backtick of step 2's title, byte for byte in its commits and the thread.
  assert.ok(git(dir, 'log', '--format=%s', 'leap/issue-1').includes(`green: ${HOSTILE}\n`));
  assert.match(readFileSync(join(dir, '.tdd', 'issues', '1.thread.md'), 'utf8'), HOSTILE);

  const events = readEvents(join(dir, '.tdd', 'events.jsonl')).map(
    (r) => r.event as { event: string; phase?: string; verdict?: string },
  );
  assert.equal(
    events.filter((e) => e.event === 'verdict').map((e) => `${e.phase}:${e.verdict}`),
    [
      'red:PASS',
      'green:PASS',
      'refactor:PASS',
      'red:PASS',
      'green:REJECT',
      'green:PASS',
      'refactor:PASS',
      'red:PASS',
      'green:PASS',
      'refactor:PASS',
    ],
  );
  assert.is(
    events.filter((e) => e.event === 'launch').length,
    events.filter((e) => e.event === 'exit').length,
    'every launch has its exit',
  );
  // The revision leaf got the verifier's reason; no verifier prompt holds the developer's own words.
  const prompts = (agent: string) =>
    readdirSync(join(dir, '.leap-demo', `${agent}.json.state`))
      .sort()
      .map((f) => readFileSync(join(dir, '.leap-demo', `${agent}.json.state`, f), 'utf8'));
  const developer = prompts('developer');
  assert.is(developer.length, DEVELOPER_MOVES.length, 'every prepared developer move replayed once');
  assert.match(developer[5] as string, DEMO_REJECT_REASON);
  const [planner] = prompts('planner');
  assert.match(
    planner as string,
    'slugify cuts a slug longer than 20 characters',
    "the planner was given the issue's criteria",
  );
  assert.match(out, /^ +\[\d+\.\ds\] plan: the planner turns issue 1's acceptance criteria into steps$/m);
  for (const prompt of prompts('verifier'))
    for (const move of DEVELOPER_MOVES) assert.not.match(prompt, move.answer as string);
});

bin('--help answers, and a folder that is neither empty nor a demo is refused with nothing touched', async () => {
  const help = await runBin(LEAP, ['demo', '--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /^Usage: leap demo \[--dir DIR\] \[--json\]\n/);
  assert.match(help.stdout, /Exit codes: 0 done/);
  const dir = makeTempDir('leap-demo-full-');
  writeFileSync(join(dir, 'mine.txt'), 'keep me\n');
  const run = await runBin(LEAP, ['demo', '--dir', dir]);
  assert.is(run.code, 2);
  assert.is(run.stdout, '');
  assert.match(
    run.stderr,
    `leap: --dir ${JSON.stringify(dir)}: expected a new or empty folder (or one an earlier leap demo made, to resume it), found 1 entry in ${dir} (mine.txt)`,
  );
  assert.equal(readdirSync(dir), ['mine.txt']);
});

// ---
const inProcess = suite('demoMain in process');
// The bin suite's uninterrupted run is compared with the resumed one, so folders go only at the very end.
inProcess.after(cleanupTempDirs);

inProcess('usage and bad input: --help, an unknown option, an argument, a file as --dir', async () => {
  const cwd = makeTempDir('leap-demo-args-');
  const help = captureIo(cwd);
  assert.is(await demoMain(['--help'], help.io), 0);
  assert.match(help.out(), 'Usage: leap demo');
  await rejects(demoMain(['--dri', 'x'], captureIo(cwd).io), /Unknown option '--dri'/);
  await rejects(demoMain(['now'], captureIo(cwd).io), 'unexpected argument "now"');
  writeFileSync(join(cwd, 'a-file'), '');
  await rejects(
    demoMain(['--dir', 'a-file'], captureIo(cwd).io),
    `--dir "a-file": expected a new or empty folder, found a file at ${join(cwd, 'a-file')}`,
  );
  await rejects(demoMain(['--dir', ''], captureIo(cwd).io), 'Expected --dir to name a folder, got ""');
  assert.equal(readdirSync(cwd), ['a-file'], 'nothing made');
  const noGit = captureIo(cwd);
  noGit.io.env = { ...process.env, PATH: makeTempDir('leap-demo-nopath-') };
  try {
    await demoMain(['--dir', 'demo'], noGit.io);
    assert.unreachable('ran without git');
  } catch (error) {
    assert.is((error as { exitCode?: number }).exitCode, 1);
    assert.match((error as Error).message, /^leap demo needs git on PATH, and could not run it: spawnSync git ENOENT/);
  }
  assert.equal(readdirSync(cwd), ['a-file'], 'nothing made without git');
});

/** Run `leap tdd stop MODE` in the demo's folder once a progress line includes `when`, as a person would. */
function stopWhen(when: string, mode: string, dirOf: (text: string) => string | null) {
  let dir: string | null = null;
  let stopped = false;
  return (text: string) => {
    dir ??= dirOf(text);
    if (!stopped && dir !== null && text.includes(when)) {
      stopped = true;
      execFileSync(process.execPath, [LEAP, 'tdd', 'stop', mode], { cwd: dir, stdio: 'ignore' });
    }
  };
}
const announced = (text: string) => /sample project in (.+); driving issue 1/.exec(text)?.[1] ?? null;

inProcess(
  'in a new temp folder: stopped at a leaf mid-step (exit 3), then resumed with --dir to the end of an uninterrupted run',
  async () => {
    const first = captureIo(
      makeTempDir('leap-demo-cwd-'),
      stopWhen('step 1 green: develop-green', 'at-leaf', announced),
    );
    assert.is(await demoMain(['--json'], first.io), 3, first.err());
    const stop = JSON.parse(first.out()) as TddRunResult & { dir: string; resumed: boolean };
    const dir = stop.dir;
    try {
      assert.equal([announced(first.err()), stop.resumed, stop.outcome, stop.code], [dir, false, 'stopped', 3]);
      assert.ok(dir.startsWith(realpathSync(tmpdir())), dir);
      assert.equal(
        stop.steps.map((s) => s.state),
        ['todo', 'todo', 'todo'],
        'stopped inside step 1',
      );
      assert.match(first.err(), /\[\d+\.\ds\] step 1 red: develop-red\n/, 'with --json, progress goes to stderr');
      assert.match(
        formatDemoSummary(dir, stop),
        new RegExp(
          `\\nstopped at step 1 "${TITLES[0]}", before (develop|verify)-green; resume with: leap demo --dir ${dir} \\(exit 3\\)\\n$`,
        ),
      );

      const resumed = captureIo(makeTempDir('leap-demo-cwd-'));
      assert.is(await demoMain(['--dir', dir], resumed.io), 0, resumed.out());
      assert.ok(resumed.out().startsWith(`leap demo: resuming the run of issue 1 in ${dir}\n`));
      assert.match(
        resumed.out(),
        /\nSummary: 3 of 3 steps done, 8 commits, 9 verdicts, /,
        'only what was left was done',
      );
      assert.match(resumed.out(), /\ndone: every step and criterion of issue 1 is ticked \(exit 0\)\n$/);
      assert.equal(subjects(dir), SUBJECTS, 'the history of an uninterrupted run');
      assert.is(git(dir, 'status', '--porcelain', '--untracked-files=all'), '');
      if (uninterrupted !== null) {
        assert.is(
          readFileSync(join(dir, '.tdd', 'issue-1.md'), 'utf8'),
          readFileSync(join(uninterrupted, '.tdd', 'issue-1.md'), 'utf8'),
        );
        assert.is(tree(dir), tree(uninterrupted), 'the same final tree as the uninterrupted run');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

inProcess(
  'in a folder named with a space and an apostrophe: a dirty tree on resume bails dirty-tree (exit 1) and touches nothing',
  async () => {
    const cwd = makeTempDir('leap-demo-resume-');
    const dir = join(cwd, "it's a demo");
    const first = captureIo(
      cwd,
      stopWhen('verdict red: PASS', 'at-ledger', () => dir),
    );
    assert.is(await demoMain(['--dir', "it's a demo"], first.io), 3, first.out());
    // The summary's commands paste into a shell as they are.
    const history = /the history +(git .*)$/m.exec(first.out())?.[1] ?? '';
    assert.is(history, `git -C '${cwd}/it'\\''s a demo' log --oneline main..leap/issue-1`);
    assert.is(
      spawnSync('bash', ['-c', history], { encoding: 'utf8' }).stdout.trim().split('\n').length,
      4,
      'plan, red, green, refactor',
    );
    assert.match(first.out(), `resume with: leap demo --dir '${cwd}/it'\\''s a demo' (exit 3)`);

    writeFileSync(join(dir, 'notes.txt'), "a person's notes\n");
    const dirty = captureIo(cwd);
    assert.is(await demoMain(['--dir', dir], dirty.io), 1);
    assert.match(dirty.out(), `leap demo: resuming the run of issue 1 in ${dir}\n`);
    assert.match(dirty.out(), /notes\.txt/, 'the narration names the file');
    assert.match(dirty.out(), /\nbail: dirty-tree \(process\)\n$/);
    // Preflight comes before anything is touched (CONTRACT section 9): the person's file is theirs, not a half-done step.
    assert.is(
      existsSync(join(dir, 'notes.txt')) ? readFileSync(join(dir, 'notes.txt'), 'utf8') : '(removed by the bail)',
      "a person's notes\n",
      'a dirty-tree bail leaves the tree as it found it',
    );
  },
);

bin.run();
inProcess.run();
