// leap-ledger: queries load nothing that runs git; the rest loads when it runs (docs/decisions/lazy-loading.md).
import { UsageError, dispatcher, parseCli, resolveStateDir, writeFd, type Action, type CliOption } from '@leap/core';
import { currentOrLastDone, currentStep, nextPendingRefactor, nextUnchecked } from '@leap/core/ledger';
import { parseLedger, validateLedger, type Ledger, type LedgerProblem, type LedgerStep } from '@leap/core/ledger';
import { EXIT, LEDGER_HINT, hasPendingTransaction, readLedger, readStdin, type LedgerLocation } from './input.js';
import { COMMANDS, FOOTER, usageOf } from './usage.js';

/** What a command reads and writes (stdin whole, a UsageError on a terminal), from the bin or from tests. */
export const processIo = () => ({
  stdout: (text: string) => writeFd(1, text),
  stderr: (text: string) => writeFd(2, text),
  stdin: readStdin,
  cwd: process.cwd(),
  env: process.env,
});

export type CliIo = ReturnType<typeof processIo>;

/** A command's arguments (a string option's value is data, even `-v` or `--help`), at most `max` positionals. */
export function parseCommand<T extends Options>(argv: string[], options: T, usage: string, max: number) {
  const parsed = parseCli(argv, options, usage, { allowPositionals: true });
  const extra = parsed.positionals.slice(max).map((p) => JSON.stringify(p));
  const unexpected = `unexpected argument${extra.length === 1 ? '' : 's'} ${extra.join(' ')}\n${usage}`;
  if (extra.length > 0) throw new UsageError(unexpected);
  return parsed;
}

type Options = Record<string, CliOption>;

const QUERIES = {
  current: currentStep,
  'current-or-last-done': currentOrLastDone,
  'next-unchecked': nextUnchecked,
  'next-pending-refactor': nextPendingRefactor,
};

export type StepQuery = keyof typeof QUERIES;

/** Answer one step query; null means nothing is left (exit 1). */
export const queryStep = (ledger: Ledger, query: StepQuery): LedgerStep | null => QUERIES[query](ledger);

const stepJson = (s: LedgerStep) =>
  `${JSON.stringify({ state: s.state, title: s.title, line: s.line, criterion: s.criterion })}\n`;

/** A step query's answer: the title byte for byte, or its JSON record. */
export const formatStep = (step: LedgerStep, json?: boolean): string => (json ? stepJson(step) : `${step.title}\n`);

/** `list`: one `STATE<TAB>TITLE` line a step, or JSON lines. */
export const formatList = (steps: readonly LedgerStep[], json?: boolean): string =>
  steps.map((s) => (json ? stepJson(s) : `${s.state}\t${s.title}\n`)).join('');

/** `validate`: `FILE:LINE: message` lines, or JSON lines. */
export const formatProblems = (problems: readonly LedgerProblem[], json?: boolean): string =>
  problems.map((p) => (json ? `${JSON.stringify(p)}\n` : `${p.file}:${p.line}: ${p.message}\n`)).join('');

async function runQuery(command: string, argv: string[], io: CliIo): Promise<number> {
  const options = { issue: { type: 'string' }, ledger: { type: 'string' }, json: { type: 'boolean' } } as const;
  const { issue, ledger: path, json } = parseCommand(argv, options, usageOf(command), 0).values;
  const { text, file } = await readAfterRecovery({ issue, ledger: path, cwd: io.cwd, env: io.env }, io);
  if (command === 'validate') {
    const problems = validateLedger(text, file);
    io.stdout(formatProblems(problems, json));
    return problems.length === 0 ? EXIT.ok : EXIT.nothing;
  }
  const ledger = parseLedger(text, file);
  const step = command === 'list' ? null : queryStep(ledger, command as StepQuery);
  io.stdout(command === 'list' ? formatList(ledger.steps, json) : step === null ? '' : formatStep(step, json));
  return command !== 'list' && step === null ? EXIT.nothing : EXIT.ok;
}

// Recover first, so the answer agrees with git; piped bytes of the undone tick are answered from the restored file.
async function readAfterRecovery(at: LedgerLocation, io: CliIo) {
  const stateDir = resolveStateDir(io.env, io.cwd);
  const stdin = () => io.stdin(LEDGER_HINT);
  if (!hasPendingTransaction(stateDir)) return readLedger(at, stdin);
  const { recoverLedger, sha256 } = await import('./transaction.js');
  const report = await recoverLedger(stateDir, { env: io.env });
  const input = readLedger(at, stdin);
  if (report?.outcome !== 'undone' || input.path !== null || sha256(input.bytes) !== report.interruptedSha)
    return input;
  io.stderr(`leap-ledger: the piped ledger was the interrupted tick's; answering from the restored ${report.ledger}\n`);
  return readLedger({ ledger: report.ledger, cwd: io.cwd, env: io.env });
}

// `--help` or `-h` before `--`, unless it is a string option's value (`--step --help` is a title).
function asksForHelp(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    if (argv[i] === '--help' || argv[i] === '-h') return true;
    if (/^(?:--(?:issue|ledger|step|body|match|plan|message)|-m)$/.test(argv[i] as string)) i++;
  }
  return false;
}

const ACTIONS: Record<string, Action<CliIo>> = Object.fromEntries(
  Object.entries(COMMANDS).map(([command, [group, summary, usage]]) => {
    const load = async () => {
      const isQuery = command in QUERIES || command === 'list' || command === 'validate';
      const changes = isQuery ? null : await import('./change-commands.js');
      return async (argv: string[], io: CliIo) => {
        if (asksForHelp(argv)) return (io.stdout(`${usage}\n`), EXIT.ok);
        return changes === null ? runQuery(command, argv, io) : changes.runChange(command, argv, io);
      };
    };
    return [command, { summary, group, load }];
  }),
);

export const main = (argv: string[], io: CliIo): Promise<number> =>
  dispatcher<CliIo>('leap-ledger', ACTIONS, { noun: 'COMMAND', footer: FOOTER })(argv, io);
