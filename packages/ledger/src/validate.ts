// `leap-ledger validate`: every problem of a ledger, each with its line.
import { validateLedger } from '@leap/core/ledger';

/** One problem, as printed. */
export interface ValidationProblem {
  file: string;
  line: number;
  message: string;
}

/** All problems of a ledger's text, in line order; empty when it is valid. */
export function validateText(text: string, file: string): ValidationProblem[] {
  return validateLedger(text, file).map((problem) => ({ file, line: problem.line, message: problem.message }));
}

/** `FILE:LINE: message` lines, or JSON lines {"file","line","message"}. */
export function formatProblems(problems: readonly ValidationProblem[], json: boolean): string {
  let out = '';
  for (const p of problems) out += json ? `${JSON.stringify(p)}\n` : `${p.file}:${p.line}: ${p.message}\n`;
  return out;
}
