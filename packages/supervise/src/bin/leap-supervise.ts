// leap-supervise NAME CMD [ARG...]: run one leaf and guarantee it ends (CONTRACT section 4).
import { UsageError, parseCli, runCli, writeFd } from '@leap/core';
import { EXIT_USAGE } from '../exit-codes.js';
import { supervise } from '../supervise.js';
import { formatStatusLine } from '../record-end.js';
import { readyFd, reportFailure } from '../ready-handshake.js';

const USAGE = `Usage: leap-supervise NAME CMD [ARG...]

Runs CMD (no shell) as the leaf NAME in a session of its own and guarantees it ends.
Writes <state>/NAME.pid, then <state>/NAME.exit (first line: the code) once the leaf and
everything it started are gone, appends launch and exit events, and prints
"supervise[NAME]: STATUS" on stderr. The state folder is VERI_STATE_DIR, else .tdd/ at the
repository root.

Environment:
  VERI_TIMEOUT        leaf timeout (seconds, or with suffix s m h d; 0 = none; default: the
                      issue's timeout file, else 900)
  VERI_KILL_AFTER     grace between SIGTERM and SIGKILL (default 5; 0 = SIGKILL at once)
  VERI_IDLE_TIMEOUT   no output and no CPU progress for that long ends the leaf (default 0 = off)
  VERI_ISSUE, VERI_STEP, VERI_TEST_CMD, VERI_SKILL_COMMIT, VERI_NEW_SKILL  see README

Statuses: exited, killed-timeout, killed-stuck, killed-stop, killed-signal, killed-external,
refused-stop, failed-start.

Exit codes:
  the leaf's own code   status exited
  2                     every kill, and a launch refused by an at-leaf or now stop
  126 / 127             the command cannot be executed / was not found (failed-start)
  125                   usage error: bad arguments, NAME or variable, or another supervisor
                        already runs NAME
`;

// Started by leap-detach: a start-up failure is reported through the handshake, so detach can say why.
const ready = readyFd(process.env);

function parseArgv(): { help: boolean; name: string; command: string; args: string[] } {
  const { values, positionals } = parseCli(process.argv.slice(2), { help: { type: 'boolean', short: 'h' } }, USAGE, {
    stopAtPositional: true, exitCode: EXIT_USAGE,
  });
  const [name, command, ...args] = positionals;
  if (values.help === true) return { help: true, name: '', command: '', args: [] };
  if (name === undefined || command === undefined) {
    throw new UsageError(`Expected NAME and CMD, got ${positionals.length} argument(s)\n${USAGE}`, { exitCode: EXIT_USAGE });
  }
  return { help: false, name, command, args };
}

void runCli('leap-supervise', async () => {
  let argv: ReturnType<typeof parseArgv>;
  try {
    argv = parseArgv();
  } catch (error) {
    reportFailure(ready, (error as Error).message.split('\n')[0] ?? '');
    throw error;
  }
  if (argv.help) {
    reportFailure(ready, 'only printed its usage (--help)');
    writeFd(1, USAGE);
    return 0;
  }
  const { name, command, args } = argv;
  if (process.pid === 1) writeFd(2, 'supervise: warning: running as pid 1: orphaned descendants are not reaped\n');
  const result = await supervise({ name, command, args, handleSignals: true, readyFd: ready });
  const lines = result.warnings.map((w) => `supervise[${name}]: warning: ${w}\n`);
  if (result.error !== null) lines.push(`supervise[${name}]: ${result.error}\n`);
  lines.push(formatStatusLine(result));
  // A closed stderr must not change the result (writeFd ignores EPIPE and EBADF).
  writeFd(2, lines.join(''));
  return result.code;
}, { internalExitCode: EXIT_USAGE }).then(() => {
  // Everything is written synchronously: exit now rather than wait for Node's slower natural teardown.
  process.exit();
});
