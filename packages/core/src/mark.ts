// `leap-event mark`: a named point in a run, stamped with the run's issue, step and skill commit.
import { UsageError, showValue } from './errors.js';
import { appendEvent, createEvent } from './events/append-event.js';
import type { EventOf } from './events/event-schema.js';
import { readRunContext } from './run-context.js';
import { resolveStateDir, statePaths } from './state-dir.js';

/** Parse `key=value` arguments; `anchor` is the mark's anchor, other keys are kept as extra fields. */
export function parseMarkFields(args: string[]): { anchor: string | null; extra: Record<string, string> } {
  let anchor: string | null = null;
  const extra: Record<string, string> = {};
  const reserved = new Set(['ts', 'event', 'issue', 'step', 'skill_commit', 'name']);
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const key = arg.slice(0, eq);
    if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      throw new UsageError(`Expected KEY=VALUE with KEY a name, got ${showValue(arg)}`);
    if (reserved.has(key)) throw new UsageError(`KEY ${showValue(key)} is set by leap-event itself`);
    if (key === 'anchor') anchor = arg.slice(eq + 1);
    else extra[key] = arg.slice(eq + 1);
  }
  return { anchor, extra };
}

export function recordMark(
  name: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): EventOf<'mark'> {
  const env = options.env ?? process.env;
  if (name === '') throw new UsageError('Expected a mark NAME, got ""');
  const { anchor, extra } = parseMarkFields(args);
  const stateDir = resolveStateDir(env, options.cwd);
  const event = createEvent('mark', { name, anchor, ...extra }, readRunContext(stateDir, env));
  appendEvent(statePaths(stateDir).events, event);
  return event;
}
