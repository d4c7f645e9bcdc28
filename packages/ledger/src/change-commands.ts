// The changing commands' arguments; the bin imports this module only when one runs: it is where git is.
import { UsageError, checkIssue } from '@leap/core';
import { applyAttempt, formatAttempts, listAttempts, preserveAttempt } from './attempts.js';
import { parseCommand, type CliIo } from './cli.js';
import { initLedger, tickIssueCriterion } from './files.js';
import { EXIT, readFileBytes } from './input.js';
import { clearRefactor, tick } from './transaction.js';
import { usageOf } from './usage.js';

const S = { type: 'string' } as const;
const B = { type: 'boolean' } as const;
const STEP = { issue: S, ledger: S, step: S, json: B };
const TICK = { ...STEP, message: { ...S, short: 'm' }, 'no-verify': { ...B, short: 'n' }, 'allow-empty': B } as const;
const PLAN_HINT = 'a plan (a title line, then one step a line), or --plan FILE,';

/** The issue of `--issue N`, or of a leading positional N (the drop-in scripts' `tick-ledger.sh N --step T`). */
export function issueArgument(flag: string | undefined, n: string | undefined, usage: string): string | undefined {
  const twice = `the issue is given twice (--issue ${JSON.stringify(flag)} and ${JSON.stringify(n)})`;
  if (flag !== undefined && n !== undefined) throw new UsageError(`${twice}\n${usage}`);
  return flag ?? n;
}

export function required(value: string | undefined, what: string, usage: string): string {
  if (value === undefined) throw new UsageError(`missing ${what}\n${usage}`);
  return value;
}

export async function runChange(command: string, argv: string[], io: CliIo): Promise<number> {
  const usage = usageOf(command);
  const { cwd, env } = io;
  if (command === 'tick' || command === 'clear-refactor-pending') {
    const { values: v, positionals } = parseCommand(argv, TICK, usage, 1);
    const at = { issue: issueArgument(v.issue, positionals[0], usage), ledger: v.ledger, cwd, env };
    const options = { step: required(v.step, '--step TITLE', usage), message: v.message, noVerify: v['no-verify'] };
    const done = await (command === 'tick' ? tick : clearRefactor)({ ...at, ...options, allowEmpty: v['allow-empty'] });
    const json = JSON.stringify({ action: command, commit: done.commit, title: done.title, ledger: done.ledger });
    io.stdout(`${v.json === true ? json : done.commit}\n`);
  } else if (command === 'tick-criterion') {
    const { values: v, positionals: p } = parseCommand(argv, { body: S, issue: S, match: S }, usage, 2);
    // K alone, N K, or N with --match: the issue comes first when there is one.
    const issueFirst = p.length === 2 || (p.length === 1 && v.match !== undefined);
    const [k, issue] = issueFirst ? [p[1], issueArgument(v.issue, p[0], usage)] : [p[0], v.issue];
    const neither = `expected the criterion number K or --match TEXT (one of them)\n${usage}`;
    if ((k === undefined) === (v.match === undefined)) throw new UsageError(neither);
    const criterion = k === undefined ? undefined : checkIssue(k, 'the criterion number K');
    const choice = criterion === undefined ? { match: v.match as string } : { criterion };
    await tickIssueCriterion({ body: v.body, issue, choice, cwd, env });
  } else if (command === 'preserve-attempt') {
    const { values: v, positionals } = parseCommand(argv, STEP, usage, 1);
    const [step, issue] = [required(v.step, '--step TITLE', usage), issueArgument(v.issue, positionals[0], usage)];
    const kept = await preserveAttempt({ issue, ledger: v.ledger, step, cwd, env });
    if (v.json === true) io.stdout(`${JSON.stringify(kept)}\n`);
    else if (kept.ref !== null) io.stdout(`${kept.ref}\n`);
    else io.stderr('leap-ledger: nothing uncommitted: no attempt to keep\n');
  } else if (command === 'attempts') {
    return runAttempts(argv, io, usage);
  } else {
    const { values: v, positionals } = parseCommand(argv, { issue: S, ledger: S, plan: S, force: B }, usage, 1);
    const [planFile, issue] = [v.plan ?? '<stdin>', issueArgument(v.issue, positionals[0], usage)];
    const plan = v.plan === undefined ? io.stdin(PLAN_HINT) : readFileBytes(v.plan, 'a plan');
    const made = await initLedger({ issue, ledger: v.ledger, plan, planFile, force: v.force, cwd, env });
    io.stdout(`${made.ledger}\n`);
  }
  return EXIT.ok;
}

async function runAttempts(argv: string[], { cwd, env, stdout, stderr }: CliIo, usage: string): Promise<number> {
  const { values, positionals } = parseCommand(argv, { issue: S, json: B }, usage, 2);
  const [verb, ref] = positionals;
  if (verb === 'list' && ref === undefined) {
    const issue = values.issue === undefined ? null : checkIssue(values.issue, '--issue');
    const attempts = await listAttempts({ issue, cwd, env });
    stdout(formatAttempts(attempts, values.json === true));
    return attempts.length === 0 ? EXIT.nothing : EXIT.ok;
  }
  const got = JSON.stringify(positionals.join(' '));
  const expected = `expected "attempts list" or "attempts apply REF", got ${got}\n${usage}`;
  if (verb !== 'apply' || ref === undefined || values.issue !== undefined) throw new UsageError(expected);
  const attempt = await applyAttempt(ref, { cwd, env });
  stderr(`leap-ledger: applied ${attempt.ref} (${attempt.commit})\n`);
  return EXIT.ok;
}
