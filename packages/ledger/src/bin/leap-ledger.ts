// leap-ledger: the ledger's queries and its atomic changes (see packages/ledger/README.md).
import { runCli } from '@leap/core';
import { EXIT } from '../exit-codes.js';
import { processIo } from '../cli/io.js';
import { main } from '../cli/main.js';

void runCli('leap-ledger', () => main(process.argv.slice(2), processIo()), { internalExitCode: EXIT.internal, exitWhenDone: true });
