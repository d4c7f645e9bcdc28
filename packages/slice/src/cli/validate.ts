import { resolve } from 'node:path';
import { parseCli, type Subcommand } from '@leap/core';
import { loadSliceFile } from '../definition/read-slice.js';
import { reapFrom } from '../definition/worktree-hint.js';
import { oneFile, printHelp, sliceShape } from './_file-command.js';

const USAGE = `Usage: leap slice validate FILE [--json]

Check a slice file against its JSON Schema and every rule of a slice (unique ids, known
dependencies, no cycle, one write spine, disjoint scopes, paths inside the repository), and
print every violation at once, each naming the field, the ball ids and the files. A valid slice's
warnings go to stderr (a ball with no metric and no "red_first", whose proof may already pass at
base and so only tie); they do not change the exit code.

Options:
  --json   print { "file", "valid", "slice", "balls", "waves", "violations": [{ rule, message, balls, path }],
           "warnings": [{ rule, ball, message }] }
  --help   this text

Exit codes: 0 valid; 1 invalid (malformed JSON included); 2 unreadable file or bad arguments.`;

// No metric and no `red_first`: a proof passing at base ties (a tie loses) four times; warned, not refused.
const TIE_ONLY =
  'has no proof.metric and no "red_first": if its proof already passes at base, every round ties the champion and ' +
  'loses (four times, then a hold); set "red_first": true to have the engine refuse such a proof before round one, ' +
  'or declare a metric to improve';

export const validateCommand: Subcommand = async (argv, io) => {
  if (printHelp(argv, io, USAGE)) return 0;
  // `validate FILE` has no option to parse: parseCli would only load and run util.parseArgs to say so.
  const { values, positionals } = argv.some((arg) => arg.startsWith('-'))
    ? parseCli(argv, { json: { type: 'boolean' } }, USAGE)
    : { values: {}, positionals: argv };
  const file = oneFile(positionals, USAGE);
  const { slice, violations, waves = null } = loadSliceFile(resolve(io.cwd, file));
  if (slice !== null) await reapFrom(io.cwd, slice.id);
  const tieOnly = slice?.balls.filter((b) => b.proof.metric === undefined && b.red_first !== true) ?? [];
  const message = (id: string) => `ball ${JSON.stringify(id)} ${TIE_ONLY}`;
  const warnings = tieOnly.map((b) => ({ rule: 'tie-only', ball: b.id, message: message(b.id) }));
  if (values.json === true) {
    const shape = { file, valid: slice !== null, slice: slice?.id ?? null, balls: slice?.balls.length ?? null };
    io.stdout(`${JSON.stringify({ ...shape, waves: waves?.length ?? null, violations, warnings })}\n`);
  } else if (slice !== null) {
    for (const w of warnings) io.stderr(`${file}: warning: ${w.message}\n`);
    io.stdout(`${file}: a valid slice ${JSON.stringify(slice.id)}: ${sliceShape(slice, waves?.length)}\n`);
  } else {
    const each = violations.map((v) => `${file}: ${v.message}\n`).join('');
    io.stdout(`${each}${file}: ${violations.length} violation${violations.length === 1 ? '' : 's'}\n`);
  }
  return slice === null ? 1 : 0;
};
