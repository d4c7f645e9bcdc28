// `leap-verify prompt`: the prompt the verifier would get, printed and not sent. Light: no agent, no schema.
import { resolveStateDir, readRunContext, type TrackerPlugin } from '@leap/core';
import { gatherVerifyInput } from './gather-verify-input.js';
import { checkPhase } from './phase.js';
import type { StepTests } from './step-tests.js';
import { buildVerifyPrompt } from './verify-prompt.js';

export interface VerifyPromptOptions {
  phase: string | undefined;
  step: string | undefined;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  issue?: number;
  ledgerFile?: string;
  specFile?: string;
  testGlobs?: readonly string[];
  /** Globs of test files beside the conventions (a conductor's `--tests`): red takes HEAD's changes to them. */
  testFiles?: readonly string[];
  base?: string;
  tracker?: TrackerPlugin;
}

/** Build the verifier's prompt for a step, exactly as `leap-verify` would send it. */
export async function renderVerifyPrompt(options: VerifyPromptOptions): Promise<{ prompt: string; tests: StepTests }> {
  const phase = checkPhase(options.phase);
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const issue = options.issue ?? readRunContext(resolveStateDir(env, cwd), env).issue;
  const gathered = await gatherVerifyInput({ ...options, phase, cwd, env, issue });
  return { prompt: buildVerifyPrompt(gathered.input), tests: gathered.tests };
}
