import { parseCli, recordMark, runCli, UsageError, writeFd } from '../index.js';

const USAGE = `Usage: leap-event mark NAME [anchor=TEXT] [KEY=VALUE...] [--json]

Appends a mark event to the run's event log (STATE/events.jsonl), with issue, step and
skill commit read from VERI_ISSUE, VERI_STEP and VERI_SKILL_COMMIT. Every argument is data.

Options:
  --json    print the event written, as one JSON line
  --help    show this help

Exit codes: 0 written; 2 usage error or the log could not be written.`;
const OPTIONS = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

void runCli('leap-event', () => {
  const { values, positionals } = parseCli(process.argv.slice(2), OPTIONS, USAGE);
  if (values.help === true) return (writeFd(1, `${USAGE}\n`), 0);
  const [kind, name, ...rest] = positionals;
  if (kind !== 'mark' || name === undefined)
    throw new UsageError(`Expected "mark NAME", got ${JSON.stringify(positionals.slice(0, 2))}\n${USAGE}`);
  const event = recordMark(name, rest);
  if (values.json === true) writeFd(1, `${JSON.stringify(event)}\n`);
  return 0;
});
