// A run's contexts, git and journal (its ends: run-ends.ts); a killed run resumes: docs/decisions/conductor-resume.md.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { appendEvent, createEvent, readStopRequest, runGit, statePaths } from '@leap/core';
import type { EventContext, EventKind, GitResult, StatePaths } from '@leap/core';
import { parseLedger } from '@leap/core/ledger';
import { Stopped } from './bail-causes.js';
import { readJournal, writeJournal, type RunJournal } from './run-files.js';
import type { DryAgents } from './run-agents.js';
import type { ConductorSetup } from './run-options.js';

/** What a run knows before preflight; read-only, as are the contexts after (docs/decisions/conductor-run-state.md). */
export class RunBase {
  readonly paths: StatePaths;
  readonly branch: string;
  readonly issue: number;
  readonly root: string;
  readonly ledgerFile: string;
  readonly ledgerRel: string;

  /** Until preflight pins the run, `skillCommit` (its events') is '' and `env` (all it starts, calls) the setup's. */
  constructor(
    readonly setup: ConductorSetup,
    readonly skillCommit = '',
    readonly env: NodeJS.ProcessEnv = setup.env,
  ) {
    this.paths = statePaths(setup.stateDir);
    this.branch = `leap/issue-${setup.issue}`;
    this.issue = setup.issue;
    this.root = setup.root;
    this.ledgerFile = this.paths.ledger(setup.issue);
    this.ledgerRel = relative(setup.root, this.ledgerFile);
  }

  context(step: string | null): EventContext {
    return { issue: this.issue, step, skillCommit: this.skillCommit === '' ? null : this.skillCommit };
  }

  async say(text: string): Promise<void> {
    this.setup.progress(text);
    try {
      await this.setup.tracker.comment(this.issue, text);
    } catch (error) {
      this.setup.progress(`(could not comment on issue ${this.issue}: ${(error as Error).message})`);
    }
  }

  event(kind: EventKind, fields: Record<string, unknown>, step: string | null): void {
    appendEvent(this.paths.events, createEvent(kind as 'mark', fields as never, this.context(step)));
  }

  /** The issue file's path in the repository, or null when the tracker keeps it elsewhere (a remote issue). */
  issueFileRel(): string | null {
    const file = this.setup.tracker.issueFile?.(this.issue) ?? null;
    const rel = file === null ? null : relative(this.root, file);
    return rel === null || rel.startsWith('..') ? null : rel;
  }

  async tickCriteria(due: (criterion: number) => boolean, step: string | null): Promise<void> {
    const { tracker } = this.setup;
    for (const c of (await tracker.readIssue(this.issue)).criteria) {
      if (c.checked || !due(c.index)) continue;
      await tracker.tickCriterion(this.issue, c.index);
      this.event('tick', { action: 'tick-criterion', title: c.text, criterion: c.index }, step);
      await this.say(`criterion ${c.index} ticked: ${c.text}`);
    }
  }

  readLedger(): ReturnType<typeof parseLedger> {
    return parseLedger(readFileSync(this.ledgerFile, 'utf8'), this.ledgerFile);
  }

  /** Read the stop file before a launch: at-leaf and now stop here; at-ledger (or an unreadable one) lets it run. */
  async checkStop(where: string): Promise<void> {
    const stop = readStopRequest(this.paths.stop);
    if (stop.kind === 'requested' && stop.mode !== 'at-ledger') throw new Stopped(stop.mode, where);
  }

  /** At a step boundary any pending stop ends the run; an unreadable request is read as at-ledger. */
  async checkBoundary(where: string): Promise<void> {
    const stop = readStopRequest(this.paths.stop);
    if (stop.kind === 'requested') throw new Stopped(stop.mode, where);
    if (stop.kind === 'unreadable') {
      const why = `The stop request is unreadable (${stop.reason}); someone wanted this run to stop`;
      await this.say(`${why}, so it stops as at-ledger would.`);
      throw new Stopped('unreadable', where);
    }
  }
}

/** After preflight: git, the test command, the pin; `startHead` ('' in preflight) once the branch is checked out. */
export class RunContext extends RunBase {
  readonly git: Git;
  readonly heads: HeadCache;
  readonly testCmd: string;
  readonly dry: DryAgents = new Map();

  constructor(
    setup: ConductorSetup,
    learned: Pick<RunContext, 'git' | 'heads' | 'testCmd' | 'skillCommit' | 'env'>,
    readonly startHead = '',
  ) {
    super(setup, learned.skillCommit, learned.env);
    this.git = learned.git;
    this.heads = learned.heads;
    this.testCmd = learned.testCmd;
  }
}

/** The journal, the one mutable object handed down: persisted, not returned, so a killed run resumes from it. */
export class RunProgress {
  journal: RunJournal;

  constructor(
    private readonly paths: StatePaths,
    private readonly issue: number,
  ) {
    this.journal = readJournal(paths, issue) ?? freshJournal(null, '');
  }

  saveJournal(): void {
    writeJournal(this.paths, this.issue, this.journal);
  }
}

export function freshJournal(base: RunJournal | null, testCmd: string, fields: Partial<RunJournal> = {}): RunJournal {
  return {
    version: 1,
    pid: process.pid,
    base: base?.base ?? null,
    test_cmd: testCmd,
    ...(base?.options === undefined ? {} : { options: base.options }),
    step: null,
    phase: null,
    attempt: 1,
    stage: 'ready',
    leaf: null,
    tree: null,
    phase_base: null,
    reason: null,
    retried: 0,
    ...fields,
  };
}

// Git through core's one runner, no shell (docs/decisions/no-simple-git.md); HEAD read from .git's files, and cached.
/** The run ended without its work done; never 2, which says bad input and nothing touched. */
export const GIT_FAILURE_EXIT = 1;

export interface Git {
  /** A non-zero exit throws core's GitError (exit GIT_FAILURE_EXIT) with git's words, unless `allowFailure`. */
  (args: readonly string[], options?: { input?: string; allowFailure?: boolean }): Promise<GitResult>;
  out(args: readonly string[]): Promise<string>;
  readonly cwd: string;
}

export function createGit(cwd: string, env: NodeJS.ProcessEnv, before?: (args: readonly string[]) => void): Git {
  const git = async (args: readonly string[], options = {}) => {
    before?.(args);
    return runGit(args, { cwd, env, exitCode: GIT_FAILURE_EXIT, ...options });
  };
  return Object.assign(git, { cwd, out: async (args: readonly string[]) => (await git(args)).stdout.trim() });
}

/** As `git log -1 --format=%H%x00%s` prints it (this run's commits are loose); null when only git can say for sure. */
export function headFromFiles(root: string, env: NodeJS.ProcessEnv): { sha: string; subject: string } | null {
  return fromFiles(root, env, (gitDir, head) => {
    const ref = /^ref: (refs\/heads\/[^\n]+)\n$/.exec(head)?.[1];
    const sha = ref === undefined ? head.slice(0, -1) : refSha(gitDir, ref);
    if (sha === null || !SHA.test(sha)) return null;
    const { inflateSync } = process.getBuiltinModule('node:zlib') as typeof import('node:zlib');
    const object = inflateSync(readFileSync(join(gitDir, 'objects', sha.slice(0, 2), sha.slice(2)))).toString('utf8');
    const body = object.indexOf('\0');
    const headers = object.indexOf('\n\n', body);
    if (!object.startsWith('commit ') || body < 0 || headers < 0 || object.slice(body, headers).includes('\nencoding '))
      return null;
    const subject = /^([^\n]+)\n$/.exec(object.slice(headers + 2))?.[1];
    return subject === undefined || subject !== subject.trim() ? null : { sha, subject };
  });
}

/** As `git symbolic-ref --short -q HEAD` and `rev-parse --verify -q refs/heads/BRANCH`; null when only git can say. */
export function branchFromFiles(root: string, env: NodeJS.ProcessEnv, branch: string) {
  return fromFiles(root, env, (gitDir, head) => {
    const current =
      /^ref: refs\/heads\/([^\n]+)\n$/.exec(head)?.[1] ??
      (SHA.test(head.slice(0, -1)) && head.endsWith('\n') ? '' : null);
    if (current === null) return null;
    const sha = refSha(gitDir, `refs/heads/${branch}`);
    return sha !== null && !SHA.test(sha) ? null : { current, exists: sha !== null };
  });
}

const SHA = /^[0-9a-f]{40}$/;

// GIT_DIR and kin, or a reftable (git 2.45+; HEAD then names the stub branch `.invalid`): the files cannot say.
function fromFiles<T>(
  root: string,
  env: NodeJS.ProcessEnv,
  read: (gitDir: string, head: string) => T | null,
): T | null {
  const gitDir = join(root, '.git');
  const elsewhere = ['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY'].some((name) => env[name] !== undefined);
  if (elsewhere || existsSync(join(gitDir, 'reftable'))) return null;
  try {
    return read(gitDir, readFileSync(join(gitDir, 'HEAD'), 'latin1'));
  } catch {
    return null;
  }
}

/** Its loose file, else its line in packed-refs; null when neither has it; throws when the files cannot say. */
function refSha(gitDir: string, ref: string): string | null {
  const loose = readIfThere(join(gitDir, ref));
  if (loose !== null) {
    if (!/^[^\n]*\n$/.test(loose)) throw new Error(`${ref}: not one line`);
    return loose.slice(0, -1);
  }
  const packed = readIfThere(join(gitDir, 'packed-refs'))?.split('\n');
  const line = packed?.find((l) => l.endsWith(` ${ref}`) && !l.startsWith('#') && !l.startsWith('^'));
  return line === undefined ? null : line.slice(0, line.indexOf(' '));
}

function readIfThere(file: string): string | null {
  try {
    return readFileSync(file, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
// HEAD's commit and subject, read once until a git command, a leaf or a ledger transaction may have moved it.
const MOVING = new Set(['commit', 'reset', 'checkout', 'symbolic-ref', 'update-ref', 'read-tree', 'rebase', 'merge']);

export type KnownHead = { sha: string; subject: string | null };

export class HeadCache {
  private known: KnownHead | null = null;

  /** `log` reads `%H%x00%s` of HEAD with git, when .git's files cannot say. */
  constructor(
    private readonly root: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: () => Promise<string>,
  ) {}

  /** Forget HEAD: a commit, a reset, a leaf (agents commit), a ledger transaction. */
  invalidate(): void {
    this.known = null;
  }

  beforeGit(args: readonly string[]): void {
    if (MOVING.has((args[0] === '-c' ? args[2] : args[0]) ?? '')) this.invalidate();
  }

  /** HEAD as a ledger transaction or a `git status --branch` left it, or forgotten when it cannot say. */
  know(head: KnownHead | null): void {
    if (head?.subject === null && head.sha === this.known?.sha) return;
    this.known = head;
  }

  async subject(): Promise<string> {
    if (this.known?.subject == null) this.known = headFromFiles(this.root, this.env);
    if (this.known?.subject == null) {
      const out = await this.log();
      const at = out.indexOf('\0');
      this.known = { sha: out.slice(0, at), subject: out.slice(at + 1) };
    }
    return this.known.subject as string;
  }

  async sha(): Promise<string> {
    if (this.known === null) await this.subject();
    return (this.known as KnownHead).sha;
  }
}

export function openRunGit(root: string, env: NodeJS.ProcessEnv): { git: Git; heads: HeadCache } {
  const heads = new HeadCache(root, env, () => git.out(['log', '-1', '--format=%H%x00%s']));
  const git = createGit(root, env, (args) => heads.beforeGit(args));
  return { git, heads };
}
