// leap-ledger: the ledger's queries and its atomic changes (see packages/ledger/README.md).
import { runCli } from '@leap/core';
import { EXIT } from '../exit-codes.js';
import { processIo } from '../cli/io.js';
import { main } from '../cli/main.js';

void runCli('leap-ledger', () => main(process.argv.slice(2), processIo()), { internalExitCode: EXIT.internal }).then(() => {
  // Everything is written synchronously and every git process has ended: exit now rather than wait
  // for Node's slower natural teardown (it frees a 10,000-step ledger's megabyte string first).
  process.exit();
});
