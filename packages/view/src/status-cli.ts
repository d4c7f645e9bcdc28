// `leap status [--watch] [--json]` (CONTRACT section 10): where the runs of this repository stand.
import { dirOption, type Subcommand, type SubcommandIo } from '@leap/core';
import { untilSignal, viewOptions } from './_text.js';
import { collectView } from './collect-view.js';
import { renderStatus } from './render-status.js';
import { buildStatus, type StatusData } from './status-data.js';
import { watchStatus } from './watch-status.js';

const STATUS_USAGE = `Usage: leap status [--dir DIR] [--watch] [--json]

Where the runs of this repository stand: each issue's ledger as a progress bar with its steps, the
leaves running now (phase, attempt, elapsed time against the time limit), the last verdicts and
bails, a pending stop, each slice's balls with their receipts, and the tokens and cost so far.
Reads .tdd/ (or VERI_STATE_DIR) and .leap/ at the repository root; writes nothing.

Options:
  --dir DIR the repository to look at (default: the current one)
  --watch   redraw as the event log grows (Ctrl-C ends it); with --json, one JSON line per change
  --json    print the same data as JSON
  --help    this text

Lines of the event log that are not events are skipped and listed with their numbers under
Problems; events of a kind the view does not know are listed as such.

Exit codes:
  0  shown (also when nothing has run yet, or lines were skipped)
  2  bad arguments`;

const terminalWidth = ({ env, isTTY }: SubcommandIo): number =>
  [Number(env.COLUMNS), isTTY ? process.stdout.columns : 0].find((n) => Number.isInteger(n) && n > 0) ?? 100;

const colorOn = ({ env, isTTY }: SubcommandIo): boolean =>
  !env.NO_COLOR && (isTTY || !['', '0', undefined].includes(env.FORCE_COLOR));

export const statusMain: Subcommand = async (argv, io) => {
  const values = viewOptions(argv, { watch: { type: 'boolean' } }, STATUS_USAGE, io);
  if (values === null) return 0;
  const cwd = dirOption(io.cwd, values.dir);
  const draw = (data: StatusData): string => renderStatus(data, { width: terminalWidth(io), color: colorOn(io) });
  if (values.watch !== true) {
    const data = buildStatus(collectView({ cwd, env: io.env }), io.env);
    io.stdout(values.json === true ? `${JSON.stringify(data, null, 2)}\n` : draw(data));
    return 0;
  }
  let frames = 0;
  return untilSignal((signal) =>
    watchStatus({
      cwd,
      env: io.env,
      signal,
      onFrame: (data) => {
        frames++;
        if (values.json === true) io.stdout(`${JSON.stringify(data)}\n`);
        else if (io.isTTY)
          io.stdout(
            `${frames === 1 ? '\x1b[2J' : ''}\x1b[H${fitScreen(draw(data)).replaceAll('\n', '\x1b[K\n')}\x1b[J`,
          );
        else io.stdout(`${frames > 1 ? '\n' : ''}${draw(data)}`);
      },
    }),
  );
};

// Redrawing from the top works only while the frame fits the screen: cut it to the terminal's height.
function fitScreen(frame: string): string {
  const rows = process.stdout.rows;
  if (!(rows > 2)) return frame;
  const lines = frame.split('\n');
  if (lines.length <= rows) return frame;
  const more = `${lines.length - rows + 1} more lines (a taller terminal, or leap status without --watch, shows them)`;
  return `${lines.slice(0, rows - 2).join('\n')}\n… ${more}\n`;
}
