// Two helpers for work on one git repository from several places at once.

/** A queue of one: each piece of work starts when the one before it has ended, whatever its end. */
export function serial(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const next = tail.then(work, work);
    tail = next.catch(() => undefined);
    return next;
  };
}

// git reads every linked worktree's administrative files when it moves a branch (`worktree add -B`
// asks whether another worktree has it checked out) or lists the worktrees. One that another git is
// making or removing at that moment (its commondir created and not yet filled, or already deleted)
// makes it die: "fatal: failed to read .git/worktrees/NAME/commondir: Success".
const WORKTREE_RACE = /worktrees\/[^/\s]+\/(?:commondir|gitdir)\b/;

/**
 * Run `work` (a `git worktree` command), again when it failed only because another git was making or
 * removing a worktree of the same repository at that moment: up to `attempts` times in all, 20, 40, 80, 160 ms apart.
 * Within one process, serializing the commands avoids the race; across processes only a retry can.
 */
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
