// leap-stop: stop requests (CONTRACT section 4), and the leaves of a supervisor that died.
import { parseCli, resolveStateDir, runCli, writeFd, orElse } from '@leap/core';
import { EXIT_USAGE, STOP_NONE, STOP_PENDING, STOP_UNREADABLE, asUsage, usageError } from '../exit-codes.js';
import { sweepOrphansOf } from '../lifeline.js';
import { checkStop, clearStopLogged, requestStopLogged } from '../stop.js';

const USAGE = `Usage: leap-stop [--json] [check]
       leap-stop [--json] request MODE      MODE: at-ledger, at-leaf or now
       leap-stop [--json] clear
       leap-stop [--json] orphans PID [DIR...]

check (the default) asks whether a stop is pending in <state>/stop and prints its mode.
request writes the request, clear removes it; both append a "stop" event.
orphans ends every leaf that supervisor PID (a conductor, a slice engine, a worker killed with
SIGKILL) left running: each DIR's (default: the state folder) NAME.pid that names PID and has no
NAME.exit; every process of the leaf's session or carrying its marker is killed. A conductor or
engine that dies runs it by itself (its lifeline); the next run's resume does it too.
--lines TEXT adds folders, one JSON string a line (as the lifeline hands them).
--json prints {"pending", "mode", "error"} (check), {"action", "mode"}, or
{"action": "orphans", "leaves", "killed"} on stdout.

Exit codes:
  check:  3 no stop pending; 0 a stop is pending (the mode is printed);
          2 the stop file exists but is unreadable or holds anything else
  request, clear: 0
  orphans: 0 (its leaves ended, or none was left); 1 refused: PID is alive
  125     usage error (unknown action, bad MODE, bad PID or --lines, bad VERI_ISSUE)
`;

void runCli(
  'leap-stop',
  () => {
    const { values, positionals } = parseCli(
      process.argv.slice(2),
      { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' }, lines: { type: 'string' } },
      USAGE,
      { exitCode: EXIT_USAGE },
    );
    if (values.help === true) return (writeFd(1, USAGE), 0);
    const json = values.json === true;
    const print = (record: object) => json && writeFd(1, `${JSON.stringify(record)}\n`);
    const [action = 'check', ...rest] = positionals;
    if (action === 'orphans') return orphans(rest, values.lines, json);
    const arity = action === 'request' ? 1 : 0;
    if (!['check', 'request', 'clear'].includes(action) || rest.length !== arity) {
      throw usageError(
        `Expected check, request MODE, clear or orphans PID, got ${JSON.stringify(positionals)}\n${USAGE}`,
      );
    }
    if (action === 'request') {
      return (print({ action: 'requested', mode: asUsage(() => requestStopLogged(rest[0] as string)) }), 0);
    }
    if (action === 'clear') {
      const before = asUsage(() => clearStopLogged());
      return (print({ action: 'cleared', mode: before.kind === 'requested' ? before.mode : null }), 0);
    }
    const request = checkStop();
    if (request.kind === 'none') return (print({ pending: false, mode: null }), STOP_NONE);
    if (request.kind === 'requested') {
      writeFd(1, json ? `${JSON.stringify({ pending: true, mode: request.mode })}\n` : `${request.mode}\n`);
      return STOP_PENDING;
    }
    print({ pending: true, mode: null, error: request.reason });
    writeFd(2, `leap-stop: unreadable stop request: ${request.reason}\n`);
    return STOP_UNREADABLE;
  },
  { internalExitCode: EXIT_USAGE, exitWhenDone: true },
);

async function orphans(args: string[], lines: string | undefined, json: boolean): Promise<number> {
  const [pidText, ...dirs] = args;
  const pid = Number(pidText);
  if (pidText === undefined || !/^[1-9][0-9]*$/.test(pidText) || !Number.isSafeInteger(pid)) {
    throw usageError(`orphans: expected the dead supervisor's PID, got ${JSON.stringify(pidText ?? '')}\n${USAGE}`);
  }
  for (const [i, line] of (lines ?? '').split('\n').entries()) {
    if (line.trim() === '') continue;
    const dir: unknown = orElse(() => JSON.parse(line), null);
    if (typeof dir !== 'string' || dir === '')
      throw usageError(`orphans: --lines line ${i + 1} is not a JSON string naming a folder: ${line}`);
    dirs.push(dir);
  }
  if (dirs.length === 0) dirs.push(asUsage(() => resolveStateDir(process.env, process.cwd())));
  const sweep = await sweepOrphansOf(pid, dirs);
  if (sweep === null) {
    if (json) writeFd(1, `${JSON.stringify({ action: 'orphans', refused: 'alive', leaves: [], killed: 0 })}\n`);
    writeFd(2, `leap-stop: supervisor ${pid} is alive: its leaves are its own (nothing ended)\n`);
    return 1;
  }
  const { leaves, killed } = sweep;
  const list = leaves.length > 0 ? `: ${leaves.join(', ')}` : '';
  const text = `ended ${killed} processes of ${leaves.length} leaves left by ${pid}${list}\n`;
  writeFd(1, json ? `${JSON.stringify({ action: 'orphans', leaves, killed })}\n` : text);
  return 0;
}
