// Agent plugins' tests: run an invocation as a supervisor would, with the plugin's stand-in CLIs first on PATH.
import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { git, makeGitRepo, makeTempDir, runCommand, type RunResult } from './index.js';

/** A command line as an agent plugin builds it (core's AgentInvocation, structurally). */
export interface StandInInvocation {
  command: string;
  args: string[];
  stdin?: string;
  env?: Record<string, string | undefined>;
}

/** A user other than root to run as, when this process is root and may switch (nobody); else null. */
export const OTHER_USER = process.getuid?.() === 0 ? 65534 : null;

/** The helpers of one plugin's tests: `fixtures` holds its stand-in CLIs and `recorded/RUN/FILE` runs of the real one. */
export function standInCli(fixtures: string, loggedIn: Record<string, string>) {
  return {
    /**
     * Run an invocation with the stand-in CLIs first on PATH, its variables merged over ours (`undefined`
     * removes one), logged in unless `env` says otherwise; as user `uid` when given.
     */
    runInvocation(
      invocation: StandInInvocation,
      env: Record<string, string | undefined> = {},
      cwd?: string,
      uid?: number,
    ): Promise<RunResult> {
      // Another user may not reach the clone (under /root, or any home folder only its owner enters): its
      // stand-ins, and the fixture folders a login names (a CODEX_HOME), are copied where every user can read them.
      const onPath = uid === undefined ? fixtures : copyForEveryone(fixtures);
      const login = Object.fromEntries(
        Object.entries(loggedIn).map(([k, v]) => [
          k,
          v.startsWith(`${fixtures}/`) ? onPath + v.slice(fixtures.length) : v,
        ]),
      );
      // A temp folder of its own, as on a machine whose projects are not in /tmp: where the clone lives (its
      // fixtures, a CODEX_HOME among them) must not decide what a CLI's check says (a test may give its own).
      const merged: Record<string, string | undefined> = {
        ...process.env,
        PATH: `${onPath}:${process.env.PATH ?? ''}`,
        TMPDIR: makeTempDir('leap-tmpdir-'),
        ...login,
        ...env,
        ...invocation.env,
      };
      for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
      const as = uid === undefined ? {} : { uid, gid: uid };
      return runCommand(invocation.command, invocation.args, {
        env: merged as NodeJS.ProcessEnv,
        cwd,
        input: invocation.stdin ?? '',
        ...as,
      });
    },
    /** One file of a recorded run of the real CLI (FIXTURES/recorded/RUN/FILE). */
    recorded(run: string, file: string): string {
      return readFileSync(join(fixtures, 'recorded', run, file), 'utf8');
    },
  };
}

// `dir` (its recorded runs aside) copied into a temp folder every user may enter: folders and files readable,
// executable where they were.
function copyForEveryone(dir: string, copy = makeTempDir('leap-stand-ins-')): string {
  mkdirSync(copy, { recursive: true });
  chmodSync(copy, 0o755);
  for (const entry of readdirSync(dir)) {
    const [from, to] = [join(dir, entry), join(copy, entry)];
    const stat = statSync(from);
    if (stat.isDirectory() && entry !== 'recorded') copyForEveryone(from, to);
    if (!stat.isFile()) continue;
    cpSync(from, to);
    chmodSync(to, (stat.mode & 0o100) !== 0 ? 0o755 : 0o644);
  }
  return copy;
}

/** A fresh worktree of a fresh repository, as the conductor gives a builder; readable by every user. */
export function makeWorktree(): string {
  const repo = makeGitRepo({ files: { 'README.md': 'hello\n' } });
  const tree = join(makeTempDir('leap-worktree-'), 'wt');
  git(repo, 'worktree', 'add', '-q', '-b', 'leap/ball', tree);
  for (const dir of [repo, dirname(tree), tree]) chmodSync(dir, 0o755);
  return tree;
}
