// What `leap init` tells a person to do next: only commands that work as printed, else exactly what is missing.
import { shellWord } from '@leap/core';
import type { InitChoices } from './init-plan.js';
import { TRIAL_AGENTS_DIR, TRIAL_TEST_CMD } from './init-trial.js';

export interface NextFacts extends Pick<InitChoices, 'trial' | 'testCommand' | 'agents' | 'developer' | 'verifier'> {
  /** How this leap is run from the repository: `npx leap`, `leap`, `node PATH`. */
  leap: string;
  /** The files the set-up's commit takes: what init wrote that git would track, and the install's own. */
  commit: string[];
  /** The user's other changes in the work tree, which no run starts with. */
  dirty: string[];
  /** The branch checked out now, which the trial's run leaves for its own (null: detached). */
  branch: string | null;
  issue: number;
  testProblem: string | null;
  /** An agents file was written, but the user's own leap.config.json (kept) does not name it. */
  agentsUnnamed: string | null;
}

/** The commands to run next, in order, and what stands before a real run of the first issue (none: it can run). */
export function nextSteps(f: NextFacts): { next: string[]; blocked: string[] } {
  const next: string[] = [];
  if (f.commit.length > 0)
    next.push(`git add -- ${f.commit.map(shellWord).join(' ')} && git commit -m 'Set up leap (leap init)'`);
  // A run starts only from a clean tree: with changes of the user's, no run command would work as printed.
  if (f.dirty.length > 0) return { next, blocked: [dirtyWords(f.dirty), ...blockers(f)] };
  if (f.trial !== null) {
    const options = `--agents ${TRIAL_AGENTS_DIR}/agents.json --test-cmd ${shellWord(TRIAL_TEST_CMD)}`;
    next.push(`${f.leap} tdd run --issue ${f.trial} ${options}`, `${f.leap} report`);
    // The run ends on its branch leap/issue-N; a real run branches from where it starts.
    if (f.branch !== null) next.push(`git checkout ${shellWord(f.branch)}`);
  }
  const blocked = blockers(f);
  if (blocked.length === 0) next.push(`${f.leap} tdd run --issue ${f.issue}`);
  return { next, blocked };
}

function dirtyWords(dirty: string[]): string {
  const shown = `${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? `, and ${dirty.length - 5} more` : ''}`;
  const modules = dirty.includes('node_modules/') ? '; add node_modules/ to .gitignore' : '';
  const clean = 'a run starts only from a clean tree, so commit or stash them';
  return `the work tree has changes that are not leap's (${shown}): ${clean}${modules}`;
}

function blockers(f: NextFacts): string[] {
  const out: string[] = [];
  const installed = f.agents.filter((a) => a.path !== null);
  const developer = installed.find((a) => a.name === f.developer);
  if (developer === undefined) {
    const names = f.agents.map((a) => a.name).join(', ');
    out.push(
      `no agent CLI is on PATH (${names}): install one and log in, ` +
        `then run ${f.leap} init again, which writes an agents file naming it`,
    );
  } else {
    if (developer.loggedIn === false) out.push(`${developer.name} is installed but not logged in: ${developer.why}`);
    if (installed.find((a) => a.name === f.verifier) === undefined) {
      const others = f.agents.filter((a) => a.family !== developer.family).map((a) => a.name);
      out.push(
        `a blind verifier is of another model family than ${developer.name} (${developer.family}): ` +
          `install ${others.join(' or ')} and log in, or run with --allow-same-family`,
      );
    }
  }
  if (f.agentsUnnamed !== null) {
    const agents = `"agents": ${JSON.stringify(f.agentsUnnamed)}`;
    out.push(`leap.config.json is yours and was kept: add ${agents} to it, so the run reads the agents file`);
  }
  if (f.testCommand === null) {
    const why = f.testProblem === null ? 'none was detected' : f.testProblem;
    out.push(`no test command (${why}): add "testCommand" to leap.config.json, or run with --test-cmd CMD`);
  }
  return out;
}
