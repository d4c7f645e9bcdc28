// leap-ledger: the ledger's queries and its atomic changes (see packages/ledger/README.md).
import { runCli } from '@leap/core';
import { main, processIo } from '../cli.js';
import { EXIT } from '../input.js';

const options = { internalExitCode: EXIT.internal, exitWhenDone: true };
void runCli('leap-ledger', () => main(process.argv.slice(2), processIo()), options);
