// leap-supervise NAME CMD [ARG...]: run one leaf and guarantee it ends (CONTRACT section 4).
import { findRepoRoot, parseCli, runCli, writeFd } from '@leap/core';
import { EXIT_USAGE, asUsage, usageError } from '../exit-codes.js';
import { supervise } from '../supervise.js';
import { formatStatusLine, type SuperviseResult } from '../leaf-files.js';
import { readyFd, reportFailure } from '../detach.js';
import { parseSandboxSetting } from '../sandbox.js';

const USAGE = `\
Usage: leap-supervise [--sandbox writer|reader|off] [--network on|off] [--pass-env NAMES] NAME CMD [ARG...]

Runs CMD (no shell) as the leaf NAME in a session of its own and guarantees it ends.
Writes <state>/NAME.pid, then <state>/NAME.exit (first line: the code) once the leaf and
everything it started are gone, appends launch and exit events, and prints
"supervise[NAME]: STATUS" on stderr. The state folder is VERI_STATE_DIR, else .tdd/ at the
repository root.

 Sandbox (off unless asked; see the README for what each role sees):
  --sandbox ROLE      run CMD in a bubblewrap sandbox: writer (the repository's tree writable,
                      .git read-only) or reader (a throwaway copy of it); off: none.
                      LEAP_SANDBOX=on|writer|reader|off says the same; the flag wins
  --network on|off    the sandbox's network (default on; off: loopback only)
  --pass-env NAMES    comma-separated variables (or PREFIX_*) passed into the sandbox besides
                      PATH, HOME, locale, VERI_* and LEAP_*

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
  2                     also: the sandbox cannot be made (bwrap missing: nothing is touched;
                        namespaces refused: recorded as failed-start); the cause is on stderr
`;

// Started by leap-detach: a start-up failure is reported through the handshake, so detach can say why.
const ready = readyFd(process.env);

function parseArgv() {
  const { values, positionals } = parseCli(
    process.argv.slice(2),
    {
      help: { type: 'boolean', short: 'h' },
      sandbox: { type: 'string' },
      network: { type: 'string' },
      'pass-env': { type: 'string', multiple: true },
    },
    USAGE,
    { stopAtPositional: true, exitCode: EXIT_USAGE },
  );
  const [name, command, ...args] = positionals;
  if (values.help === true) return { help: true, name: '', command: '', args, sandbox: null };
  if (name === undefined || command === undefined) {
    throw usageError(`Expected NAME and CMD, got ${positionals.length} argument(s)\n${USAGE}`);
  }
  const asked = values.sandbox ?? process.env.LEAP_SANDBOX;
  const what = values.sandbox !== undefined ? '--sandbox' : 'LEAP_SANDBOX';
  const role = asked === undefined || asked === '' ? null : asUsage(() => parseSandboxSetting(asked, what));
  if (values.network !== undefined && values.network !== 'on' && values.network !== 'off') {
    throw usageError(`--network must be on or off, got ${JSON.stringify(values.network)}`);
  }
  const cwd = process.cwd();
  const network = values.network !== 'off';
  const passEnv = (values['pass-env'] ?? []).flatMap((v) => v.split(',')).filter((v) => v !== '');
  const sandbox = role === null ? null : { role, tree: findRepoRoot(cwd) ?? cwd, cwd, network, passEnv };
  return { help: false, name, command, args, sandbox };
}

void runCli(
  'leap-supervise',
  async () => {
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
    const { name, command, args, sandbox } = argv;
    if (process.pid === 1) writeFd(2, 'supervise: warning: running as pid 1: orphaned descendants are not reaped\n');
    // The status line precedes the exit file (beforeRecord): `wait-leaf.sh NAME` returns on that file.
    let said = 0;
    const say = (result: SuperviseResult, status: boolean): void => {
      const lines = result.warnings.slice(said).map((w) => `supervise[${name}]: warning: ${w}\n`);
      said = result.warnings.length;
      if (status && result.error !== null) lines.push(`supervise[${name}]: ${result.error}\n`);
      if (status) lines.push(formatStatusLine(result));
      // A closed stderr must not change the result (writeFd ignores EPIPE and EBADF).
      if (lines.length > 0) writeFd(2, lines.join(''));
    };
    const options = { name, command, args, handleSignals: true, lifeline: false, readyFd: ready, sandbox };
    const result = await supervise({ ...options, beforeRecord: (r) => say(r, true) });
    say(result, false);
    return result.code;
  },
  { internalExitCode: EXIT_USAGE, exitWhenDone: true },
);
