// leap-stop [check | request MODE | clear]: stop requests (CONTRACT section 4).
import { UsageError, parseCli, runCli, writeFd } from '@leap/core';
import { EXIT_USAGE, STOP_NONE, STOP_PENDING, STOP_UNREADABLE } from '../exit-codes.js';
import { checkStop, clearStopLogged, requestStopLogged } from '../stop.js';
import { asUsage } from '../usage.js';

const USAGE = `Usage: leap-stop [--json] [check]
       leap-stop [--json] request MODE      MODE: at-ledger, at-leaf or now
       leap-stop [--json] clear

check (the default) asks whether a stop is pending in <state>/stop and prints its mode.
request writes the request, clear removes it; both append a "stop" event.
--json prints {"pending", "mode", "error"} (check) or {"action", "mode"} on stdout.

Exit codes:
  check:  3 no stop pending; 0 a stop is pending (the mode is printed);
          2 the stop file exists but is unreadable or holds anything else
  request, clear: 0
  125     usage error (unknown action, bad MODE, bad VERI_ISSUE)
`;

void runCli(
  'leap-stop',
  () => {
    const { values, positionals } = parseCli(
      process.argv.slice(2),
      {
        help: { type: 'boolean', short: 'h' },
        json: { type: 'boolean' },
      },
      USAGE,
      { exitCode: EXIT_USAGE },
    );
    if (values.help === true) {
      writeFd(1, USAGE);
      return 0;
    }
    const json = values.json === true;
    const [action = 'check', ...rest] = positionals;
    const arity = action === 'request' ? 1 : 0;
    if (!['check', 'request', 'clear'].includes(action) || rest.length !== arity) {
      throw new UsageError(`Expected check, request MODE or clear, got ${JSON.stringify(positionals)}\n${USAGE}`, { exitCode: EXIT_USAGE });
    }
    if (action === 'request') {
      const mode = asUsage(() => requestStopLogged(rest[0] as string));
      if (json) writeFd(1, `${JSON.stringify({ action: 'requested', mode })}\n`);
      return 0;
    }
    if (action === 'clear') {
      const before = asUsage(() => clearStopLogged());
      if (json) writeFd(1, `${JSON.stringify({ action: 'cleared', mode: before.kind === 'requested' ? before.mode : null })}\n`);
      return 0;
    }
    const request = checkStop();
    if (request.kind === 'none') {
      if (json) writeFd(1, `${JSON.stringify({ pending: false, mode: null })}\n`);
      return STOP_NONE;
    }
    if (request.kind === 'requested') {
      writeFd(1, json ? `${JSON.stringify({ pending: true, mode: request.mode })}\n` : `${request.mode}\n`);
      return STOP_PENDING;
    }
    if (json) writeFd(1, `${JSON.stringify({ pending: true, mode: null, error: request.reason })}\n`);
    writeFd(2, `leap-stop: unreadable stop request: ${request.reason}\n`);
    return STOP_UNREADABLE;
  },
  { internalExitCode: EXIT_USAGE, exitWhenDone: true },
);
