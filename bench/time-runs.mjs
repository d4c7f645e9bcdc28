// Wall times of commands, taken by time-runs.sh: from a small bash, as a shell runs them, so no figure
// carries the cost of forking the bench's own Node process (several ms here: its heap is copied on write).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = join(dirname(fileURLToPath(import.meta.url)), 'time-runs.sh');

/**
 * Time `runs` runs of `cmd` (argv), each after a run of `base` when one is given. `input`: a file piped to
 * `cmd`'s stdin. Every run of `cmd` must exit with `expect`. Returns [baseMs[], cmdMs[]] (baseMs NaN without base).
 */
export function timeRuns(runs, cmd, { base = [], input = '', env = process.env, cwd, expect = 0 } = {}) {
  const r = spawnSync(
    'bash',
    [script, String(runs), String(expect), input, String(base.length), ...base, '--', ...cmd],
    { env, cwd, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`time-runs.sh ${cmd.join(' ')}: exit ${r.status}: ${r.stderr}`);
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((line) => line.split(' ').map((us) => Number(us) / 1000));
  return [lines.map((l) => (l.length > 1 ? l[0] : Number.NaN)), lines.map((l) => l[l.length - 1])];
}
