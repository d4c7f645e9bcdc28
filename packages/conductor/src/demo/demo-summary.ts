// The demo's last words: what the run did (steps, commits, verdicts, time) and where to look.
import { join } from 'node:path';
import { shellWord } from '@leap/core';
import { exitCode } from '../exit-codes.js';
import type { TddRunEnd } from '../types.js';
import { DEMO_ISSUE } from './sample-project.js';

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
    ? `bailed (exit ${exitCode(result.outcome)})`
    : `${bail.narration.replace(/\n*$/, '')}\nbail: ${bail.cause} (${bail.class})`;
}
