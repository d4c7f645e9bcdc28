import { processSubcommandIo, runCli } from '@leap/core';
import { main } from '../main.js';

// Exit once the subcommand returns, its work done: Node's teardown waits for V8's background jobs (bench/RESULTS.md).
void runCli('leap', () => main(process.argv.slice(2), processSubcommandIo()), { exitWhenDone: true });
