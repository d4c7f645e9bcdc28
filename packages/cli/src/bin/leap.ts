// leap: the umbrella command (see packages/cli/README.md).
import { processSubcommandIo, runCli } from '@leap/core';
import { main } from '../main.js';

// Exit once the subcommand returns: each one returns only when its work is done (its leaves, servers and
// children ended, every write synchronous), and Node's natural teardown first waits for V8's background work,
// such as a TurboFan job for node:path's normalizeString, which the loader's resolution of a dozen chunks makes
// hot (`leap slice validate` on 1,000 balls: 1.02x the 2026-12-01 build's time with the wait, 0.98x without,
// paired runs 2026-12-05).
void runCli('leap', () => main(process.argv.slice(2), processSubcommandIo()), { exitWhenDone: true });
