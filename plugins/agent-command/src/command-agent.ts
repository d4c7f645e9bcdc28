// Any command line as an agent: the prompt on stdin, the answer on stdout, the family from configuration.
import { type AgentAnswer, type AgentPlugin, LeapError, UsageError, showValue } from '@leap/core';

export interface CommandAgentConfig {
  name?: string;
  /** The command line as argv (no shell): `["bash", "-c", "..."]` when a shell is wanted. */
  command: string[];
  /** The model family it belongs to, for the cross-family rule. */
  family: string;
  env?: Record<string, string>;
}

/** The command learns its role, model and folder from LEAP_AGENT_ROLE, _MODEL and _CWD, never argv: no templating. */
export function createCommandAgent(config: CommandAgentConfig): AgentPlugin {
  const name = config.name ?? 'command';
  const [command, ...args] = config.command;
  const agent = `agent ${showValue(name)}`;
  if (command === undefined || command === '') {
    const got = showValue(JSON.stringify(config.command));
    throw new UsageError(`${agent}: expected "command" to be a non-empty argv array, got ${got}`);
  }
  if (typeof config.family !== 'string' || !/^[A-Za-z0-9_.]+$/.test(config.family)) {
    const got = showValue(config.family);
    throw new UsageError(`${agent}: expected "family" to be a word of letters, digits, "_" or ".", got ${got}`);
  }
  return {
    name,
    family: config.family,
    buildInvocation: (prompt, { role, cwd, model }) => ({
      command,
      args,
      stdin: prompt,
      env: { ...config.env, LEAP_AGENT_ROLE: role, LEAP_AGENT_CWD: cwd, LEAP_AGENT_MODEL: model },
    }),
    parseAnswer: parsePlainAnswer,
  };
}

/** Read a plain-text answer: stdout with surrounding whitespace removed; an empty answer is no answer. */
export function parsePlainAnswer(stdout: string): AgentAnswer {
  const text = stdout.trim();
  if (text === '') throw new LeapError('the agent printed nothing on stdout');
  return { text };
}
