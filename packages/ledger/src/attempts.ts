// `leap-ledger attempts list | apply`: the attempts preserve-attempt kept, and putting one back.
import { UsageError, resolveStateDir } from '@leap/core';
import { logLedgerEventOrWarn } from './events.js';
import { RefusedError } from './exit-codes.js';
import { runGit } from './git/run-git.js';
import { ATTEMPTS_REF_PREFIX } from './preserve-attempt.js';
import { takeLedgerLock } from './transaction/locks.js';
import { recoverLedger } from './transaction/recover.js';

/** A kept attempt. */
export interface Attempt {
  ref: string;
  commit: string;
  /** When it was kept (ISO 8601). */
  date: string;
  issue: number | null;
  /** The step's title, byte for byte. */
  title: string;
}

/** Options of the attempts commands. */
export interface AttemptsOptions {
  issue?: number | null;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** The kept attempts, oldest first; only issue N's with `issue`. */
export async function listAttempts(options: AttemptsOptions = {}): Promise<Attempt[]> {
  const cwd = options.cwd ?? process.cwd();
  const prefix = `${ATTEMPTS_REF_PREFIX}${options.issue === undefined || options.issue === null ? '' : `issue-${options.issue}/`}`;
  const format = '%(refname)%00%(objectname)%00%(creatordate:iso-strict)%00%(contents:body)%00';
  const out = await runGit(['for-each-ref', '--sort=creatordate', `--format=${format}`, prefix], { cwd, env: options.env });
  const attempts: Attempt[] = [];
  for (const record of out.stdout.split('\0\n')) {
    const [ref, commit, date, body] = record.split('\0');
    if (ref === undefined || commit === undefined || date === undefined || body === undefined) continue;
    const issue = /^refs\/leap\/attempts\/issue-([0-9]+)\//.exec(ref)?.[1];
    attempts.push({ ref, commit, date, issue: issue === undefined ? null : Number(issue), title: body.replace(/\n$/, '') });
  }
  return attempts;
}

/** `REF<TAB>DATE<TAB>TITLE` lines, or JSON lines. */
export function formatAttempts(attempts: readonly Attempt[], json: boolean): string {
  let out = '';
  for (const a of attempts) out += json ? `${JSON.stringify(a)}\n` : `${a.ref}\t${a.date}\t${a.title}\n`;
  return out;
}

/** Apply a kept attempt's changes to the working tree (a 3-way merge when they no longer apply cleanly). */
export async function applyAttempt(name: string, options: AttemptsOptions = {}): Promise<Attempt> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const ref = name.startsWith('refs/') ? name : `${ATTEMPTS_REF_PREFIX}${name}`;
  if (!ref.startsWith(ATTEMPTS_REF_PREFIX)) throw new UsageError(`Expected an attempt under ${ATTEMPTS_REF_PREFIX}, got ${JSON.stringify(name)}`);
  const stateDir = resolveStateDir(env, cwd);
  const lock = takeLedgerLock(stateDir);
  try {
    await recoverLedger(stateDir, { env, lockHeld: true });
    const attempt = (await listAttempts({ cwd, env })).find((a) => a.ref === ref);
    if (attempt === undefined) throw new UsageError(`no kept attempt ${JSON.stringify(ref)} (leap-ledger attempts list shows them)`);
    const top = (await runGit(['rev-parse', '--show-toplevel'], { cwd, env })).stdout.trim();
    const patch = (await runGit(['diff', '--binary', '--full-index', '--no-color', '--no-ext-diff', `${attempt.commit}^`, attempt.commit], { cwd: top, env })).bytes;
    if (patch.length > 0) {
      const plain = await runGit(['apply', '--whitespace=nowarn'], { cwd: top, env, input: patch, allowFailure: true });
      if (plain.code !== 0) {
        const merged = await runGit(['apply', '--3way', '--whitespace=nowarn'], { cwd: top, env, input: patch, allowFailure: true });
        if (merged.code !== 0) {
          throw new RefusedError(`the attempt ${ref} does not apply to the working tree as it is now: ${(merged.stderr || plain.stderr).trim()}`);
        }
      }
    }
    logLedgerEventOrWarn('leap-ledger', stateDir, env, { action: 'restore', title: attempt.title, commit: attempt.commit, ref }, { issue: attempt.issue, step: attempt.title });
    return attempt;
  } finally {
    lock.release();
  }
}
