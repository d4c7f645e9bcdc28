import type { AgentAnswer } from '@leap/core';
import { LeapError } from '@leap/core';

/** Read the answer: stdout trimmed; an empty answer is no answer (a move without one). */
export function parsePlainText(stdout: string): AgentAnswer {
  const text = stdout.trim();
  if (text === '') throw new LeapError('the scripted agent printed nothing on stdout');
  return { text };
}
