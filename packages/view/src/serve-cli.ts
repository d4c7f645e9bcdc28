// `leap serve` (CONTRACT section 10); the server is serve.ts.
import { dirOption, LeapError, UsageError, type Subcommand } from '@leap/core';
import { untilSignal, viewOptions } from './_text.js';
import { startLiveServer } from './serve.js';

export const SERVE_USAGE = `Usage: leap serve [--dir DIR] [--port N] [--host H] [--json]

Serves the report of this repository's runs (the page leap report writes) as a live page: it
updates itself, without a reload, whenever the event log, a ledger, the stop file or a slice
record changes. It listens on 127.0.0.1, on a free port unless --port names one, behind a random
token in the address it prints; a request without that token gets 403. It runs until TERM or INT
(Ctrl-C) and writes nothing.

Options:
  --dir DIR  the repository to show (default: the current one)
  --port N   the port (default: a free one)
  --host H   where to listen (default 127.0.0.1). Anything but a loopback address exposes the page,
             which shows the runs' step titles, verdicts, reasons and costs, to whoever can reach that
             address and learns the URL; plain HTTP, so anyone on the path can read the token.
  --json     print {"url", "host", "port"} instead of the address
  --help     this text

Exit codes:
  0  stopped by TERM or INT
  2  bad arguments, or the port cannot be listened on`;

export const serveMain: Subcommand = async (argv, io) => {
  const values = viewOptions(argv, { port: { type: 'string', short: 'p' }, host: { type: 'string' } }, SERVE_USAGE, io);
  if (values === null) return 0;
  const cwd = dirOption(io.cwd, values.dir);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (values.port !== undefined && (!/^[0-9]{1,5}$/.test(values.port) || port > 65535))
    throw new UsageError(
      `Expected --port to be a port number (0 to 65535), got ${JSON.stringify(values.port)}\n${SERVE_USAGE}`,
    );
  if (values.host === '') throw new UsageError(`Expected --host to name an address, got ""\n${SERVE_USAGE}`);
  return untilSignal(async (signal) => {
    const server = await startLiveServer({ cwd, env: io.env, port, host: values.host }).catch((cause: Error) => {
      const where = `${values.host ?? '127.0.0.1'}:${port}`;
      throw new LeapError(`cannot listen on ${where}: ${cause.message}`, { exitCode: 2, cause });
    });
    const { url } = server;
    io.stdout(`${values.json === true ? JSON.stringify({ url, host: server.host, port: server.port }) : url}\n`);
    if (!signal.aborted)
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    await server.close();
  });
};
