// The hot path: list, the step queries and validate. They load the ledger model and nothing that runs git;
// only when an interrupted transaction's journal exists is the recovery code imported.
import { existsSync } from 'node:fs';
import { resolveStateDir } from '@leap/core';
import { parseLedger } from '@leap/core/ledger';
import { EXIT } from '../exit-codes.js';
import { readLedger, type LedgerText } from '../ledger-source.js';
import { formatList, formatStep, queryStep, type StepQuery } from '../queries.js';
import { journalPath, journalTempPath } from '../transaction/journal.js';
import { formatProblems, validateText } from '../validate.js';
import { parseCommand } from './argv.js';
import { USAGE } from './help.js';
import type { CliIo } from './io.js';

const SOURCE_OPTIONS = {
  issue: { type: 'string' },
  ledger: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Run a query subcommand (list, current, ..., validate); returns the exit code. */
export async function runQuery(command: StepQuery | 'list' | 'validate', argv: readonly string[], io: CliIo): Promise<number> {
  const usage = USAGE[command] as string;
  const { values } = parseCommand(argv, SOURCE_OPTIONS, usage, 0);
  const location = { issue: values.issue, ledger: values.ledger, cwd: io.cwd, env: io.env };
  const input = await readAfterRecovery(location, io);
  const json = values.json === true;
  if (command === 'validate') {
    const problems = validateText(input.text, input.file);
    io.stdout(formatProblems(problems, json));
    return problems.length === 0 ? EXIT.ok : EXIT.nothing;
  }
  const ledger = parseLedger(input.text, input.file);
  if (command === 'list') {
    io.stdout(formatList(ledger.steps, json));
    return EXIT.ok;
  }
  const step = queryStep(ledger, command);
  if (step === null) return EXIT.nothing;
  io.stdout(formatStep(step, json));
  return EXIT.ok;
}

// Finish or undo an interrupted tick before answering, so the answer agrees with git. Piped bytes that are the
// interrupted tick's own (read from the file before recovery undid it) are replaced by the restored file.
async function readAfterRecovery(location: Parameters<typeof readLedger>[0], io: CliIo): Promise<LedgerText> {
  const stateDir = resolveStateDir(io.env, io.cwd);
  if (!existsSync(journalPath(stateDir)) && !existsSync(journalTempPath(stateDir))) return readLedger(location, () => io.stdin(STDIN_HINT));
  const { recoverLedger } = await import('../transaction/recover.js');
  const report = await recoverLedger(stateDir, { env: io.env });
  const input = readLedger(location, () => io.stdin(STDIN_HINT));
  if (report === null || report.outcome !== 'undone' || input.path !== null) return input;
  const { createHash } = await import('node:crypto');
  if (createHash('sha256').update(input.bytes).digest('hex') !== report.interruptedSha) return input;
  io.stderr(`leap-ledger: the piped ledger was the interrupted tick's; answering from the restored ${report.ledger}\n`);
  return readLedger({ ledger: report.ledger, cwd: io.cwd, env: io.env });
}

const STDIN_HINT = 'a ledger (cat .tdd/issue-N.md | leap-ledger current), or --issue N or --ledger FILE,';
