// The engine's events (CONTRACT section 5): ball, round, receipt, merge and fallover, each with the slice and ball ids.
import { appendEvent, createEvent, readEventContext, statePaths, type EventContext } from '@leap/core';
import type { EventKind, EventOf } from '@leap/core';

type Fields<K extends EventKind> = Omit<EventOf<K>, 'ts' | 'event' | 'issue' | 'step' | 'skill_commit'>;

export interface EngineLog {
  emit<K extends 'ball' | 'round' | 'receipt' | 'merge' | 'fallover'>(kind: K, fields: Fields<K>): void;
}

export function engineLog(stateDir: string, env: NodeJS.ProcessEnv): EngineLog {
  const context: EventContext = readEventContext(stateDir, env);
  const file = statePaths(stateDir).events;
  return { emit: (kind, fields) => appendEvent(file, createEvent(kind, fields as never, context)) };
}
