// The conductor's own detection, checked: its programs installed, npm if no lock file, a watch script's run form.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError, findExecutable, orElse, showValue } from '@leap/core';
import type { Ask } from './init-ask.js';
import type { Decided } from './init-show.js';

export interface TestCommandCandidate {
  command: string;
  because: string;
  /** What init changed and why (the package manager it could not find, a watch mode's run form). */
  notes: string[];
  /** Why the command cannot run here, or null: a command with a problem is never written. */
  problem: string | null;
}

// Words a shell runs without a program of that name, and words that only start the program after them.
const BUILTINS = new Set('true false echo test [ cd exit export set : exec printf if then fi'.split(' '));
const PREFIXES = new Set(['env', 'cross-env', 'command', 'time', 'nice']);
const MANAGERS: Record<string, string> = { 'pnpm-lock.yaml': 'pnpm', 'yarn.lock': 'yarn' };

/** The project's candidate test commands, as the conductor sees them, each checked against this machine. */
export async function testCommandCandidates(root: string, env: NodeJS.ProcessEnv): Promise<TestCommandCandidate[]> {
  const { testCommandCandidates: candidates, watchModeOf } = await import('@leap/conductor');
  const has = (name: string): boolean => findExecutable(name, env.PATH, root) !== null;
  const local = (bin: string) => existsSync(join(root, 'node_modules', '.bin', bin));
  const runnable = (name: string) => has(name) || local(name) || (name.includes('/') && existsSync(join(root, name)));
  const script = testScript(root);
  const theScript = `the "test" script (\`${script}\`)`;
  return candidates(root).map((found) => {
    const out: TestCommandCandidate = { ...found, notes: [], problem: null };
    const program = found.command.split(' ')[0] as string;
    if (!has(program)) {
      const lock = Object.keys(MANAGERS).find((file) => MANAGERS[file] === program);
      if (lock === undefined || !has('npm')) {
        out.problem = `${program} is not installed (not on PATH): install it, or give the test command with --test-cmd`;
        return out;
      }
      out.command = found.command.replace(program, 'npm');
      out.notes.push(
        `${lock} names ${program}, which is not installed: \`corepack enable\` installs it ` +
          `(then ${found.command} works too); npm runs the same script meanwhile`,
      );
    }
    if (script === null || !/^(npm|pnpm|yarn) test$/.test(out.command)) return out;
    const commands = simpleCommands(script);
    for (const [name, next] of commands.map(programOf)) {
      if (name === undefined || BUILTINS.has(name)) continue;
      if (name === 'npx' && next !== undefined && !local(next)) {
        out.problem =
          `${theScript} calls npx ${next}, and ${next} is not installed in node_modules: ` +
          "install the project's dependencies first";
      } else if (name !== 'npx' && !runnable(name)) {
        out.problem =
          `${theScript} calls ${name}, which is not installed: ` +
          "install it (or the project's dependencies), or give the test command with --test-cmd";
      }
      if (out.problem !== null) return out;
    }
    const watch = watchModeOf(root, out.command);
    if (watch === null) return out;
    const waits = `${theScript} runs \`${watch.seen}\`, which waits for file changes instead of ending`;
    // A script of several commands only its author can change.
    if (commands.length > 1)
      out.problem = `${waits}: make it run the suite once, or give the test command with --test-cmd`;
    else {
      out.notes.push(`${waits}: its run form is proposed`);
      out.command = watch.runForm;
    }
    return out;
  });
}

function testScript(root: string): string | null {
  const test: unknown = orElse(() => JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts?.test, null);
  return typeof test === 'string' ? test : null;
}

// The program a simple command starts (after assignments and starters like env), and the word after it.
function programOf(words: string[]): [string | undefined, string | undefined] {
  const i = words.findIndex((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) && !PREFIXES.has(w));
  return i === -1 ? [undefined, undefined] : [words[i], words.slice(i + 1).find((w) => !w.startsWith('-'))];
}

// A script's simple commands as words: split at ; & | and newlines, quotes taken out. Enough to read, never run.
function simpleCommands(script: string): string[][] {
  return script
    .split(/[;&|\n]+/)
    .map((part) => (part.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^(["'])([\s\S]*)\1$/, '$2')))
    .filter((words) => words.length > 0);
}

type Chosen = Decided['testCommand'];

export function chooseTestCommand(
  given: string | undefined,
  existing: Record<string, unknown> | null,
  candidates: TestCommandCandidate[],
  noQuestion: boolean,
): Chosen {
  if (given !== undefined) {
    if (given.trim() === '') throw new UsageError('Expected --test-cmd to be a command, got ""');
    return { command: given, source: '--test-cmd' };
  }
  if (typeof existing?.testCommand === 'string') return { command: existing.testCommand, source: 'leap.config.json' };
  const usable = candidates.filter((c) => c.problem === null);
  if (usable.length === 1) return { command: usable[0]!.command, source: `detected: ${usable[0]!.because}` };
  if (usable.length > 1 && noQuestion) {
    const list = usable.map((c) => `${showValue(c.command)} (${c.because})`).join(', ');
    throw new UsageError(`several test commands are possible, give one with --test-cmd: ${list}`);
  }
  return null;
}

export async function askTestCommand(ask: Ask, known: Chosen, all: TestCommandCandidate[]): Promise<Chosen> {
  const candidates = all.filter((c) => c.problem === null);
  if (known === null && candidates.length > 1) {
    const list = candidates.map((c, i) => `  ${i + 1}. ${c.command}  (${c.because})`).join('\n');
    const question = `Several test commands are possible:\n${list}\nWhich one (a number, or type a command) [1]: `;
    const answer = (await ask(question)).trim();
    const pick = candidates[(answer === '' ? 1 : /^[0-9]+$/.test(answer) ? Number(answer) : 0) - 1];
    return pick === undefined
      ? { command: answer, source: 'typed' }
      : { command: pick.command, source: `chosen: ${pick.because}` };
  }
  const shown = known === null ? 'none detected; empty leaves it out' : known.command;
  const answer = (await ask(`Test command [${shown}]: `)).trim();
  return answer === '' ? known : { command: answer, source: 'typed' };
}
