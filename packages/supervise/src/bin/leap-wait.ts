// leap-wait NAME [MAX_SECONDS]: wait for a supervised leaf and exit with its code (CONTRACT section 4).
import { checkLeafName, parseCli, parseDuration, runCli, writeFd } from '@leap/core';
import { EXIT_USAGE, asUsage, usageError } from '../exit-codes.js';
import { waitLeaf, type WaitResult } from '../wait-leaf.js';

const USAGE = `Usage: leap-wait [--json] NAME [MAX_SECONDS]

Blocks until <state>/NAME.exit exists and exits with the code on its first line.
MAX_SECONDS (default 590; suffixes s m h d; 0 looks once) bounds the wait.
Always prints "wait-leaf[NAME]: STATUS" on stderr; --json prints the record on stdout.
The state folder is VERI_STATE_DIR, else .tdd/ at the repository root.

Exit codes:
  the leaf's recorded code   NAME.exit appeared (0, 1 or 2 is a verdict's answer)
  3                          budget spent, the leaf still runs: call again
  2                          supervisor-gone: NAME.pid names a dead, zombie or reused process
                             and there is no exit file
  125                        usage error
`;

const OPTIONS = { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } } as const;

function toJson({ name, code, status, exit, supervisor, waitedMs }: WaitResult): string {
  const { leafCode = null, signal = null, run = null, leftovers = 0, escaped = 0, error = null } = exit ?? {};
  const record = { name, code, status, leaf_code: leafCode, signal, run, leftovers, escaped, error };
  return `${JSON.stringify({ ...record, supervisor, waited_ms: waitedMs })}\n`;
}

void runCli(
  'leap-wait',
  async () => {
    const { values, positionals } = parseCli(process.argv.slice(2), OPTIONS, USAGE, { exitCode: EXIT_USAGE });
    if (values.help === true) return (writeFd(1, USAGE), 0);
    const [name, max, ...rest] = positionals;
    if (name === undefined || rest.length > 0) {
      throw usageError(`Expected NAME [MAX_SECONDS], got ${positionals.length} argument(s)\n${USAGE}`);
    }
    asUsage(() => checkLeafName(name));
    const budgetMs = max === undefined ? undefined : asUsage(() => parseDuration('MAX_SECONDS', max));
    const result = await waitLeaf({ name, budgetMs });
    if (values.json === true) writeFd(1, toJson(result));
    writeFd(2, `wait-leaf[${name}]: ${result.status}\n`);
    return result.code;
  },
  { internalExitCode: EXIT_USAGE, exitWhenDone: true },
);
