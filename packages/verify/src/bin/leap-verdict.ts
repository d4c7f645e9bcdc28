// leap-verdict --step TITLE PHASE [...]: the verdict launcher the skill supervises as verdict-PHASE.
import { runCli, writeFd } from '@leap/core';
import { takeVerbatim } from '../cli-args.js';
import { runVerdict } from '../verdict-launcher.js';

const USAGE = `Usage: leap-verdict --step TITLE PHASE [leap-verify options]
Runs leap-verify with the same arguments, the step title kept as one argv element (no second shell
ever parses it), and exits with its code. Launched as the supervised leaf verdict-PHASE; the
verifier agent itself runs as the leaf verify-PHASE.
Exit codes: 0 PASS, 1 REJECT, 2 malformed, killed or bad input. The reason goes to stdout.`;

void runCli(
  'leap-verdict',
  async () => {
    const args = process.argv.slice(2);
    const { rest } = takeVerbatim(args, ['step', 'issue', 'ledger', 'spec', 'tests', 'base', 'agent', 'agents'], USAGE);
    if (rest.includes('--help') || rest.includes('-h')) {
      writeFd(1, `${USAGE}\n`);
      return 0;
    }
    return runVerdict(args);
  },
  { exitWhenDone: true },
);
