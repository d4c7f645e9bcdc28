// Leaves that mostly wait (a CLI sleeping between its retries until a watch or a time limit ends it), run side by
// side rather than one after another, so that their waits overlap instead of adding up. Only their start-ups are
// rationed (a CLI's start is the costly part, and a leaf bounded by a time limit must start as fast as it did
// alone): at most `starting` of them start at a time, and the next one starts when one has begun (its run
// called `begun`: its CLI asked the model server something) or ended. Each test still awaits and checks its own:
// `together(keys, starting, start)` gives `get(key)`, whose first call starts every key's run.
export function together<K, T>(
  keys: readonly K[],
  starting: number,
  start: (key: K, begun: () => void) => Promise<T>,
): (key: K) => Promise<T> {
  let runs: Map<K, Promise<T>> | null = null;
  const startAll = () => {
    // Each running leaf listens for the signals it forwards (and for this process's exit): no leak warning for these.
    process.setMaxListeners(process.getMaxListeners() + keys.length);
    const all = new Map<K, Promise<T>>();
    const slots: (() => void)[] = [];
    let free = starting;
    const take = (): Promise<void> => {
      if (free === 0) return new Promise<void>((r) => slots.push(r));
      free--;
      return Promise.resolve();
    };
    const give = () => {
      const next = slots.shift();
      if (next === undefined) free++;
      else next();
    };
    for (const key of keys) {
      let given = false;
      const once = () => {
        if (given) return;
        given = true;
        give();
      };
      const run = take().then(() => start(key, once));
      // A run that ended (or failed) before it began frees its place all the same.
      run.then(once, once);
      // Awaited by its own test; until then a failure must not end the process as an unhandled rejection.
      run.catch(() => {});
      all.set(key, run);
    }
    return all;
  };
  return (key) => {
    runs ??= startAll();
    const run = runs.get(key);
    if (run === undefined) throw new Error(`together: ${String(key)} is not one of the runs started together`);
    return run;
  };
}
