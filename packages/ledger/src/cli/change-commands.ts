// The changing subcommands (tick, clear-refactor-pending, tick-criterion, preserve-attempt, attempts, init).
// The bin imports this module only when one of them runs: it is where git is.
import { UsageError, checkIssue } from '@leap/core';
import { applyAttempt, formatAttempts, listAttempts } from '../attempts.js';
import { EXIT } from '../exit-codes.js';
import { initLedger } from '../init-ledger.js';
import { preserveAttempt } from '../preserve-attempt.js';
import { readFileBytes } from '../read-input.js';
import { tickIssueCriterion, type CriterionChoice } from '../tick-criterion.js';
import { clearRefactor, tick } from '../tick.js';
import { issueArgument, parseCommand, required } from './argv.js';
import { USAGE } from './help.js';
import type { CliIo } from './io.js';

const COMMIT_OPTIONS = {
  issue: { type: 'string' },
  ledger: { type: 'string' },
  step: { type: 'string' },
  message: { type: 'string', short: 'm' },
  'no-verify': { type: 'boolean', short: 'n' },
  'allow-empty': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** tick and clear-refactor-pending. */
export async function runCommit(command: 'tick' | 'clear-refactor-pending', argv: readonly string[], io: CliIo): Promise<number> {
  const usage = USAGE[command] as string;
  const { values, positionals } = parseCommand(argv, COMMIT_OPTIONS, usage, 1);
  const options = {
    issue: issueArgument(values.issue, positionals[0], usage),
    ledger: values.ledger,
    step: required(values.step, '--step TITLE', usage),
    message: values.message,
    noVerify: values['no-verify'] === true,
    allowEmpty: values['allow-empty'] === true,
    cwd: io.cwd,
    env: io.env,
  };
  const result = command === 'tick' ? await tick(options) : await clearRefactor(options);
  io.stdout(values.json === true ? `${JSON.stringify({ action: command, commit: result.commit, title: result.title, ledger: result.ledger })}\n` : `${result.commit}\n`);
  return EXIT.ok;
}

/** tick-criterion [N] K | --match TEXT. */
export async function runTickCriterion(argv: readonly string[], io: CliIo): Promise<number> {
  const usage = USAGE['tick-criterion'] as string;
  const { values, positionals } = parseCommand(argv, { body: { type: 'string' }, issue: { type: 'string' }, match: { type: 'string' } } as const, usage, 2);
  // K alone, N K, or N with --match: the issue comes first when there is one.
  const issueFirst = positionals.length === 2 || (positionals.length === 1 && values.match !== undefined);
  const issue = issueFirst ? issueArgument(values.issue, positionals[0], usage) : values.issue;
  const k = issueFirst ? positionals[1] : positionals[0];
  if ((k === undefined) === (values.match === undefined)) throw new UsageError(`expected the criterion number K or --match TEXT (one of them)\n${usage}`);
  const choice: CriterionChoice = k !== undefined ? { criterion: checkIssue(k, 'the criterion number K') } : { match: values.match as string };
  await tickIssueCriterion({ body: values.body, issue, choice, cwd: io.cwd, env: io.env });
  return EXIT.ok;
}

/** preserve-attempt [N] --step TITLE. */
export async function runPreserve(argv: readonly string[], io: CliIo): Promise<number> {
  const usage = USAGE['preserve-attempt'] as string;
  const { values, positionals } = parseCommand(argv, { issue: { type: 'string' }, ledger: { type: 'string' }, step: { type: 'string' }, json: { type: 'boolean' } } as const, usage, 1);
  const kept = await preserveAttempt({
    issue: issueArgument(values.issue, positionals[0], usage),
    ledger: values.ledger,
    step: required(values.step, '--step TITLE', usage),
    cwd: io.cwd,
    env: io.env,
  });
  if (values.json === true) io.stdout(`${JSON.stringify(kept)}\n`);
  else if (kept.ref !== null) io.stdout(`${kept.ref}\n`);
  else io.stderr('leap-ledger: nothing uncommitted: no attempt to keep\n');
  return EXIT.ok;
}

/** attempts list | apply REF. */
export async function runAttempts(argv: readonly string[], io: CliIo): Promise<number> {
  const usage = USAGE.attempts as string;
  const { values, positionals } = parseCommand(argv, { issue: { type: 'string' }, json: { type: 'boolean' } } as const, usage, 2);
  const [verb, ref] = positionals;
  if (verb === 'list' && ref === undefined) {
    const attempts = await listAttempts({ issue: values.issue === undefined ? null : checkIssue(values.issue, '--issue'), cwd: io.cwd, env: io.env });
    io.stdout(formatAttempts(attempts, values.json === true));
    return attempts.length === 0 ? EXIT.nothing : EXIT.ok;
  }
  if (verb === 'apply' && ref !== undefined && values.issue === undefined) {
    const attempt = await applyAttempt(ref, { cwd: io.cwd, env: io.env });
    io.stderr(`leap-ledger: applied ${attempt.ref} (${attempt.commit})\n`);
    return EXIT.ok;
  }
  throw new UsageError(`expected "attempts list" or "attempts apply REF", got ${JSON.stringify(positionals.join(' '))}\n${usage}`);
}

/** init [N] [--plan FILE] [--force]. */
export async function runInit(argv: readonly string[], io: CliIo): Promise<number> {
  const usage = USAGE.init as string;
  const { values, positionals } = parseCommand(argv, { issue: { type: 'string' }, ledger: { type: 'string' }, plan: { type: 'string' }, force: { type: 'boolean' } } as const, usage, 1);
  const planFile = values.plan ?? '<stdin>';
  const plan = values.plan === undefined ? io.stdin('a plan (a title line, then one step a line), or --plan FILE,') : readFileBytes(values.plan, 'a plan');
  const made = await initLedger({
    issue: issueArgument(values.issue, positionals[0], usage),
    ledger: values.ledger,
    plan,
    planFile,
    force: values.force === true,
    cwd: io.cwd,
    env: io.env,
  });
  io.stdout(`${made.ledger}\n`);
  return EXIT.ok;
}
