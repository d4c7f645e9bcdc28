// Drives the built bin as a user does: `node packages/cli/dist/bin/leap.cjs ...` in the project's folder, the
// sandbox on (the default), with command agents of fixtures/ that apply the project's patches.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git, makeTempDir, repoRoot } from '@leap/test-utils';
import { HERE, type Project, patchFile } from './projects.js';

const LEAP = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');

export interface Attempt {
  patch?: string;
  blocked?: string;
  /** Block until stopped: a leaf the harness stops the run in, to resume it from there. */
  wait?: boolean;
}

/** An agents file: developer `dev` (and builder) applying `plan`'s patches, verifier/reviewers `ver` running the suite. */
export function agentsFor(
  p: Project,
  plan: { steps?: Record<string, Record<string, Attempt[]>>; balls?: Record<string, Attempt[]> },
) {
  const dir = makeTempDir('leap-real-agents-');
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const log = join(dir, 'dev.log');
  const paths = { write: [dir] };
  const agent = (script: string, family: string, args: string[]) => ({
    plugin: 'command',
    family,
    command: [process.execPath, join(HERE, 'fixtures', script), ...args],
    paths,
  });
  const agents = {
    dev: agent('patch-agent.mjs', 'replayed', [planFile, log]),
    ver: agent('suite-verifier.mjs', 'checker', [p.hidden ?? '']),
    ver2: agent('suite-verifier.mjs', 'checker2', [p.hidden ?? '']),
  };
  const file = join(dir, 'agents.json');
  writeFileSync(file, JSON.stringify({ agents }, null, 1));
  const stepPlan = join(dir, 'steps.txt');
  writeFileSync(stepPlan, `Plan\n${p.step} (criterion 1)\n`);
  return { file, dir, log, stepPlan };
}

/** The honest step: red, green and refactor patches. */
export const honest = (p: Project): Record<string, Attempt[]> => ({
  red: [{ patch: patchFile(p, 'step1-red') }],
  green: [{ patch: patchFile(p, 'step1-green') }],
  refactor: [{ patch: patchFile(p, 'step1-refactor') }],
});

/** The environment of a user's shell: no VERI_* or LEAP_* of whoever runs these tests. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(VERI_|LEAP_|NODE_V8_COVERAGE|NX_)/.test(k)) env[k] = v;
  return env;
}

export interface LeapRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  /** The suite's output behind each verdict that was not a PASS (`.tdd/verdict-PHASE.err`, emptied by the next). */
  suites: string;
}

/** A record of .tdd/events.jsonl to act on, and what to do then: SIGKILL the run, or ask it to stop now. */
export interface At {
  when: (record: Record<string, unknown>) => boolean;
  act: 'kill' | 'stop';
}

/**
 * `leap ARGS` in `cwd`; with `at`, the run is SIGKILLed, or asked to stop (`leap tdd stop now`, exit 3), as soon
 * as .tdd/events.jsonl holds a record that matches (the log is read as it grows: the act follows an event, never
 * a sleep).
 */
export function leap(cwd: string, args: string[], at?: At): Promise<LeapRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [LEAP, ...args], { cwd, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let suites = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const events = join(cwd, '.tdd', 'events.jsonl');
    // A resumed run's log holds the records of the runs before it: only those after them count.
    let seen = existsSync(events) ? readFileSync(events, 'utf8').split('\n').length - 1 : 0;
    let acted = at === undefined;
    const read = () => {
      if (!existsSync(events)) return;
      // The last line may be half written: only whole lines count.
      const lines = readFileSync(events, 'utf8').split('\n').slice(0, -1);
      for (const line of lines.slice(seen)) {
        let e: Record<string, unknown>;
        try {
          e = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue; // A line torn by a SIGKILL, run on by the resumed run's first record.
        }
        if (e.event === 'verdict' && e.verdict !== 'PASS') {
          const log = join(cwd, '.tdd', `verdict-${e.phase}.err`);
          if (existsSync(log)) suites += readFileSync(log, 'utf8');
        }
        if (acted || !at!.when(e)) continue;
        acted = true;
        if (at!.act === 'kill') child.kill('SIGKILL');
        else spawn(process.execPath, [LEAP, 'tdd', 'stop', 'now'], { cwd, env: userEnv(), stdio: 'ignore' });
      }
      seen = lines.length;
    };
    const timer = setInterval(read, 20);
    child.on('close', (code, signal) => {
      clearInterval(timer);
      read();
      resolve({ code, signal, out, suites });
    });
  });
}

/** `leap tdd run` of issue 1 with these agents, the project's test command from its leap.config.json. */
export const tddArgs = (agents: { file: string; stepPlan: string }, more: string[] = []) => [
  'tdd',
  'run',
  '--issue',
  '1',
  '--plan',
  agents.stepPlan,
  '--developer',
  'dev',
  '--verifier',
  'ver',
  '--agents',
  agents.file,
  ...more,
];

/** The verdict events of the run, in order. */
export function verdicts(repo: string): { phase: string; verdict: string; reason: string }[] {
  return readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"verdict"'))
    .map((l) => JSON.parse(l) as { event: string; phase: string; verdict: string; reason: string })
    .filter((e) => e.event === 'verdict')
    .map(({ phase, verdict, reason }) => ({ phase, verdict, reason }));
}

/** The verdicts the run narrated (`verdict PHASE: VERDICT: REASON`), in order: the conductor's own REJECTs too. */
export function narrated(out: string): { phase: string; verdict: string; reason: string }[] {
  return [...out.matchAll(/^verdict (red|green|refactor): ([A-Za-z]+): (.*)$/gm)].map(([, phase, verdict, reason]) => ({
    phase: phase!,
    verdict: verdict!,
    reason: reason!,
  }));
}

/** What a run leaves: branch subjects, ledger, tree, status. */
export function outcome(repo: string) {
  return {
    subjects: git(repo, 'log', '--reverse', '--format=%s', 'main..HEAD').trim().split('\n'),
    ledger: readFileSync(join(repo, '.tdd', 'issue-1.md'), 'utf8'),
    tree: git(repo, 'rev-parse', 'HEAD^{tree}').trim(),
    status: git(repo, 'status', '--porcelain', '--untracked-files=all'),
  };
}

/** One line naming the project, the scenario and what the run said, for a failure. */
export const why = (p: Project, scenario: string, run: LeapRun) =>
  `${p.name} (${p.runner}), ${scenario}: exit ${run.code}${run.signal ? ` ${run.signal}` : ''}\n${run.out.split('\n').slice(-25).join('\n')}`;
