// What the suites that run `leap slice run` share (slice-run.mjs, runner-bullmq.mjs): the repository, the
// slice of independent balls, the command agents, the engine's own cost read back from a run's records,
// and the floor of that cost: the git work a ball needs, done by bash. Not a suite: bench/run.mjs takes
// only bench/suites/*.mjs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const BALLS = 8;
const ANSWER = JSON.stringify({
  verdict: 'pass',
  lens: 'defect',
  findings: [],
  reasoning: 'read the file, it holds the ball id',
});

/** `git ARGS` in `dir`, its stdout. */
export function gitIn(dir) {
  return (...args) => execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A repository of 51 files in one commit on main. */
export function makeRepo(dir) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  const git = gitIn(dir);
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Bench');
  git('config', 'user.email', 'bench@test.invalid');
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  for (let i = 0; i < 50; i++) writeFileSync(join(dir, 'src', `file-${i}.js`), `export const n${i} = ${i};\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return git;
}

/**
 * A slice of `count` balls (default BALLS), each creating src/bN.txt; its proof (no shell) says the file is not
 * empty. `wave` > 0: the balls in waves of that many, each ball depending on every ball of the wave before.
 */
export function writeSliceFile(dir, id, { count = BALLS, wave = 0 } = {}) {
  const waveOf = (i) => (wave > 0 ? Math.floor(i / wave) : 0);
  const balls = Array.from({ length: count }, (_, i) => ({
    id: `b${i}`,
    goal: `src/b${i}.txt holds its id`,
    spec: 'Write the ball id into the file.',
    scope: [{ path: `src/b${i}.txt`, sha256: null }],
    proof: { argv: ['test', '-s', `src/b${i}.txt`] },
    rollback: 'delete the file',
    deps: waveOf(i) === 0 ? [] : Array.from({ length: wave }, (_, j) => `b${(waveOf(i) - 1) * wave + j}`),
  }));
  const file = join(dir, `${id}.json`);
  writeFileSync(file, JSON.stringify({ id, base: 'HEAD', spine: 'integrator', balls }));
  return file;
}

/** Builder `builder` (writes its ball's file after `buildSleep` s), reviewers r1 and r2 (pass after `reviewSleep` s). */
export function writeAgentsFile(dir, buildSleep, reviewSleep = 0) {
  const sleep = (s) => (s > 0 ? `sleep ${s}; ` : '');
  const builder = [
    'bash',
    '-c',
    `cat >/dev/null; ${sleep(buildSleep)}printf '%s\\n' "$LEAP_BALL" > "src/$LEAP_BALL.txt"; echo built`,
  ];
  const reviewer = ['bash', '-c', `cat >/dev/null; ${sleep(reviewSleep)}echo '${ANSWER}'`];
  const file = join(dir, `agents-${buildSleep}-${reviewSleep}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      agents: {
        builder: { plugin: 'command', family: 'fb', command: builder },
        r1: { plugin: 'command', family: 'f1', command: reviewer },
        r2: { plugin: 'command', family: 'f2', command: reviewer },
      },
    }),
  );
  return file;
}

/**
 * The engine's own cost per ball of a run of `slice` in `repo` that took `wall` ms: the wall time less every
 * leaf's own time (the exit events' duration_ms: the builders', the jurors' and the proofs', each a leaf).
 */
export function ownCostPerBall({ repo, wall, balls = BALLS }) {
  const leaves = readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"exit"'))
    .map((l) => JSON.parse(l))
    .filter((e) => e.event === 'exit')
    .reduce((s, e) => s + e.duration_ms, 0);
  return (wall - leaves) / balls;
}

/**
 * The floor of the engine's own cost: bash doing, in a repository made by makeRepo, the git work of one
 * `leap slice run` of the slice above (--jobs 1, every ball passing in one round), and nothing else: no
 * Node, no leaf, no proof, no record. Argument: the number of balls. Each git call names what it is for.
 */
export const FLOOR_SCRIPT = `set -eu
n=$1 s=f
base=$(git rev-parse --verify --quiet --end-of-options 'HEAD^{commit}')   # the slice's base, resolved once
git rev-parse --verify --quiet --end-of-options "refs/heads/leap/$s/spine^{commit}" >/dev/null || true   # a spine already?
git update-ref "refs/heads/leap/$s/spine" "$base" ''                      # the spine, made off the base
git var GIT_AUTHOR_IDENT >/dev/null                                       # the builder's side, kept from the jury
git log -1 --format=%an%x00%ae%x00%cn%x00%ce "$base" >/dev/null
git ls-files -z --others --ignored --exclude-standard --directory --no-empty-directory >/dev/null   # entries to link into each worktree
spine=$base
for ((i = 0; i < n; i++)); do
  b=b$i wt=.leap/.worktrees/$s/b$i
  git worktree add -q -B "leap/$s/$b" "$wt" "$base"                       # the ball's worktree on its branch
  git -C "$wt" check-ignore -z -v --stdin <<<"src/$b.txt" >/dev/null || true   # the file map: a scope path git ignores?
  git -C "$wt" status --porcelain=v1 -z --untracked-files=all >/dev/null  # the champion's proof wrote nothing
  printf '%s\\n' "$b" >"$wt/src/$b.txt"                                     # (the builder)
  git -C "$wt" add -A                                                      # the changed paths
  git -C "$wt" diff --cached --name-only --no-renames -z "$base" >/dev/null
  GIT_OPTIONAL_LOCKS=0 git -C "$wt" status --porcelain=v2 -z --branch --untracked-files=all --ignore-submodules=none >/dev/null   # the jury: the tree before
  GIT_OPTIONAL_LOCKS=0 git -C "$wt" status --porcelain=v2 -z --branch --untracked-files=all --ignore-submodules=none >/dev/null   # and after the reviewers
  git -C "$wt" -c maintenance.auto=false commit -q --no-verify --allow-empty -m "leap: $b candidate"   # the candidate
  { head=$(git -C "$wt" status --porcelain=v2 -z --branch --untracked-files=all); } 2>/dev/null   # its sha; the re-proof wrote nothing
  head=\${head#'# branch.oid '} commit=\${head:0:40}
  git worktree remove --force --force "$wt"                                # the ball's end
  tree=$(git merge-tree --write-tree --no-messages "$spine" "$commit")      # the merge onto the spine, no checkout
  merged=$(git commit-tree "$tree" -p "$spine" -p "$commit" -m "leap: merge $b")
  git diff --name-only -z "$tree" "$commit" -- "src/$b.txt" >/dev/null     # its bytes arrived
  git update-ref "refs/heads/leap/$s/spine" "$merged" "$spine"             # the spine moves, compare-and-swap
  spine=$merged
done
git worktree add -q ".leap/.worktrees/$s/spine" "leap/$s/spine"           # the aggregate jury's worktree
GIT_OPTIONAL_LOCKS=0 git -C ".leap/.worktrees/$s/spine" status --porcelain=v2 -z --branch --untracked-files=all --ignore-submodules=none >/dev/null   # its jury
GIT_OPTIONAL_LOCKS=0 git -C ".leap/.worktrees/$s/spine" status --porcelain=v2 -z --branch --untracked-files=all --ignore-submodules=none >/dev/null
git worktree remove --force --force ".leap/.worktrees/$s/spine"
git maintenance run --auto --quiet                                        # what the run's commits skipped
`;
