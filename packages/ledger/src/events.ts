// The `tick` events every changing command appends to the run's event log (CONTRACT section 5).
import { appendEvent, createEvent, readEventContextAnyway, statePaths, writeFd, type EventContext } from '@leap/core';

/** What a ledger event records besides the run context. */
export interface LedgerEventFields {
  action: 'tick' | 'clear-refactor-pending' | 'tick-criterion' | 'preserve-attempt' | 'init' | 'restore';
  title: string | null;
  commit?: string;
  file?: string;
  criterion?: number;
  ref?: string;
}

// The run context (the timeout is not read: a bad VERI_TIMEOUT must not turn a finished commit into an error),
// or what the environment says when VERI_ISSUE is unreadable; the command's own issue and step win.
function eventContext(stateDir: string, env: NodeJS.ProcessEnv, issue: number | null, step: string | null): EventContext {
  const context = readEventContextAnyway(stateDir, env);
  return { issue: issue ?? context.issue, step: step ?? context.step, skillCommit: context.skillCommit };
}

/** Append a `tick` event; `issue` and `step` override the environment's when the command knows them. */
export function logLedgerEvent(stateDir: string, env: NodeJS.ProcessEnv, fields: LedgerEventFields, where: { issue: number | null; step: string | null }): void {
  const event = createEvent('tick', stripUndefined(fields), eventContext(stateDir, env, where.issue, where.step));
  appendEvent(statePaths(stateDir).events, event);
}

/** As logLedgerEvent, but a failure only warns: the change it records has already happened. */
export function logLedgerEventOrWarn(prog: string, stateDir: string, env: NodeJS.ProcessEnv, fields: LedgerEventFields, where: { issue: number | null; step: string | null }): void {
  try {
    logLedgerEvent(stateDir, env, fields, where);
  } catch (error) {
    writeFd(2, `${prog}: warning: could not append to ${statePaths(stateDir).events}: ${(error as Error).message}\n`);
  }
}

type TickFields = Parameters<typeof createEvent<'tick'>>[1];

// The log holds no `undefined` keys: an optional field is absent.
function stripUndefined(fields: LedgerEventFields): TickFields {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out as TickFields;
}
