// No shell: bodies go on stdin; a failure is classified once, here, so every caller words a signed-out gh alike.
import { spawn } from 'node:child_process';
import { GitError, LeapError, runGit } from '@leap/core';

/** Why a `gh` call failed: not installed, not logged in, no such issue, or anything else gh refused. */
export type GhFailureKind = 'missing' | 'auth' | 'not-found' | 'failed';

/** A failed `gh` or `git` call: the kind, the command's exit code and its own words. */
export class GhError extends LeapError {
  readonly stderr: string;
  readonly code: number | null;
  constructor(
    readonly kind: GhFailureKind,
    message: string,
    details: { stderr?: string; code?: number | null; cause?: unknown } = {},
  ) {
    // A missing or signed-out gh and an unknown issue are the caller's to fix (2); anything else is gh's failure (1).
    super(message, { exitCode: kind === 'failed' ? 1 : 2, cause: details.cause });
    this.stderr = details.stderr ?? '';
    this.code = details.code ?? null;
  }
}

// `input`: stdin's bytes (a comment or a body); stdin is empty otherwise.
type RunOptions = { cwd: string; env: NodeJS.ProcessEnv; input?: string };
type Ran = { code: number | null; stdout: string; stderr: string };

// Resolves on close, rejects only when it cannot start.
function spawnCollect(command: string, args: string[], options: RunOptions): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const [out, err]: [Buffer[], Buffer[]] = [[], []];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }),
    );
    // gh may exit before reading stdin (a refused flag): a closed pipe is not our failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** Run `gh ARGS`; returns its stdout, throws a GhError saying what went wrong in gh's own words. */
export async function runGh(gh: string, args: string[], options: RunOptions): Promise<string> {
  // gh never prompts from a run: a question it would ask becomes its error instead.
  const env = { ...options.env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1' };
  const ran = await spawnCollect(gh, args, { ...options, env }).catch((cause: NodeJS.ErrnoException) => {
    if (cause.code === 'ENOENT') {
      const install = 'install it (https://cli.github.com) and run `gh auth login`';
      const message = `the GitHub tracker needs the gh CLI, and ${JSON.stringify(gh)} is not on PATH: ${install}`;
      throw new GhError('missing', message, { cause });
    }
    throw new GhError('failed', `could not run ${JSON.stringify(gh)}: ${cause.message}`, { cause });
  });
  if (ran.code === 0) return ran.stdout;
  throw classifyGhFailure(args, ran);
}

/** The GhError for a gh call that exited non-zero (exit 4 is gh's "authentication required"). */
export function classifyGhFailure(args: string[], ran: Ran): GhError {
  const words = ran.stderr.trim() || ran.stdout.trim() || '(gh printed nothing)';
  const what = `gh ${args.slice(0, 2).join(' ')}`;
  const details = { stderr: ran.stderr, code: ran.code };
  if (ran.code === 4 || /To get started with GitHub CLI|not logged in|Bad credentials|HTTP 401/i.test(ran.stderr)) {
    const message = `gh is not logged in to GitHub: run \`gh auth login\` or set GH_TOKEN (${what} said: ${words})`;
    return new GhError('auth', message, details);
  }
  if (/Could not resolve to an? (issue|pull request|Repository)|HTTP 404/i.test(ran.stderr))
    return new GhError('not-found', `${what} found nothing: ${words}`, details);
  return new GhError('failed', `${what} exited ${ran.code ?? 'on a signal'}: ${words}`, details);
}

/** Run `git ARGS` in the repository through core's git runner; a failure is a GhError with git's own words. */
export async function trackerGit(args: string[], options: RunOptions): Promise<string> {
  try {
    return (await runGit(args, options)).stdout;
  } catch (cause) {
    if (!(cause instanceof GitError) || cause.code === null) {
      // The spawn's own words (spawn git ENOENT: git missing, or the folder gone), not the GitError's sentence.
      const spawnError = cause instanceof GitError && cause.cause instanceof Error ? cause.cause : (cause as Error);
      throw new GhError('failed', `could not run git: ${spawnError.message}`, { cause });
    }
    const { stderr, code } = cause;
    throw new GhError('failed', `git ${args.join(' ')} exited ${code}: ${stderr.trim()}`, { stderr, code, cause });
  }
}
