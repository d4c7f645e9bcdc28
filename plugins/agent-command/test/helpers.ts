// Run an agent invocation as a supervisor would, with this plugin's stand-in CLIs first on PATH.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentInvocation } from '@leap/core';
import { runInvocation as runWithStandIns, type RunResult } from '@leap/test-utils';

export const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

export type Ran = RunResult;

/** Run an invocation with this plugin's stand-in CLIs first on PATH. */
export function runInvocation(
  invocation: AgentInvocation,
  env: Record<string, string | undefined> = {},
  cwd?: string,
): Promise<Ran> {
  return runWithStandIns(invocation, { pathFirst: fixtures, env, cwd });
}
