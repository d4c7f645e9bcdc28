import { leafRole, parseCli, runCli, UsageError, writeFd } from '../index.js';

const USAGE = `Usage: leap-role NAME [--json]

Derives actor, phase and attempt from a leaf's name: VERB-PHASE[-N] (develop, verify, verdict;
red, green, refactor), plan[-N], build-BALL-N, review-BALL-FAMILY. Prints "ACTOR PHASE ATTEMPT".

Options:
  --json    print {"actor", "phase", "attempt", "ball"?, "family"?}
  --help    show this help

Exit codes: 0 known shape; 2 unknown shape or usage error.`;
const OPTIONS = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

void runCli('leap-role', () => {
  const { values, positionals } = parseCli(process.argv.slice(2), OPTIONS, USAGE);
  if (values.help === true) return (writeFd(1, `${USAGE}\n`), 0);
  if (positionals.length !== 1) throw new UsageError(`Expected one NAME, got ${positionals.length}\n${USAGE}`);
  const role = leafRole(positionals[0] ?? '');
  writeFd(1, values.json === true ? `${JSON.stringify(role)}\n` : `${role.actor} ${role.phase} ${role.attempt}\n`);
  return 0;
});
