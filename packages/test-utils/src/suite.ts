// uvu's suite, with one hole closed: uvu 0.5 runs a suite's `before` hooks inside a try whose `finally`
// returns, so a hook that throws (a browser that is not installed, a server that did not start) ends the
// suite with no failure and exit code 0, its tests counted as neither passed nor failed. Here a failed
// `before` hook is kept and thrown again by every test of the suite, so each one fails with its cause.
import { suite as uvuSuite, type Test } from 'uvu';

type Hook = (context: Record<string, unknown>) => unknown;

/** A uvu suite whose failed `before` hook fails every test of the suite (see above). */
export function suite(name?: string): Test {
  const made = uvuSuite(name);
  const register = made.before;
  let failure: { error: unknown } | null = null;
  const before = (hook: Hook) =>
    register(async (context) => {
      try {
        await hook(context);
      } catch (error) {
        failure ??= { error };
      }
    });
  register.each(() => {
    if (failure !== null) throw failure.error;
  });
  (made as { before: unknown }).before = Object.assign(before, { each: register.each });
  return made;
}
