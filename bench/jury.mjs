// Bench: a jury of three reviewers of three families, each answering after one second. Timed as the
// leap-jury bin run from a shell (a Node start-up included), paired run by run with its floor (the smallest
// Node script spawning the same three reviewers: the budget's figure), the same bin spawned from the
// bench's Node process, and the library call LEAP slices make in their own process.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { timeRuns } from './time-runs.mjs';

const RUNS = 11;
const summary = (runs) => {
  const s = [...runs].sort((a, b) => a - b);
  return { median: s[RUNS >> 1], min: s[0], max: s[RUNS - 1] };
};

const ANSWER = JSON.stringify({ verdict: 'pass', lens: 'defect', findings: [], reasoning: 'ok' });
// Each reviewer reads its prompt, sleeps a second and answers a pass.
const REVIEWER = ['bash', '-c', `cat >/dev/null; sleep 1; echo '${ANSWER}'`];

function setupJury(tmp) {
  const dir = join(tmp, 'jury');
  mkdirSync(join(dir, 'src'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  writeFileSync(join(dir, 'src', 'greet.js'), 'export const greet = () => "hello";\n');
  const agent = (family) => ({ plugin: 'command', family, command: REVIEWER });
  writeFileSync(
    join(dir, 'agents.json'),
    JSON.stringify({ agents: { s1: agent('f1'), s2: agent('f2'), s3: agent('f3') } }),
  );
  const env = { ...process.env, VERI_AGENTS: join(dir, 'agents.json'), VERI_STATE_DIR: join(dir, '.tdd') };
  return { dir, env };
}

const juryArgs = (leapJury) => [
  leapJury,
  '--builder-family',
  'anthropic',
  '--reviewers',
  's1,s2,s3',
  '--intent',
  'greet says hello',
  '--criteria',
  'returns hello',
  '--no-git-aliases',
  'src/greet.js',
];

/** Wall time of `leap-jury` run from a shell (bench/time-runs.sh), from its start to its exit. */
export function benchJury(tmp, leapJury, { withoutCaCerts = false } = {}) {
  const { dir, env } = setupJury(withoutCaCerts ? join(tmp, 'no-ca') : tmp);
  // NODE_EXTRA_CA_CERTS makes every Node start read a CA bundle first (see RESULTS.md); leap-jury uses no TLS.
  if (withoutCaCerts) delete env.NODE_EXTRA_CA_CERTS;
  return summary(
    timeRuns(RUNS, [process.execPath, ...juryArgs(leapJury)], { cwd: dir, env })[1].map((ms) => ms / 1000),
  );
}

/** The same, spawned from this Node process (spawnSync): the fork of this process is counted too. */
export function benchJuryFromNode(tmp, leapJury) {
  const { dir, env } = setupJury(join(tmp, 'from-node'));
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, juryArgs(leapJury), { cwd: dir, env, encoding: 'utf8' });
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (r.status !== 0) throw new Error(`jury exit ${r.status}: ${r.stderr}`);
  }
  return summary(runs);
}

/** Wall time of `conveneJury()` called in this process (@leap/verify's built library entry). */
export async function benchJuryLibrary(tmp, verifyEntry) {
  const { dir, env } = setupJury(join(tmp, 'library'));
  const { conveneJury } = await import(verifyEntry);
  const options = {
    builderFamily: 'anthropic',
    reviewers: ['s1', 's2', 's3'],
    intent: 'greet says hello',
    criteria: 'returns hello',
    files: ['src/greet.js'],
    gitAliases: false,
    cwd: dir,
    env,
  };
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = process.hrtime.bigint();
    const result = await conveneJury(options);
    runs.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (result.value !== 1) throw new Error(`jury: ${result.reason}`);
  }
  return summary(runs);
}

function reviewerPrompt(tmp) {
  const prompt = join(tmp, 'reviewer-prompt.txt');
  writeFileSync(prompt, `${'a line of the envelope\n'.repeat(40)}`);
  return prompt;
}

/** One reviewer alone, a prompt piped in, run from a shell: what a jury of them cannot finish under. */
export function benchReviewer(tmp) {
  return summary(timeRuns(RUNS, REVIEWER, { input: reviewerPrompt(tmp) })[1].map((ms) => ms / 1000));
}

/**
 * Three reviewers started together by one bash (its start counted), each reading the prompt, until the
 * last ends: what three reviewers cost on this machine's cores before any jury code runs. leap-jury's
 * floor is this plus Node's start and exit in place of the bash's.
 */
export function benchReviewersTogether(tmp) {
  const script = `for i in 1 2 3; do ${REVIEWER.slice(0, 2).join(' ')} "$0" < "$1" > /dev/null & done; wait`;
  return summary(timeRuns(RUNS, ['bash', '-c', script, REVIEWER[2], reviewerPrompt(tmp)])[1].map((ms) => ms / 1000));
}

/**
 * Three reviewers spawned by the smallest Node script that can (node:child_process, each in a session of
 * its own with a prompt file for stdin, exit when the last ends; no jury code): the floor of any jury
 * that is a Node process here. leap-jury's own work is what it takes beyond this.
 */
export function benchNodeSpawner(tmp) {
  return summary(timeRuns(RUNS, [process.execPath, writeSpawner(tmp)])[1].map((ms) => ms / 1000));
}

/**
 * The budget's figure: leap-jury against its floor in the same run. Each run times the smallest Node script
 * that spawns the same three reviewers (benchNodeSpawner's) and then leap-jury, back to back from a shell, so
 * both see the same load; the ratio is the median of those paired ratios.
 */
export function benchJuryAgainstSpawner(tmp, leapJury) {
  const { dir, env } = setupJury(join(tmp, 'paired'));
  const [floor, jury] = timeRuns(RUNS, [process.execPath, ...juryArgs(leapJury)], {
    base: [process.execPath, writeSpawner(join(tmp, 'paired'))],
    cwd: dir,
    env,
  });
  const ratios = jury.map((ms, i) => ms / floor[i]).sort((a, b) => a - b);
  return {
    ratio: ratios[RUNS >> 1],
    spread: [ratios[Math.floor((RUNS - 1) / 4)], ratios[Math.ceil((3 * (RUNS - 1)) / 4)]],
    jury: summary(jury.map((ms) => ms / 1000)),
    floor: summary(floor.map((ms) => ms / 1000)),
  };
}

function writeSpawner(tmp) {
  const prompt = reviewerPrompt(tmp);
  const script = join(tmp, 'spawn-three.cjs');
  writeFileSync(
    script,
    `const { spawn } = require('node:child_process');
const { closeSync, openSync } = require('node:fs');
let left = 3;
for (let i = 0; i < 3; i++) {
  const stdin = openSync(${JSON.stringify(prompt)}, 'r');
  const child = spawn(${JSON.stringify(REVIEWER[0])}, ${JSON.stringify(REVIEWER.slice(1))}, { detached: true, stdio: [stdin, 'ignore', 'ignore'] });
  closeSync(stdin);
  child.on('exit', (code) => { if (code !== 0) process.exit(1); if (--left === 0) process.exit(0); });
}
`,
  );
  return script;
}
