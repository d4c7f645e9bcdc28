// Replaying a script: claim the next move (safe with concurrent launches), apply its edits, answer.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { GitError, LeapError, UsageError, runGitSync, showValue } from '@leap/core';
import type { Script, ScriptEdit, ScriptMove } from './script-file.js';

/** The folder next to the script where claims and received prompts are kept. */
export const scriptStateDir = (scriptFile: string): string => `${scriptFile}.state`;

/** The file that records move `index`'s claim and the prompt it received. */
export const movePromptFile = (scriptFile: string, index: number): string =>
  join(scriptStateDir(scriptFile), `move-${index}.prompt`);

/** Its prompt file created exclusively (O_EXCL): two agents launched at once never replay the same move. */
export function claimNextMove(scriptFile: string, script: Script, prompt: string) {
  mkdirSync(scriptStateDir(scriptFile), { recursive: true });
  for (const [index, move] of script.moves.entries()) {
    try {
      writeFileSync(movePromptFile(scriptFile, index), prompt, { flag: 'wx' });
      return { index, move };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return null;
}

/** Apply edits inside `cwd`; a path that is absolute or leaves `cwd` is refused before anything changes. */
export function applyEdits(cwd: string, edits: readonly ScriptEdit[]): void {
  const targets = edits.map((edit) => {
    const relative = normalize(edit.path);
    if (isAbsolute(relative) || relative === '..' || relative.startsWith(`..${sep}`))
      throw new UsageError(`Expected an edit path inside the working folder, got ${showValue(edit.path)}`);
    return { edit, file: join(cwd, relative) };
  });
  for (const { edit, file } of targets) {
    if ('delete' in edit) {
      rmSync(file, { force: true });
    } else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, edit.content);
    }
  }
}

export function commitAll(cwd: string, message: string): void {
  try {
    runGitSync(['add', '-A'], { cwd });
    runGitSync(['commit', '-q', '-m', message], { cwd });
  } catch (cause) {
    const said = (cause instanceof GitError ? cause.stderr : String(cause)).trim() || String(cause);
    throw new LeapError(`git commit in ${cwd} failed: ${said}`, { cause });
  }
}

/** The text a move prints: a string as is, any other value as JSON, nothing when it has no answer. */
export const answerText = ({ answer }: ScriptMove): string =>
  typeof answer === 'string' ? answer : answer === undefined ? '' : JSON.stringify(answer);
