// `leap demo [--dir DIR] [--json]`: the README's main job. Parsing, printing and the exit code live here.
import { join } from 'node:path';
import { UsageError, leapCommand, parseCli, shellWord, type Subcommand } from '@leap/core';
import type { TddRunEnd } from '../index.js';
import { DEMO_ISSUE } from './sample-project.js';

export const DEMO_USAGE = `Usage: leap demo [--dir DIR] [--json]

Makes a small sample project in a new folder (slug-demo: a slugify function tested with node's own
test runner, a git repository), with issue 1 of three acceptance criteria in .tdd/issues/1.md, then
drives the issue end to end with the conductor of \`leap tdd run\` and scripted planner, developer and
verifier agents that replay prepared moves: the plan, then red, green, refactor per step, each verified
blind; one green is rejected by the verifier and revised. Progress is printed as it goes; a summary (steps,
commits, verdicts, time) and where to look end it. Nothing is installed, nothing goes to the network.

Options:
  --dir DIR   the project's folder, new or empty (default: a new temp folder); it is kept;
              a folder an earlier leap demo made resumes its run (after a stop, say)
  --json      print the run's result as one JSON object on stdout (progress goes to stderr)
  --help      this text

Exit codes: 0 done (every step and criterion ticked); 1 the run bailed (last line
"bail: CAUSE (CLASS)"), or git or the built toolchain is missing; 3 stopped by a stop request
(resume with \`leap demo --dir DIR\`); 2 bad input (DIR neither empty nor a demo, an
unknown option).
`;

const OPTIONS = { dir: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

export const demoMain: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, OPTIONS, DEMO_USAGE, { allowPositionals: true });
  if (values.help === true) return (io.stdout(DEMO_USAGE), 0);
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\n${DEMO_USAGE}`);
  const { runDemo } = await import('./run-demo.js');
  const json = values.json === true;
  const started = Date.now();
  const say = json ? io.stderr : io.stdout;
  const { dir, resumed, result } = await runDemo({
    dir: values.dir,
    cwd: io.cwd,
    env: io.env,
    progress: (line) => say(progressLine(Date.now() - started, line)),
    onProject: (project, resume) => {
      const made = `sample project in ${project}; driving issue 1 (three acceptance criteria) with scripted agents`;
      say(`leap demo: ${resume ? `resuming the run of issue 1 in ${project}` : made}\n`);
    },
  });
  if (json) io.stdout(`${JSON.stringify({ dir, resumed, ...result })}\n`);
  else io.stdout(formatDemoSummary(dir, result, leapCommand(io.cwd, io.env)));
  return result.code;
};

// The demo's last words: what the run did (steps, commits, verdicts, time) and where to look.
const BOXES = { done: '[x]', 'refactor-pending': '[~]', todo: '[ ]' } as const;

export function progressLine(ms: number, line: string): string {
  const stamp = `[${(ms / 1000).toFixed(1)}s]`.padStart(8);
  return `${stamp} ${line.replace(/\n*$/, '').replace(/\n/g, `\n${' '.repeat(9)}`)}\n`;
}

/** Ends with the outcome (`bail: CAUSE (CLASS)` on a bail); `leap`: how the user runs leap (`npx leap`, ...). */
export function formatDemoSummary(dir: string, result: TddRunEnd, leap = 'leap'): string {
  const n = DEMO_ISSUE;
  const done = result.steps.filter((s) => s.state === 'done').length;
  const rejects = result.verdicts.filter((v) => v.verdict === 'REJECT');
  const passes = result.verdicts.filter((v) => v.verdict === 'PASS').length;
  const errors = result.verdicts.length - passes - rejects.length;
  const lines = [
    '',
    `Summary: ${done} of ${result.steps.length} steps done, ${result.commits.length} commits, ` +
      `${result.verdicts.length} verdicts, ${result.leaves} leaves, in ${(result.ms / 1000).toFixed(1)} s`,
    '',
    'steps:',
    ...result.steps.map((s) => `  ${BOXES[s.state]} ${s.title}`),
    '',
    `verdicts: ${passes} PASS, ${rejects.length} REJECT${errors > 0 ? `, ${errors} ERROR` : ''}`,
    ...rejects.map((v) => `  REJECT ${v.phase} of ${JSON.stringify(v.step)}: ${v.reason}`),
    '',
    `commits this run made on leap/issue-${n}:`,
    ...result.commits.map((c) => `  ${c.sha.slice(0, 7)} ${c.subject}`),
    '',
    'where to look:',
    `  the run           ${leap} status --dir ${shellWord(dir)}   (or report, or serve: a live page)`,
    `  the project       ${dir}`,
    `  the ledger        ${join(dir, '.tdd', `issue-${n}.md`)}`,
    `  the issue         ${join(dir, '.tdd', 'issues', `${n}.md`)} (its thread: ${n}.thread.md)`,
    `  the events        ${join(dir, '.tdd', 'events.jsonl')}`,
    `  each leaf         ${join(dir, '.tdd')}/NAME.out, NAME.err, NAME.exit`,
    `  the history       git -C ${shellWord(dir)} log --oneline main..leap/issue-${n}`,
    `  the agents' moves ${join(dir, '.leap-demo')}/planner.json, developer.json, verifier.json ` +
      "(each one's prompts beside it, in NAME.json.state/)",
    ...(result.pullRequest === undefined ? [] : [`  the pull request  ${result.pullRequest.url}`]),
    '',
    outcomeLine(dir, result, leap),
  ];
  return `${lines.join('\n')}\n`;
}

function outcomeLine(dir: string, result: TddRunEnd, leap: string): string {
  if (result.outcome === 'done') return `done: every step and criterion of issue ${DEMO_ISSUE} is ticked (exit 0)`;
  const resume = `${leap} demo --dir ${shellWord(dir)}`;
  if (result.outcome === 'stopped')
    return `stopped ${result.stoppedAt ?? 'on a stop request'}; resume with: ${resume} (exit 3)`;
  const bail = result.bail;
  return bail === undefined
    ? 'bailed (exit 1)'
    : `${bail.narration.replace(/\n*$/, '')}\nbail: ${bail.cause} (${bail.class})`;
}
