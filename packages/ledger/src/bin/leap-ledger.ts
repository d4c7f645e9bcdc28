// leap-ledger: the ledger's queries and its atomic changes (see packages/ledger/README.md).
import { runCli } from '@leap/core';
import { main, processIo } from '../cli.js';
import { EXIT } from '../errors.js';

void runCli('leap-ledger', () => main(process.argv.slice(2), processIo()), {
  internalExitCode: EXIT.internal,
  exitWhenDone: true,
});
