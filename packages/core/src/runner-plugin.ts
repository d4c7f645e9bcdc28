// Runners found by name (CONTRACT section 8): `--runner NAME` loads the package that NAME names and asks
// its `runner` export for its options and its runner. No command that runs balls names a runner package.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { UsageError, showValue } from './errors.js';
import type { CliOption } from './cli.js';

/**
 * The phases of a round built elsewhere, in order, as a remote runner reports them (`leap status` and `leap
 * report` show one): one list for the runner that reports and the views that show.
 */
export const ROUND_PHASES = ['taken', 'fetching', 'building', 'proving', 'reviewing', 'pushing'] as const;
export type RoundPhase = (typeof ROUND_PHASES)[number];

/** One option a runner adds to the command that runs balls, with its line of the command's help. */
export interface RunnerOption extends CliOption {
  /** The value's placeholder in the usage line (`URL`), absent for a boolean. */
  value?: string;
  help: string;
}

/** Where a run's runner works: the repository, its state folder, the run's environment. */
export interface RunnerContext {
  repoRoot: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
}

/**
 * What a runner package exports as `runner`: its name, its options, and `prepare`, which checks what it
 * was given before anything runs (throwing a UsageError, exit 2, on bad input: the command has taken no
 * lock and written nothing yet) and returns the factory the engine calls once the run has started.
 */
export interface RunnerModule<Runner = unknown> {
  readonly name: string;
  readonly options: Readonly<Record<string, RunnerOption>>;
  prepare(values: Readonly<Record<string, string | boolean | undefined>>, place: { cwd: string; env: NodeJS.ProcessEnv }): Promise<(context: RunnerContext) => Runner>;
  /**
   * `leap slice clean FILE --runner NAME`: remove what the runner keeps of the slice elsewhere (branches on a
   * shared remote, finished jobs), with the same options and checks as `prepare`; what it removed, a line each.
   */
  clean?(slice: string, values: Readonly<Record<string, string | boolean | undefined>>, place: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string[]>;
}

const SHORT_NAME = /^[a-z0-9][a-z0-9-]*$/;
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

/** The package a runner's name stands for: `bullmq` is `@leap/runner-bullmq`; a package name is itself. */
export function runnerPackage(name: string): string {
  if (SHORT_NAME.test(name)) return `@leap/runner-${name}`;
  if (PACKAGE_NAME.test(name)) return name;
  throw new UsageError(`Expected --runner to be local, a runner's short name (bullmq) or its package's name, got ${showValue(name)}`);
}

/** The value of `--runner` in argv, before the command parses it (a runner's options are part of that parse); undefined when absent. */
export function runnerNameIn(argv: readonly string[]): string | undefined {
  let name: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    if (arg === '--runner') name = argv[(i += 1)];
    else if (arg.startsWith('--runner=')) name = arg.slice('--runner='.length);
  }
  return name;
}

/**
 * Load the runner NAME: its package as the repository at `cwd` resolves it (a runner the user installed
 * in their project), else as the toolchain resolves it (one installed beside it, as a global leap's); then
 * check that its `runner` export is a runner module.
 */
export async function loadRunner<Runner>(name: string, cwd: string): Promise<RunnerModule<Runner>> {
  const specifier = runnerPackage(name);
  const loaded = await importInstalled(specifier, cwd, `--runner ${name}`);
  const runner = (loaded as { runner?: Partial<RunnerModule<Runner>> } | null)?.runner;
  if (typeof runner !== 'object' || runner === null || typeof runner.prepare !== 'function' || typeof runner.options !== 'object' || runner.options === null) {
    throw new UsageError(`--runner ${name}: the package ${specifier} is not a runner (it exports no "runner" with "options" and "prepare")`);
  }
  for (const key of Object.keys(runner.options)) {
    if (key === 'runner' || !/^[a-z][a-z0-9-]*$/.test(key)) throw new UsageError(`--runner ${name}: the package ${specifier} declares an option named ${showValue(key)}, which no command can take`);
  }
  return runner as RunnerModule<Runner>;
}

/**
 * Import `specifier` (a package, or a path of one) as the project at `cwd` resolves it, else as the toolchain
 * does: a plugin installed on its own (the BullMQ runner), not bundled with the command. `what` needs it; missing,
 * it is a UsageError naming the command that installs it.
 */
export async function importInstalled(specifier: string, cwd: string, what: string): Promise<unknown> {
  const pkg = /^(@[^/]+\/)?[^/]+/.exec(specifier)?.[0] ?? specifier;
  try {
    return await import(resolveFrom(cwd, specifier) ?? specifier);
  } catch (cause) {
    // ESM says ERR_MODULE_NOT_FOUND, a bundled bin's require MODULE_NOT_FOUND; the package itself, not one of its imports.
    const code = (cause as NodeJS.ErrnoException).code;
    const missing = (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((cause as Error).message).includes(`'${specifier}'`);
    throw new UsageError(
      missing
        ? `${what} needs the package ${pkg}, which is not installed: npm i -D ${pkg} (beside @leap/cli; npm i -g ${pkg} for a global leap)`
        : `${what}: the package ${pkg} did not load: ${String((cause as Error).message).split('\n')[0]}`,
      { cause },
    );
  }
}

// The package's entry as Node resolves it from the folder (its node_modules and those above); null when it does not.
function resolveFrom(cwd: string, specifier: string): string | null {
  try {
    return createRequire(join(cwd, 'package.json')).resolve(specifier);
  } catch {
    return null;
  }
}

/** The help lines of a runner's options, aligned as a command's `Options:` block is. */
export function runnerUsage(runner: Pick<RunnerModule, 'name' | 'options'>): string {
  const rows = Object.entries(runner.options).map(([key, option]) => [`--${key}${option.value === undefined ? '' : ` ${option.value}`}`, option.help] as const);
  const width = Math.max(0, ...rows.map(([flag]) => flag.length)) + 2;
  return [`Options of --runner ${runner.name}:`, ...rows.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`)].join('\n');
}
