// A worker's clone of the shared remote and its balls' worktrees: git commands that can race go one at a time.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { retryWorktreeRace, serial } from '@leap/core';
import { errorOf, git, hasCommit, succeeds } from './git.js';
import { ballBranch } from './protocol.js';
import { redactUrl } from './text.js';

/** A remote the worker could not reach: the job goes back to the queue for another worker. */
export class RemoteError extends Error {}

const FETCH = ['fetch', '--quiet', '--no-write-fetch-head', '--'];

export class WorkerClone {
  readonly bare: string;
  private readonly work: string;
  private readonly once = serial();
  readonly held = new Map<string, { dir: string; head: string }>();
  private readonly releasing = new Set<Promise<void>>();
  /** A second round of a ball in flight here (a rerun, a second engine) gets a worktree and state folder of its own. */
  private readonly inFlight = new Map<string, number>();

  constructor(
    private readonly dir: string,
    private readonly repo: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.bare = join(dir, 'repo.git');
    this.work = join(dir, 'work');
  }

  /** What a killed worker left in this folder: its worktrees (their rounds went back to the queue). */
  async reset(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    rmSync(this.work, { recursive: true, force: true });
    if (existsSync(this.bare)) await this.prune();
  }

  clone(): Promise<void> {
    return this.once(async () => {
      if (existsSync(this.bare)) return;
      const partial = `${this.bare}.partial-${process.pid}`;
      rmSync(partial, { recursive: true, force: true });
      try {
        // The default branch only: the clone names no slice that `leap slice clean` would have to reach.
        await git(this.dir, ['clone', '--bare', '--single-branch', '--quiet', '--', this.repo, partial], this.env);
      } catch (error) {
        rmSync(partial, { recursive: true, force: true });
        throw new RemoteError((error as Error).message);
      }
      // Commits need an identity; a machine without one gets the worker's.
      if ((await git(partial, ['config', 'user.name'], this.env).catch(() => '')).trim() === '') {
        const host = hostname().replace(/[^A-Za-z0-9.-]/g, '-');
        await git(partial, ['config', 'user.name', 'leap worker'], this.env);
        await git(partial, ['config', 'user.email', `leap-worker@${host}.invalid`], this.env);
      }
      renameSync(partial, this.bare);
    });
  }

  // Already here, else fetched by its sha (one trip), else by the ball's branch (a server refusing to be asked a sha).
  fetch(slice: string, ball: string, commit: string): Promise<void> {
    return this.once(async () => {
      if (await hasCommit(this.bare, commit, this.env)) return;
      const branch = ballBranch(slice, ball);
      const bySha = await errorOf(git(this.bare, [...FETCH, this.repo, commit], this.env));
      if (bySha !== null) await this.fetchBranch(branch, commit, bySha);
      const where = `${redactUrl(this.repo)}: its branch ${branch} is elsewhere`;
      if (!(await hasCommit(this.bare, commit, this.env)))
        throw new Error(`the round's commit ${commit} is not on ${where}`);
    });
  }

  private async fetchBranch(branch: string, commit: string, bySha: Error): Promise<void> {
    const ref = `refs/leap-remote/${branch}`;
    try {
      await git(this.bare, [...FETCH, this.repo, `+refs/heads/${branch}:${ref}`], this.env);
    } catch (error) {
      // A remote that answers but lacks the commit is another repository than the engine's: no hand-back, a failure.
      const answers = await succeeds(git(this.bare, ['ls-remote', '--heads', '--', this.repo], this.env));
      // Not refused at once: a worker whose --repo is wrong must not fail a round a rightly set worker builds.
      const wrong = `${redactUrl(this.repo)} (branch ${branch} neither): is --repo the engine's remote?`;
      if (answers) throw new Error(`the round's commit ${commit} is not on ${wrong}`);
      throw new RemoteError(`${bySha.message}; ${(error as Error).message}`);
    }
    // The clone names no slice: the branch fetched is dropped once the commit is here.
    await git(this.bare, ['update-ref', '-d', ref], this.env).catch(() => undefined);
  }

  /** The tag of a round's own worktree and state folder when another round of its ball is in flight here, else null. */
  enter(key: string, round: number): string | null {
    // `~` is in no ball id: a second round's folders cannot be another ball's.
    const own = this.inFlight.has(key) ? `${round}-${randomBytes(4).toString('hex')}` : null;
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    return own;
  }

  leave(key: string): void {
    const left = (this.inFlight.get(key) ?? 1) - 1;
    if (left === 0) this.inFlight.delete(key);
    else this.inFlight.set(key, left);
  }

  // The ball's own checkout, kept round to round, unless another round holds it (`own`); detached, pushed by sha.
  async checkout(slice: string, ball: string, commit: string, own: string | null): Promise<string> {
    const key = `${slice}/${ball}`;
    const have = this.held.get(key);
    if (own === null && have !== undefined && have.head === commit) return have.dir;
    if (own === null) {
      await this.release(key);
      await Promise.all([...this.releasing]);
    }
    const place = join(this.work, slice, own === null ? ball : `${ball}~${own}`);
    rmSync(place, { recursive: true, force: true });
    mkdirSync(join(this.work, slice), { recursive: true });
    // Another worker process on this machine may share the clone: its worktree commands can race ours.
    const add = ['worktree', 'add', '-q', '--detach', place, commit];
    await this.once(() => retryWorktreeRace(() => git(this.bare, add, this.env)));
    if (own === null) this.held.set(key, { dir: place, head: commit });
    return place;
  }

  push(place: string, tip: string, branch: string): Promise<string> {
    const args = ['push', '--quiet', '--force', '--', this.repo, `${tip}:refs/heads/${branch}`];
    return this.once(() => git(place, args, this.env));
  }

  async release(key: string): Promise<void> {
    const have = this.held.get(key);
    if (have === undefined) return;
    this.held.delete(key);
    await this.remove(have.dir);
  }

  releaseLater(key: string): void {
    const done: Promise<void> = this.release(key).finally(() => this.releasing.delete(done));
    this.releasing.add(done);
  }

  // Through `once`, as every add: a worktree removed while another is added can make that add die.
  async remove(place: string): Promise<void> {
    const args = ['worktree', 'remove', '--force', '--force', place];
    const removed = this.once(() => retryWorktreeRace(() => git(this.bare, args, this.env)));
    await removed.catch(() => rmSync(place, { recursive: true, force: true }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.releasing]);
    for (const key of [...this.held.keys()]) await this.release(key);
    await this.prune();
  }

  private prune(): Promise<unknown> {
    return git(this.bare, ['worktree', 'prune'], this.env).catch(() => undefined);
  }
}
