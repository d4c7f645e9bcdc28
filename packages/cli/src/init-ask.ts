// `leap init`'s questions on a terminal: one reader for the whole session, answers checked and asked again.
import { LeapError, type SubcommandIo } from '@leap/core';

export type Ask = (question: string) => Promise<string>;

/** Ask until `check` accepts the answer (an empty one is `fallback`); the third refusal is the error. */
export async function askValid(
  ask: Ask,
  question: string,
  fallback: string,
  check: (value: string) => unknown,
): Promise<string> {
  for (let tries = 0; ; tries++) {
    const answer = (await ask(question)).trim();
    const value = answer === '' ? fallback : answer;
    try {
      check(value);
      return value;
    } catch (error) {
      if (tries >= 2) throw error;
    }
  }
}

export async function askYes(ask: Ask, question: string): Promise<boolean> {
  return /^y/i.test((await ask(question)).trim());
}

// One reader for the session, so typed-ahead answers are kept; the end of input is a refusal, not a crash.
export async function terminalAsk(io: SubcommandIo): Promise<Ask & { close(): void }> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string> => {
    io.stdout(question);
    const next = await lines.next();
    if (next.done === true)
      throw new LeapError('the terminal closed before an answer: nothing written', { exitCode: 1 });
    return next.value as string;
  };
  return Object.assign(ask, { close: () => rl.close() });
}
