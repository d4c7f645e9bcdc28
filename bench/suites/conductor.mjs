// The conductor (`leap tdd`): its status command's start-up (at most 1.3x `node -e 0`), the conductor's own
// share of a run's wall time (everything but the leaves and the test runs: at most 5%), and the test-suite
// runs per step, counted from the `suite` events (every suite run the toolchain makes, sandboxed, records one).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TITLES, project, runEnv, runScripted } from './_scripted-run.js';

// The floor of the conductor's own share, in three parts, each what any conductor of this run pays outside
// its leaves and its counted test runs:
// 1. git: a bash script doing the git work the same run needs and nothing else (no Node, no leaves, no test
//    runs, the files written by the script itself, commits without `git maintenance`, the ticks without
//    fsyncs): preflight, the branch and the plan commit; then per step red (state-folder status, add,
//    commit, the red commit's tests, a scratch tree with them set aside), green (status, add, the tests
//    unchanged, the tick through a copy of the index), refactor (status, add, no test changed, the issue file
//    staged, the clear through a copy of the index). Not in it: the ledger's journal and its fsyncs, the
//    lookup of the repository a tick makes, the ignored entries linked into the red check's copy, the diff the
//    refactor verifier is shown, the event log, the narration, the supervisor's pid and exit files.
// 2. (none for the test runs: each is the `suite` event's duration_ms, timed by the toolchain around the
//    sandboxed run it makes, so the sandbox's cost counts as the test run's, not the conductor's own share;
//    a counting wrapper that wrote a log could not, since a sandboxed suite's /tmp is its own.)
// 3. a conductor in Node starts one Node: `node -e 0` in the run's environment (on this machine
//    NODE_EXTRA_CA_CERTS, read by every Node at start, is most of it).
const FLOOR_SCRIPT = [
  'set -euo pipefail',
  'cd "$1"; shift',
  'mkdir -p src',
  'git symbolic-ref -q HEAD >/dev/null',
  'git status --porcelain -z --untracked-files=all >/dev/null',
  'git checkout -q -b leap/issue-1',
  '{ printf \'# Bench plan\\n\\n## Steps\\n\\n\'; for t in "$@"; do printf -- \'- [ ] %s\\n\' "$t"; done; } > .tdd/issue-1.md',
  'git add -- .tdd/issue-1.md',
  "git -c maintenance.auto=false commit -q -m 'plan: issue 1'",
  'edit() { local text; text=$(<"$1"); printf \'%s\\n\' "${text/"$2"/"$3"}" > "$1"; }',
  'tick() {',
  '  cp .git/index .git/index.floor',
  '  GIT_INDEX_FILE=.git/index.floor git update-index --add -- .tdd/issue-1.md',
  '  local tree commit',
  '  tree=$(GIT_INDEX_FILE=.git/index.floor git write-tree)',
  '  commit=$(printf \'%s\\n\' "$1" | git commit-tree "$tree" -p HEAD)',
  '  git update-ref -m "commit: $1" HEAD "$commit"',
  '  mv .git/index.floor .git/index',
  '}',
  'leaf() { printf \'%s\\n\' "$2" > "$1"; git status --porcelain=v2 --branch -z --untracked-files=all --no-renames -- .tdd >/dev/null; git add -A; }',
  'n=0',
  'for t in "$@"; do',
  '  n=$((n+1))',
  '  leaf "test/step$n.test.js" "test $n"',
  '  git -c maintenance.auto=false commit -q -m "red: $t"',
  '  git show --no-renames --format=%H --name-only -z --diff-filter=AM HEAD >/dev/null',
  '  s=$(mktemp -d); mkdir "$s/tree"',
  '  GIT_INDEX_FILE="$s/index" git --work-tree "$s/tree" read-tree -u --reset HEAD',
  '  GIT_INDEX_FILE="$s/index" git --work-tree "$s/tree" checkout --no-overlay -q HEAD^ -- "test/step$n.test.js"',
  '  rm -rf "$s"',
  '  leaf "src/step$n.js" "export const value = $n;"',
  '  git status --porcelain -z --untracked-files=all -- "test/step$n.test.js" >/dev/null',
  '  edit .tdd/issue-1.md "- [ ] $t" "- [x] $t <!-- refactor-pending -->"',
  '  tick "green: $t"',
  '  leaf "src/step$n.js" "// step $n"',
  '  git status --porcelain -z --untracked-files=all >/dev/null',
  '  edit .tdd/issues/1.md "- [ ] $t" "- [x] $t"',
  '  git add -- .tdd/issues/1.md',
  '  edit .tdd/issue-1.md " <!-- refactor-pending -->" ""',
  '  tick "refactor: $t"',
  'done',
].join('\n');
// Git processes the floor starts: 5 to start, then a step's 21 (red 6, green 7, refactor 8; tick and clear 4 each).
const FLOOR_GIT = { start: 5, step: 21 };

function floorMs(ctx, titles) {
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const dir = join(ctx.tmp, `conductor-floor-${i}`);
    project(dir, titles);
    const started = process.hrtime.bigint();
    const done = spawnSync('bash', ['-c', FLOOR_SCRIPT, 'floor', dir, ...titles], { encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`the floor script failed: ${done.stderr}`);
    runs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return ctx.median(runs);
}

// Node's own start in the run's environment: `node -e 0`, median of 11.
function nodeStartMs(ctx, env) {
  const runs = [];
  for (let i = 0; i < 11; i++) {
    const started = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
    runs.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return ctx.median(runs);
}

// The time the events' intervals cover, overlaps counted once.
function covered(events) {
  const spans = events.map((e) => [Date.parse(e.ts) - e.duration_ms, Date.parse(e.ts)]).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const [from, to] of spans) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

export default async function conductor(ctx) {
  const leap = ctx.bin('cli', 'leap');
  if (!ctx.has(leap, join(ctx.root, 'packages', 'conductor', 'dist', 'index.js'))) {
    ctx.note('conductor: packages/cli/dist/bin/leap.cjs or @leap/conductor is not built; skipped');
    return;
  }
  const titles = TITLES;
  const { repo, status, output, wallMs, events } = runScripted(leap, join(ctx.tmp, 'conductor-run'));
  const env = runEnv();
  if (status !== 0) {
    ctx.note(`conductor: the bench run exited ${status}: ${output.slice(-800)}`);
    return;
  }
  const leavesMs = events.filter((e) => e.event === 'exit').reduce((sum, e) => sum + e.duration_ms, 0);
  // Every suite run of the toolchain (the baseline, each phase's checks, the canaries and the second runs) is a
  // `suite` event with its duration; the budget of runs a step counts those of no purpose of their own.
  const testRuns = events.filter((e) => e.event === 'suite');
  const counted = testRuns.filter((e) => e.purpose === undefined);
  const testsMs = testRuns.reduce((sum, e) => sum + e.duration_ms, 0);
  // A canary runs beside its phase's counted run, and the second run beside the verifier's leaf: the time they
  // cover together (each event ends at its ts and lasted its duration_ms) is what is not the conductor's own.
  const ownMs = wallMs - covered(events.filter((e) => e.event === 'exit' || e.event === 'suite'));
  const share = ownMs / wallMs;
  ctx.note(
    `conductor: a 3-step run took ${wallMs.toFixed(0)} ms: leaves ${leavesMs.toFixed(0)} ms (${events.filter((e) => e.event === 'exit').length}), test runs ${testsMs.toFixed(0)} ms (${testRuns.length} suite events, each sandboxed; ${counted.length} counted, the rest canaries and second runs, some at once with others), the conductor's own ${ownMs.toFixed(0)} ms`,
  );
  const gitFloor = floorMs(ctx, titles);
  const nodeStart = nodeStartMs(ctx, env);
  const floor = gitFloor + nodeStart;
  const pct = (x) => `${((x / wallMs) * 100).toFixed(1)}%`;
  ctx.check(
    "conductor's own share of a 3-step run (not leaves, not test runs)",
    (share * 100).toFixed(1),
    'at most 5%',
    share <= 0.05,
    '%',
    { value: pct(floor), below: floor / wallMs > 0.05 },
  );
  ctx.note(
    `conductor: the floor of its own share, ${floor.toFixed(0)} ms, ${pct(floor)} of the run's wall (the conductor's own is ${(ownMs / floor).toFixed(1)}x that): a bash script doing the same run's git work and nothing else (${FLOOR_GIT.start + FLOOR_GIT.step * titles.length} git processes: ${FLOOR_GIT.start} to start, ${FLOOR_GIT.step} a step) ${gitFloor.toFixed(0)} ms (median of 5, ${pct(gitFloor)}); one Node's start in the run's environment ${nodeStart.toFixed(0)} ms (${pct(nodeStart)})`,
  );
  const perStep = (counted.length - 1) / titles.length;
  ctx.check(
    'test-suite runs per step (besides one baseline per run; canary runs and second runs apart)',
    perStep.toFixed(2),
    'at most 3: red 1 (fails with the new test; the tree without it passed already), green 1, refactor 1',
    perStep <= 3,
  );
  ctx.coldStart('leap tdd status --issue 1', [leap, 'tdd', 'status', '--issue', '1'], {
    cwd: repo,
    env,
    budget: 1.3,
    expect: 0,
  });
  // The README's main job: `leap demo`, its wall time and what of it its leaves took.
  const demoDir = join(ctx.tmp, 'demo');
  const demoStarted = process.hrtime.bigint();
  const demo = spawnSync(process.execPath, [leap, 'demo', '--dir', demoDir], { env, encoding: 'utf8' });
  const demoMs = Number(process.hrtime.bigint() - demoStarted) / 1e6;
  if (demo.status === 0) {
    const demoEvents = readFileSync(join(demoDir, '.tdd', 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const demoLeaves = demoEvents.filter((e) => e.event === 'exit').reduce((sum, e) => sum + e.duration_ms, 0);
    ctx.note(
      `leap demo: ${demoMs.toFixed(0)} ms wall, its ${demoEvents.filter((e) => e.event === 'exit').length} leaves ${demoLeaves.toFixed(0)} ms; the rest is its test runs and the conductor (split above on the counted run)`,
    );
  } else {
    ctx.note(`leap demo exited ${demo.status}: ${(demo.stdout + demo.stderr).slice(-400)}`);
  }
}
