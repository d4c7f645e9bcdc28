// Replaying a script: claim the next move (safe with concurrent launches), apply its edits, answer.
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { LeapError, UsageError, showValue } from '@leap/core';
import type { Script, ScriptEdit, ScriptMove } from './script-file.js';

/** The folder next to the script where claims and received prompts are kept. */
export function scriptStateDir(scriptFile: string): string {
  return `${scriptFile}.state`;
}

/** The file that records move `index`'s claim and the prompt it received. */
export function movePromptFile(scriptFile: string, index: number): string {
  return join(scriptStateDir(scriptFile), `move-${index}.prompt`);
}

/**
 * Claim the first unclaimed move by creating its prompt file exclusively (O_EXCL), so two agents
 * launched at once never replay the same move; the file receives the prompt. Null when none is left.
 */
export function claimNextMove(scriptFile: string, script: Script, prompt: string): { index: number; move: ScriptMove } | null {
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

/** Commit everything in `cwd` with `message` (git, no shell). */
export function commitAll(cwd: string, message: string): void {
  // Loaded here, not at start-up: only a move with a commit needs it, and bundles that inline this module never do.
  const { execFileSync } = process.getBuiltinModule('node:child_process');
  try {
    execFileSync('git', ['add', '-A'], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    execFileSync('git', ['commit', '-q', '-m', message], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (cause) {
    throw new LeapError(`git commit in ${cwd} failed: ${String((cause as { stderr?: Buffer }).stderr ?? cause).trim()}`, { cause });
  }
}

/** The text a move prints: a string as is, any other value as JSON, nothing when it has no answer. */
export function answerText(move: ScriptMove): string {
  if (move.answer === undefined) return '';
  return typeof move.answer === 'string' ? move.answer : JSON.stringify(move.answer);
}
