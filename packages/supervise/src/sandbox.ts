// The sandbox on the host (CONTRACT section 13): bwrap, its trial run, a leaf's; the plan is sandbox-plan.ts.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LeapError, findExecutable, orElse } from '@leap/core';
import { copyTree, makeApart, putBack } from './apart.js';
import { hostView } from './once-view.js';
import { HOME_CACHES, inside, PRIVATE_DIRS } from './sandbox-home.js';
import { SandboxSpecError, bwrapArgs, sandboxEnv, type PlanOptions, type SandboxSpec } from './sandbox-plan.js';
import { EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND } from './exit-codes.js';
import type { LeafCommand } from './spawn-leaf.js';

/** The exit code of a command that cannot make the sandbox it was asked for (CONTRACT section 13). */
export const EXIT_NO_SANDBOX = 2;

export class SandboxUnavailableError extends LeapError {
  constructor(
    message: string,
    readonly reason: 'bwrap-missing' | 'namespaces-refused' | 'bad-spec',
  ) {
    super(message, { exitCode: EXIT_NO_SANDBOX });
  }
}

const INSTALL = 'apt-get install bubblewrap';

export function findBwrap(env: NodeJS.ProcessEnv = process.env): string {
  const bwrap = env.LEAP_BWRAP || findExecutable('bwrap', env.PATH);
  if (bwrap === null || findExecutable(bwrap, env.PATH) === null) {
    throw new SandboxUnavailableError(
      'cannot sandbox the leaf: bwrap (bubblewrap) is not installed ' +
        `(not on PATH${env.LEAP_BWRAP ? `; LEAP_BWRAP=${env.LEAP_BWRAP}` : ''}): ${INSTALL}, or run with --sandbox off`,
      'bwrap-missing',
    );
  }
  return bwrap;
}

export function namespaceCause(stderr: string): string {
  const line = stderr.trim().split('\n')[0]?.trim() || 'no message';
  const cause = /user namespace|uid map|setting up uid|No permissions to creat|max_\S*namespaces|ENOSPC/i.test(line)
    ? 'user namespaces are refused here'
    : /Operation not permitted|Permission denied/i.test(line)
      ? 'namespaces are refused here ' +
        '(no user namespaces, no capability to make them: a container, or a sandbox already)'
      : 'bwrap cannot make its namespaces';
  const allow = `allow them (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0) or ${INSTALL}`;
  return `cannot sandbox the leaf: ${cause} (${line}); ${allow} with its setuid helper, or run with --sandbox off`;
}

const probed = new Map<string, string | null>();
const TRIAL = '--ro-bind / / --dev /dev --proc /proc --unshare-pid --unshare-ipc --unshare-uts --unshare-net'
  .split(' ')
  .concat('--die-with-parent', '--cap-drop', 'ALL', '--', 'true');

/** A trial run with a leaf's namespaces, once per process and bwrap; throws SandboxUnavailableError with the cause. */
export function checkSandbox(env: NodeJS.ProcessEnv = process.env): string {
  const bwrap = findBwrap(env);
  let failure = probed.get(bwrap);
  if (failure === undefined) {
    const trial = spawnSync(bwrap, TRIAL, {
      env: { PATH: env.PATH ?? '/usr/bin:/bin' },
      encoding: 'utf8',
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    failure = trial.status === 0 ? null : namespaceCause(trial.stderr ?? String(trial.error ?? ''));
    probed.set(bwrap, failure);
  }
  if (failure !== null) throw new SandboxUnavailableError(failure, 'namespaces-refused');
  return bwrap;
}

export const resetSandboxCheck = (): void => probed.clear();

export interface PreparedSandbox {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  copy: string | null;
  /** Remove what the sandbox made on the host (the reader's copy and every write in it). Idempotent. */
  cleanup(): void;
}

/** Where a relative argument of the leaf's command line points, when it names an existing file. */
function argvFiles(command: string, args: readonly string[], cwd: string): string[] {
  const out: string[] = [command];
  for (const arg of args) {
    if (arg === '' || arg.length > 4096 || arg.includes('\n') || arg.includes('\0')) continue;
    const path = isAbsolute(arg) ? arg : resolve(cwd, arg);
    if (hostView.kind(path) !== null) out.push(path);
  }
  return out;
}

const badSpec = (why: string) => new SandboxUnavailableError(`cannot sandbox the leaf: ${why}`, 'bad-spec');

/** `env` is the leaf's before filtering; throws SandboxUnavailableError (exit 2), with nothing left behind. */
export function prepareSandbox(
  spec: SandboxSpec,
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  bwrap = findBwrap(env),
  options: { statusFd?: number } = {},
): PreparedSandbox {
  const home = spec.home ?? env.HOME;
  const homeReal = home === undefined || home === '' ? undefined : (hostView.realpath(home) ?? home);
  const tree = hostView.realpath(spec.tree) ?? resolve(spec.tree);
  if (hostView.kind(tree) !== 'dir') throw badSpec(`its tree ${JSON.stringify(spec.tree)} is not a folder`);
  const cwd = spec.cwd === undefined ? tree : (hostView.realpath(spec.cwd) ?? resolve(spec.cwd));
  const resolvedCommand = findExecutable(command, env.PATH, cwd) ?? command;
  const commandReal = hostView.realpath(resolvedCommand) ?? resolvedCommand;
  for (const p of [...(spec.agentPaths ?? []), ...(homeReal === undefined ? [] : HOME_CACHES)]) {
    // Made now if absent: a read-only home inside cannot make them. A place the host refuses stays absent.
    const full = homeReal !== undefined && !isAbsolute(p) ? join(homeReal, p) : resolve(p);
    const folder = !basename(full).slice(1).includes('.');
    if (folder && hostView.kind(full) === null) orElse(() => mkdirSync(full, { recursive: true, mode: 0o700 }), '');
  }
  let copy: string | null = null;
  let apart = spec.role === 'writer' ? (spec.apart ?? null) : null;
  const cleanup = (): void => {
    if (copy !== null) rmSync(copy, { recursive: true, force: true });
    if (apart !== null) putBack(apart);
    copy = apart = null;
  };
  try {
    const keepReadable = [...(spec.keepReadable ?? []), ...argvFiles(commandReal, args, cwd), resolvedCommand];
    // A toolchain in /tmp would be hidden by the private /tmp: readable, unless it holds or lies in the tree.
    const own = toolchainInTmp();
    const ownRead = own !== null && !inside(tree, own) && !inside(own, tree) ? [own] : [];
    const read = [...(spec.read ?? []), ...ownRead];
    const full: SandboxSpec = { ...spec, tree, cwd, home: homeReal, keepReadable, read };
    let copies: PlanOptions = {};
    if (spec.role === 'reader') {
      copy = mkdtempSync(join(tmpdir(), 'leap-reader-'));
      chmodSync(copy, statSync(tree).mode & 0o7777); // the copy's root shows the tree's own mode, not mkdtemp's 0700
      const { stateDirs, linkReadOnly, hide: skip } = spec;
      copies = { copy, linked: copyTree(tree, copy, { stateDirs, linkReadOnly, skip }) };
    } else if (apart !== null) copies = { copy: apart, own: makeApart(tree, apart, spec.stateDirs) };
    const leafArgs = [...bwrapArgs(full, hostView, { ...options, ...copies }), '--', resolvedCommand, ...args];
    // No coverage inside (issue 43): the key is kept, undefined, so Node does not add the caller's NODE_V8_COVERAGE.
    const leafEnv: NodeJS.ProcessEnv = { ...sandboxEnv(env, spec), NODE_V8_COVERAGE: undefined };
    return { command: bwrap, args: leafArgs, env: leafEnv, copy, cleanup };
  } catch (error) {
    cleanup();
    if (error instanceof SandboxSpecError) throw badSpec(error.message);
    throw error;
  }
}

/** The outermost folder with a node_modules above this module, when under /tmp or /var/tmp (a clone), else null. */
let ownPlace: string | null | undefined;
function toolchainInTmp(): string | null {
  if (ownPlace !== undefined) return ownPlace;
  const here = realpathSync.native(fileURLToPath(import.meta.url));
  ownPlace = null;
  for (let up = dirname(here); up !== dirname(up); up = dirname(up)) {
    if (!PRIVATE_DIRS.some((d) => up.startsWith(`${d}/`))) break;
    if (existsSync(join(up, 'node_modules'))) ownPlace = up;
  }
  return ownPlace;
}

/** The role named by `--sandbox` or LEAP_SANDBOX: writer, reader, or null for off. `on` is a writer. */
export function parseSandboxSetting(value: string, what: string): 'writer' | 'reader' | null {
  if (value === 'off') return null;
  if (value === 'on' || value === 'writer') return 'writer';
  if (value === 'reader') return 'reader';
  throw new SandboxSettingError(`${what} must be writer, reader, on or off, got ${JSON.stringify(value)}`);
}

export class SandboxSettingError extends Error {}

type Sandboxed = PreparedSandbox | { code: number; error: string };

/** The leaf's sandbox (the supervisor's state folder hidden in it), or why the leaf cannot start. */
export function sandboxLeaf(spec: SandboxSpec, bwrap: string, leaf: LeafCommand, stateDir: string): Sandboxed {
  const { command, args, env, cwd } = leaf;
  // The command is looked up on the host (the sandbox sees the same files), so 127 and 126 keep their meaning.
  const found = findExecutable(command, env.PATH, cwd);
  if (found === null) {
    const code = cannotExecute(command, env.PATH, cwd) ? EXIT_CANNOT_EXECUTE : EXIT_NOT_FOUND;
    const what = code === EXIT_NOT_FOUND ? 'command not found' : 'cannot execute';
    return { code, error: `${what}: ${JSON.stringify(command)}` };
  }
  try {
    // The path found, not the name: PATH is not walked twice, and what runs is what was checked above.
    const boxed = { ...spec, cwd: spec.cwd ?? cwd, hide: [...(spec.hide ?? []), stateDir] };
    return prepareSandbox(boxed, found, args, env, bwrap, { statusFd: 3 });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return { code: EXIT_NO_SANDBOX, error: error.message };
    throw error;
  }
}

/** Why bwrap could not make the sandbox: the namespaces refused (a trial run says), or a mount it could not make. */
export function sandboxFailure(env: NodeJS.ProcessEnv): string {
  try {
    checkSandbox(env);
  } catch (error) {
    return (error as Error).message;
  }
  return "cannot sandbox the leaf: bwrap could not set up its mounts (its message is in the leaf's stderr)";
}

/** A command that exists where it is looked up but cannot be executed (126 rather than 127). */
function cannotExecute(command: string, path: string | undefined, cwd: string): boolean {
  const dirs = command.includes('/') ? [''] : (path ?? '').split(':').filter((d) => d !== '');
  return dirs.some((dir) => orElse(() => statSync(resolve(cwd, dir, command)), null) !== null);
}
