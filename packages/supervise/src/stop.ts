// leap-stop: ask, request or clear a stop (CONTRACT section 2, the `stop` file); request and clear are logged.
import { appendEvent, clearStop, createEvent, readEventContext, readStopRequest, requestStop } from '@leap/core';
import { resolveStateDir, statePaths, type StopMode, type StopRequest } from '@leap/core';

export type StopOptions = { env?: NodeJS.ProcessEnv; cwd?: string };

const stopFile = (options: StopOptions) =>
  statePaths(resolveStateDir(options.env ?? process.env, options.cwd ?? process.cwd()));

export const checkStop = (options: StopOptions = {}): StopRequest => readStopRequest(stopFile(options).stop);

export function requestStopLogged(mode: string, options: StopOptions = {}): StopMode {
  const files = stopFile(options);
  const context = readEventContext(files.dir, options.env ?? process.env);
  const written = requestStop(files.stop, mode);
  appendEvent(files.events, createEvent('stop', { mode: written, action: 'requested' }, context));
  return written;
}

export function clearStopLogged(options: StopOptions = {}): StopRequest {
  const files = stopFile(options);
  const context = readEventContext(files.dir, options.env ?? process.env);
  const before = readStopRequest(files.stop);
  clearStop(files.stop);
  const mode = before.kind === 'requested' ? before.mode : before.kind === 'unreadable' ? 'unreadable' : null;
  appendEvent(files.events, createEvent('stop', { mode, action: 'cleared' }, context));
  return before;
}
