// `leap-verify prompt`: the prompt the verifier would get, printed and not sent. Light: no agent, no schema.
import { resolveStateDir, readRunContext } from '@leap/core';
import { gatherVerifyInput, type GatherOptions } from './gather-verify-input.js';
import { checkPhase } from './phase.js';
import type { StepTests } from './step-tests.js';
import { buildVerifyPrompt } from './verify-prompt.js';

type Given = { phase: string | undefined; step: string | undefined; issue?: number };
export type VerifyPromptOptions = Partial<Omit<GatherOptions, keyof Given | 'head'>> & Given;

export async function renderVerifyPrompt(options: VerifyPromptOptions): Promise<{ prompt: string; tests: StepTests }> {
  const phase = checkPhase(options.phase);
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const issue = options.issue ?? readRunContext(resolveStateDir(env, cwd), env).issue;
  const gathered = await gatherVerifyInput({ ...options, phase, cwd, env, issue });
  return { prompt: buildVerifyPrompt(gathered.input), tests: gathered.tests };
}
