// `leap init`'s questions on a terminal: one reader for the whole session, answers checked and asked again.
import { LeapError, type SubcommandIo } from '@leap/core';

export type Ask = (question: string) => Promise<string>;

/** Ask `QUESTION [FALLBACK]: ` until `check` accepts the answer (empty: the fallback); the third refusal throws. */
export async function askValid(ask: Ask, question: string, fallback: string, check: (v: string) => unknown) {
  for (let tries = 0; ; tries++) {
    const value = (await ask(`${question} [${fallback}]: `)).trim() || fallback;
    try {
      check(value);
      return value;
    } catch (error) {
      if (tries >= 2) throw error;
    }
  }
}

export const askYes = async (ask: Ask, question: string): Promise<boolean> => /^y/i.test((await ask(question)).trim());

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
