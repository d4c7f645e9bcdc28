/** A queue of one: each piece of work starts when the one before it has ended, whatever its end. */
export function serial(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  };
}

// A worktree another git is making or removing kills git: "fatal: failed to read .git/worktrees/NAME/commondir".
const WORKTREE_RACE = /worktrees\/[^/\s]+\/(?:commondir|gitdir)\b/;

/** Retry a `git worktree` command that lost that race: serializing avoids it within a process, not across. */
export async function retryWorktreeRace<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !WORKTREE_RACE.test(String((error as Error)?.message))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
    }
  }
}
