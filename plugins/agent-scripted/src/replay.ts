// One launch of the scripted agent, as a function: the bin is a shim around it.
import { join } from 'node:path';
import { readScript } from './script-file.js';
import { answerText, applyEdits, claimNextMove, commitAll, scriptStateDir } from './replay-move.js';

/** The line a `dry` move ends with on stderr, before its kind; the plugin's ranDry reads it. */
export const DRY_LINE = 'leap-scripted-agent: the vendor ran dry: ';

/** Claim the next move of `scriptFile`, record `prompt`, apply its edits and commit in `cwd`; 3: no move left. */
export function replayNextMove(scriptFile: string, prompt: string, cwd: string) {
  const script = readScript(scriptFile);
  const claimed = claimNextMove(scriptFile, script, prompt);
  if (claimed === null) {
    const stderr = `leap-scripted-agent: no move left in ${scriptFile} (${script.moves.length} replayed)\n`;
    return { code: 3, stdout: '', stderr, hang: false, sleepMs: 0, waitFor: null, index: null };
  }
  const { index, move } = claimed;
  applyEdits(cwd, move.edits ?? []);
  if (move.commit !== undefined) commitAll(cwd, move.commit);
  const stderr = `${move.stderr ?? ''}${move.dry === undefined ? '' : `${DRY_LINE}${move.dry}\n`}`;
  const waitFor = move.wait_for === undefined ? null : join(scriptStateDir(scriptFile), move.wait_for);
  const code = move.exit ?? (move.dry === undefined ? 0 : 1);
  return {
    code,
    stdout: answerText(move),
    stderr,
    hang: move.hang === true,
    sleepMs: move.sleep_ms ?? 0,
    waitFor,
    index,
  };
}
