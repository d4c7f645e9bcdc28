// leap-detach CMD [ARG...]: start CMD in a new session and return (CONTRACT section 4).
import { parseCli, runCli, writeFd } from '@leap/core';
import { EXIT_USAGE, usageError } from '../exit-codes.js';
import { detach } from '../detach.js';

const USAGE = `Usage: leap-detach [--json] CMD [ARG...]

Starts CMD (no shell) in a new session, outside the caller's process group and session, with
stdin from /dev/null and the caller's stdout and stderr when they are files or terminals (a pipe
or socket is replaced by /dev/null, so a caller reading detach's output is not kept waiting).
When CMD is a supervisor (supervise.sh, leap-supervise), returns only once it has written
NAME.pid, so leap-wait called right after never races it. Prints nothing on success; --json
prints {"pid", "name", "run"} on stdout.

Exit codes:
  0     started (a supervisor: NAME.pid written)
  1     the supervisor died or gave up during start-up (the reason is on stderr)
  126   CMD cannot be executed
  127   CMD was not found
  125   usage error
`;

const OPTIONS = { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } } as const;
const PARSE = { stopAtPositional: true, exitCode: EXIT_USAGE };

void runCli(
  'leap-detach',
  async () => {
    const { values, positionals } = parseCli(process.argv.slice(2), OPTIONS, USAGE, PARSE);
    if (values.help === true) return (writeFd(1, USAGE), 0);
    const [command, ...args] = positionals;
    if (command === undefined || command === '') throw usageError(`Expected CMD [ARG...]\n${USAGE}`);
    const result = await detach({ command, args });
    if (values.json === true) writeFd(1, `${JSON.stringify(result)}\n`);
    return 0;
  },
  { internalExitCode: EXIT_USAGE, exitWhenDone: true },
);
