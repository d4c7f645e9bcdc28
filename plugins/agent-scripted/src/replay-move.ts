// Replaying a script: claim the next move (safe with concurrent launches), apply its edits, answer.
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { GitError, LeapError, UsageError, runGitSync, showValue } from '@leap/core';
import type { Script, ScriptEdit, ScriptMove } from './script-file.js';

/** The folder next to the script where claims and received prompts are kept. */
export function scriptStateDir(scriptFile: string): string {
  return `${scriptFile}.state`;
}

/** The file that records move `index`'s claim and the prompt it received. */
export function movePromptFile(scriptFile: string, index: number): string {
  return join(scriptStateDir(scriptFile), `move-${index}.prompt`);
}

/** Its prompt file created exclusively (O_EXCL): two agents launched at once never replay the same move. */
export function claimNextMove(
  scriptFile: string,
  script: Script,
  prompt: string,
): { index: number; move: ScriptMove } | null {
  mkdirSync(scriptStateDir(scriptFile), { recursive: true });
  for (let index = 0; index < script.moves.length; index++) {
    let fd: number;
    try {
      fd = openSync(movePromptFile(scriptFile, index), 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    try {
      writeSync(fd, prompt);
    } finally {
      closeSync(fd);
    }
    return { index, move: script.moves[index] as ScriptMove };
  }
  return null;
}

/** Apply edits inside `cwd`; a path that is absolute or leaves `cwd` is refused before anything changes. */
export function applyEdits(cwd: string, edits: readonly ScriptEdit[]): void {
  const targets = edits.map((edit) => {
    const relative = normalize(edit.path);
    if (isAbsolute(relative) || relative === '..' || relative.startsWith(`..${sep}`)) {
      throw new UsageError(`Expected an edit path inside the working folder, got ${showValue(edit.path)}`);
    }
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
  // core's git runner loads node:child_process on its first run: only a move with a commit pays for it.
  try {
    runGitSync(['add', '-A'], { cwd });
    runGitSync(['commit', '-q', '-m', message], { cwd });
  } catch (cause) {
    const said = (cause instanceof GitError ? cause.stderr : String(cause)).trim() || String(cause);
    throw new LeapError(`git commit in ${cwd} failed: ${said}`, { cause });
  }
}

/** The text a move prints: a string as is, any other value as JSON, nothing when it has no answer. */
export function answerText(move: ScriptMove): string {
  if (move.answer === undefined) return '';
  return typeof move.answer === 'string' ? move.answer : JSON.stringify(move.answer);
}
