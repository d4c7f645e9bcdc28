// What `leap init` shows: the plan before writing, the next steps at the end, and its --json.
import { type AgentCli, loginWords } from './agent-clis.js';
import { type NextFacts, nextSteps } from './init-next.js';
import type { InitChoices, PlannedFile } from './init-plan.js';
import type { TestCommandCandidate } from './test-command.js';

/** What `leap init` found, decided and did (its --json). */
export interface InitReport {
  root: string;
  written: boolean;
  testCommand: { command: string; source: string } | null;
  candidates: TestCommandCandidate[];
  agents: AgentCli[];
  issue: number;
  /** The trial issue (--try) run by scripted agents, or null. */
  trial: number | null;
  files: { path: string; what: string; status: 'written' | 'kept' | 'not-written' }[];
  next: string[];
  /** What stands before a real run of `issue` (empty: `next` ends with its command). */
  blocked: string[];
  leap: string;
}

export interface Decided {
  choices: InitChoices;
  testCommand: { command: string; source: string } | null;
  candidates: TestCommandCandidate[];
}

export function report(
  decided: Decided,
  files: PlannedFile[],
  written: string[],
  issue: number,
  facts: Pick<NextFacts, 'commit' | 'dirty' | 'leap' | 'agentsUnnamed' | 'branch'> | null,
): InitReport {
  const { root, trial, agents } = decided.choices;
  const testProblem = decided.candidates.find((c) => c.problem !== null)?.problem ?? null;
  const steps =
    facts === null ? { next: [], blocked: [] } : nextSteps({ ...decided.choices, ...facts, issue, testProblem });
  return {
    root,
    written: written.length > 0,
    testCommand: decided.testCommand,
    candidates: decided.candidates,
    agents,
    issue,
    trial,
    files: files.map((f) => ({
      path: f.path,
      what: f.what,
      status: written.includes(f.path) ? 'written' : f.exists ? 'kept' : 'not-written',
    })),
    ...steps,
    leap: facts?.leap ?? 'leap',
  };
}

export function showPlan(decided: Decided, files: PlannedFile[]): string {
  const { choices, testCommand } = decided;
  const lines = [`leap init in ${choices.root}`, ''];
  lines.push(
    testCommand === null
      ? 'Test command: none (leap.config.json leaves it out; leap tdd run will ask for --test-cmd)'
      : `Test command: ${testCommand.command} (${testCommand.source})`,
  );
  for (const c of decided.candidates) {
    for (const note of c.notes) lines.push(`  note: ${note}`);
    if (c.problem !== null) lines.push(`  not written: ${c.command}: ${c.problem}`);
  }
  const width = Math.max(...choices.agents.map((a) => a.name.length));
  const state = (a: AgentCli) =>
    a.path === null ? 'not installed' : `installed at ${a.path}, ${loginWords(a)} (${a.why})`;
  lines.push('Agent CLIs:', ...choices.agents.map((a) => `  ${a.name.padEnd(width)}  ${state(a)}`), '');
  for (const file of files) {
    if (file.exists) lines.push(`--- ${file.path} (${file.what}): exists, kept as it is`);
    else if (file.what === 'skill' || file.what.startsWith('trial '))
      lines.push(`--- ${file.path} (${file.what}, ${Buffer.byteLength(file.content)} bytes)`);
    else lines.push(`--- ${file.path} (${file.what}, new):`, file.content.replace(/\n$/, ''), '');
  }
  return `${lines.join('\n')}\n`;
}

export function showEnd(files: PlannedFile[], written: string[], result: InitReport): string {
  const kept = files.filter((f) => f.exists).length;
  const issue = files.find((f) => f.what === 'first issue')?.path ?? `issue ${result.issue}`;
  const lines = [
    '',
    `Wrote ${written.length} file${written.length === 1 ? '' : 's'}${kept === 0 ? '' : `, kept ${kept} that existed`}.`,
  ];
  const real = result.blocked.length === 0 ? result.next.at(-1) : undefined;
  const steps = (real === undefined ? result.next : result.next.slice(0, -1)).map((n) => `  ${n}`);
  const trying = result.trial !== null && result.next.some((n) => n.includes(` tdd run --issue ${result.trial} `));
  if (trying)
    lines.push(
      `Next, to try the loop now with scripted agents (issue ${result.trial}, on branch leap/issue-${result.trial}):`,
      ...steps,
    );
  else if (real !== undefined) lines.push(`Next: edit ${issue} (its title, text and criteria), then:`, ...steps);
  else if (steps.length > 0) lines.push('Next:', ...steps);
  if (real !== undefined)
    lines.push(...(trying ? [`Then edit ${issue} (its title, text and criteria), and run it:`] : []), `  ${real}`);
  if (result.blocked.length > 0) {
    lines.push(
      `Before a real run of issue ${result.issue} (edit ${issue} first):`,
      ...result.blocked.map((b) => `  - ${b}`),
    );
    if (result.trial === null)
      lines.push(
        `To try the loop now, with scripted agents and no model: ${result.leap} init --try ` +
          `(or ${result.leap} demo, on a sample project).`,
      );
  }
  return `${[...lines, ''].join('\n')}\n`;
}
