// Every exit code of the four commands, decided in one place (README "Exit codes" mirrors this file).

/** A usage or internal error of one of our commands (GNU timeout's 125): never a leaf's answer. */
export const EXIT_USAGE = 125;
/** The leaf's command exists but cannot be executed (a directory, no execute permission). */
export const EXIT_CANNOT_EXECUTE = 126;
export const EXIT_NOT_FOUND = 127;
/** Every kill the supervisor records (timeout, stuck, stop, signal, external) and a refused launch. */
export const EXIT_KILLED = 2;

/** leap-wait: the supervisor is gone and left no exit file. */
export const WAIT_SUPERVISOR_GONE = 2;
/** leap-wait: the budget is spent and the leaf still runs (call again). */
export const WAIT_BUDGET_SPENT = 3;

/** leap-detach: the supervisor died (or never became ready) during start-up. */
export const DETACH_START_FAILED = 1;

/** leap-stop check: a stop is pending (the mode is printed). */
export const STOP_PENDING = 0;
/** leap-stop check: the stop file exists but is unreadable or holds something else. */
export const STOP_UNREADABLE = 2;
export const STOP_NONE = 3;
