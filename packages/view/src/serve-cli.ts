// `leap serve` (CONTRACT section 10); the server is serve.ts.
import { dirOption, LeapError, parseCli, UsageError, type Subcommand } from '@leap/core';
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

const OPTIONS = {
  dir: { type: 'string' },
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const serveMain: Subcommand = async (argv, io) => {
  const { values, positionals } = parseCli(argv, OPTIONS, SERVE_USAGE);
  if (values.help === true) {
    io.stdout(`${SERVE_USAGE}\n`);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\n${SERVE_USAGE}`);
  const cwd = dirOption(io.cwd, values.dir);
  let port = 0;
  if (values.port !== undefined) {
    if (!/^[0-9]{1,5}$/.test(values.port) || Number(values.port) > 65535)
      throw new UsageError(
        `Expected --port to be a port number (0 to 65535), got ${JSON.stringify(values.port)}\n${SERVE_USAGE}`,
      );
    port = Number(values.port);
  }
  if (values.host === '') throw new UsageError(`Expected --host to name an address, got ""\n${SERVE_USAGE}`);
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    let server: Awaited<ReturnType<typeof startLiveServer>>;
    try {
      server = await startLiveServer({
        cwd,
        env: io.env,
        port,
        ...(values.host === undefined ? {} : { host: values.host }),
      });
    } catch (cause) {
      throw new LeapError(`cannot listen on ${values.host ?? '127.0.0.1'}:${port}: ${(cause as Error).message}`, {
        exitCode: 2,
        cause,
      });
    }
    io.stdout(
      values.json === true
        ? `${JSON.stringify({ url: server.url, host: server.host, port: server.port })}\n`
        : `${server.url}\n`,
    );
    if (!controller.signal.aborted)
      await new Promise<void>((resolve) =>
        controller.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    await server.close();
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
  }
  return 0;
};
