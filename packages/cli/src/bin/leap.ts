// leap: the umbrella command (see packages/cli/README.md).
import { processSubcommandIo, runCli } from '@leap/core';
import { main } from '../main.js';

void runCli('leap', () => main(process.argv.slice(2), processSubcommandIo()));
