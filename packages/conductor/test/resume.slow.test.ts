// A real `leap tdd run` process SIGKILLed at many moments, then run again, ends exactly as an uninterrupted
// run: the same ledger, the same commit subjects, the same final tree, and no finished work repeated.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, repoRoot } from '@leap/test-utils';
import {
  TEST_CMD,
  cleanEnv,
  commandAgents,
  makeProject,
  planFile,
  readEvents,
  readLog,
  slugSteps,
  subjects,
} from './helpers.js';

const LEAP = join(repoRoot, 'packages/cli/dist/bin/leap.cjs');
const TITLES = ["Keep the user's $HOME", 'Second `step`'];
const resume = suite('leap tdd run: SIGKILL and resume');
resume.after.each(cleanupTempDirs);

interface Project {
  repo: string;
  args: string[];
  agents: ReturnType<typeof commandAgents>;
}

function project(): Project {
  const repo = makeProject(['one', 'two']);
  const agents = commandAgents(slugSteps(TITLES));
  const args = [
    'tdd',
    'run',
    '--issue',
    '1',
    '--test-cmd',
    TEST_CMD,
    '--plan',
    planFile(TITLES),
    '--developer',
    'dev',
    '--verifier',
    'ver',
    '--agents',
    agents.file,
  ];
  return { repo, args, agents };
}

const ENV = cleanEnv({ DEV_SLEEP_MS: '250', VER_SLEEP_MS: '100' });

/** Lines of the run's event log now (0 before it exists). */
function eventCount(repo: string): number {
  try {
    return readFileSync(join(repo, '.tdd/events.jsonl'), 'utf8').split('\n').length - 1;
  } catch {
    return 0;
  }
}

/**
 * Run the bin; with `killAtEvent`, SIGKILL it as soon as the event log holds that many lines (a moment named by
 * what the run has done, not by a clock, so a loaded machine kills at the same place). Resolves to its exit
 * code (null when killed), output and the log's length when it ended.
 */
function runLeap(p: Project, killAtEvent?: number): Promise<{ code: number | null; out: string; events: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [LEAP, ...p.args], {
      cwd: p.repo,
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const watch =
      killAtEvent === undefined
        ? null
        : setInterval(() => {
            if (eventCount(p.repo) >= killAtEvent) child.kill('SIGKILL');
          }, 5);
    child.on('close', (code) => {
      if (watch !== null) clearInterval(watch);
      resolve({ code, out, events: eventCount(p.repo) });
    });
  });
}

function finalState(repo: string) {
  return {
    subjects: subjects(repo),
    tree: git(repo, 'rev-parse', 'HEAD^{tree}').trim(),
    ledger: readFileSync(join(repo, '.tdd/issue-1.md'), 'utf8'),
    status: git(repo, 'status', '--porcelain'),
  };
}

let reference: ReturnType<typeof finalState>;
let events = 0;

resume('the uninterrupted run', async () => {
  const p = project();
  const run = await runLeap(p);
  assert.is(run.code, 0, run.out);
  reference = finalState(p.repo);
  events = run.events;
  assert.is(reference.subjects.length, 7);
  assert.is(reference.status, '');
  assert.match(run.out, 'done: 2 steps of issue 1');
});

resume('killed at many moments, once or twice, each run again ends as the uninterrupted one', async () => {
  const moments = [0.06, 0.15, 0.24, 0.33, 0.42, 0.5, 0.58, 0.66, 0.75, 0.84, 0.93];
  for (const [i, at] of moments.entries()) {
    const p = project();
    const killAt = Math.max(1, Math.round(events * at));
    const first = await runLeap(p, killAt);
    // A second kill, in the resumed run itself, a few events after it starts.
    const second =
      i % 3 === 1 && first.code === null
        ? await runLeap(p, first.events + Math.max(2, Math.round(events * 0.1)))
        : null;
    const last = await runLeap(p);
    // What each run said, for the message of any assertion below: a failure names its own moment.
    const said = `killed at event ${killAt} (${at}) of ${events}:\n${first.out}\n---${second === null ? '' : ` killed again at event ${second.events} (code ${second.code}):\n${second.out}\n---`}\n${last.out}`;
    assert.is(first.code, null, `the run ended before event ${killAt}:\n${first.out}`);
    assert.is(last.code, 0, said);
    const state = finalState(p.repo);
    assert.equal(state, reference, said);
    // No finished work repeated: every phase that ended in a commit was developed once, except one the kill interrupted.
    const launches = readLog(p.agents.devLog).map((l) => `${l.env.VERI_STEP} ${l.env.LEAP_PHASE}`);
    assert.ok(launches.length <= 6 + 2, `${launches.length} developer launches: ${launches.join(' | ')}`);
    const verdicts = readEvents(p.repo).filter((e) => e.event === 'verdict' && e.verdict !== 'PASS');
    assert.equal(verdicts, [], `${JSON.stringify(verdicts)}\n${said}`);
  }
});

resume.run();
