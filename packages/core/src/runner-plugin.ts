// Runners found by name (CONTRACT section 8): no command that runs balls names a runner package.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { orElse, showValue, UsageError } from './errors.js';
import type { CliOption } from './cli.js';

/** A remote round's phases in order: one list for the runner that reports them and the views that show them. */
export const ROUND_PHASES = ['taken', 'fetching', 'building', 'proving', 'reviewing', 'pushing'] as const;
export type RoundPhase = (typeof ROUND_PHASES)[number];

/** `value`: the option's placeholder in the usage line (`URL`), absent for a boolean. */
type RunnerOption = CliOption & { value?: string; help: string };
type RunnerContext = { repoRoot: string; stateDir: string; env: NodeJS.ProcessEnv };
type RunnerValues = Readonly<Record<string, string | boolean | undefined>>;
type RunnerPlace = { cwd: string; env: NodeJS.ProcessEnv };

/** A runner package's `runner` export; `prepare` checks its input before any lock or write (UsageError, exit 2). */
export interface RunnerModule<Runner = unknown> {
  readonly name: string;
  readonly options: Readonly<Record<string, RunnerOption>>;
  prepare(values: RunnerValues, place: RunnerPlace): Promise<(context: RunnerContext) => Runner>;
  /** `leap slice clean`: remove the slice's leftovers elsewhere (remote branches, jobs); returns a line for each. */
  clean?(slice: string, values: RunnerValues, place: RunnerPlace): Promise<string[]>;
}

const SHORT_NAME = /^[a-z0-9][a-z0-9-]*$/;
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;

/** The package a runner's name stands for: `bullmq` is `@leap/runner-bullmq`; a package name is itself. */
export function runnerPackage(name: string): string {
  if (SHORT_NAME.test(name)) return `@leap/runner-${name}`;
  if (PACKAGE_NAME.test(name)) return name;
  throw new UsageError(
    `Expected --runner to be local, a runner's short name (bullmq) or its package's name, got ${showValue(name)}`,
  );
}

/** `--runner` from argv before the parse, since the runner's options are part of that parse. */
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

/** Load runner NAME (importInstalled: any plugin) as the project at `cwd` resolves it, else as the toolchain does. */
export async function loadRunner<Runner>(name: string, cwd: string): Promise<RunnerModule<Runner>> {
  const specifier = runnerPackage(name);
  const loaded = await importInstalled(specifier, cwd, `--runner ${name}`);
  const runner = (loaded as { runner?: Partial<RunnerModule<Runner>> } | null)?.runner;
  const what = `--runner ${name}: the package ${specifier}`;
  if (typeof runner?.prepare !== 'function' || typeof runner.options !== 'object' || runner.options === null)
    throw new UsageError(`${what} is not a runner (it exports no "runner" with "options" and "prepare")`);
  for (const key of Object.keys(runner.options))
    if (key === 'runner' || !/^[a-z][a-z0-9-]*$/.test(key))
      throw new UsageError(`${what} declares an option named ${showValue(key)}, which no command can take`);
  return runner as RunnerModule<Runner>;
}

export async function importInstalled(specifier: string, cwd: string, what: string): Promise<unknown> {
  const pkg = /^(@[^/]+\/)?[^/]+/.exec(specifier)?.[0] ?? specifier;
  try {
    return await import(orElse(() => createRequire(join(cwd, 'package.json')).resolve(specifier), specifier));
  } catch (cause) {
    // ESM says ERR_MODULE_NOT_FOUND, a bundled bin's require MODULE_NOT_FOUND; the package itself, not its imports.
    const [code, message] = [(cause as NodeJS.ErrnoException).code, String((cause as Error).message)];
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${specifier}'`);
    throw new UsageError(
      missing
        ? `${what} needs the package ${pkg}, which is not installed: ` +
            `npm i -D ${pkg} (beside @leap/cli; npm i -g ${pkg} for a global leap)`
        : `${what}: the package ${pkg} did not load: ${message.split('\n')[0]}`,
      { cause },
    );
  }
}

/** The help lines of a runner's options, aligned as a command's `Options:` block is. */
export function runnerUsage(runner: Pick<RunnerModule, 'name' | 'options'>): string {
  const rows = Object.entries(runner.options).map(
    ([key, option]) => [`--${key}${option.value === undefined ? '' : ` ${option.value}`}`, option.help] as const,
  );
  const width = Math.max(0, ...rows.map(([flag]) => flag.length)) + 2;
  const lines = rows.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`);
  return [`Options of --runner ${runner.name}:`, ...lines].join('\n');
}
