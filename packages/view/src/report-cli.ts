// `leap report [--out FILE]` (CONTRACT section 10): one self-contained HTML file of the runs of this repository.
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import {
  dirOption,
  ensureStateDir,
  LeapError,
  runGitSync,
  UsageError,
  writeFileAtomic,
  type Subcommand,
} from '@leap/core';
import { viewOptions } from './_text.js';
import { collectView } from './collect-view.js';
import { renderReport } from './report-html.js';

export const REPORT_USAGE = `Usage: leap report [--dir DIR] [--out FILE] [--json]

Writes one self-contained HTML file (it opens with no network) of the runs of this repository: a
timeline of every leaf from launch to exit, coloured by status and grouped by step and phase, with
verdicts, revisions, bails and stops on it; each ledger's progress over time; the waves and receipts
of slices; tokens and cost per leaf, step, issue and slice. Every text from the run is escaped.
Reads .tdd/ (or VERI_STATE_DIR) and .leap/ at the repository root.

Options:
  --dir DIR   the repository to report on (default: the current one)
  --out FILE  where to write it (default: leap-report.html in the state folder, which git ignores)
  --json      print {"file", "bytes", "events", "leaves", "problems"} instead of the path
  --help      this text

Exit codes:
  0  written (lines of the log that are not events are listed in its Problems section)
  2  bad arguments, or no event log to report on (nothing is written)`;

export const reportMain: Subcommand = async (argv, io) => {
  const values = viewOptions(argv, { out: { type: 'string', short: 'o' } }, REPORT_USAGE, io);
  if (values === null) return 0;
  if (values.out === '') throw new UsageError(`Expected --out to name a file, got ""\n${REPORT_USAGE}`);
  const view = collectView({ cwd: dirOption(io.cwd, values.dir), env: io.env });
  const none = `no event log at ${view.eventsFile}: nothing has run in this repository, so there is nothing to report`;
  if (!view.log.exists) throw new LeapError(none, { exitCode: 2 });
  const file = resolve(io.cwd, values.out ?? `${view.stateDir}/leap-report.html`);
  let bytes: number;
  try {
    if (values.out === undefined) ensureStateDir(view.stateDir);
    else mkdirSync(dirname(file), { recursive: true });
    bytes = writeFileAtomic(file, (out) => renderReport(view, out), { durable: false });
  } catch (cause) {
    throw new LeapError(`cannot write the report to ${file}: ${(cause as Error).message}`, { exitCode: 2, cause });
  }
  const problems = view.log.problems.length + view.model.unknown.length + view.fileProblems.length;
  const summary = { file, bytes, events: view.log.events, leaves: view.model.leaves.length, problems };
  io.stdout(values.json === true ? `${JSON.stringify(summary)}\n` : `${file}\n`);
  if (values.out !== undefined && isTrackedPlace(view.repo, file))
    io.stderr(
      `leap report: ${file} is in the repository and not ignored, so git status shows it; ` +
        'without --out the report goes into the state folder, which git ignores\n',
    );
  return 0;
};

// Whether `file` lies in the work tree of `repo` where git would list it as untracked (not ignored).
function isTrackedPlace(repo: string, file: string): boolean {
  const rel = relative(repo, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return false;
  return runGitSync(['check-ignore', '-q', '--', rel], { cwd: repo, allowFailure: true }).code === 1;
}
