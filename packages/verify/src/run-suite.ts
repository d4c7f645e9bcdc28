// A suite run: the project's test command, sandboxed as a writer of the tree it runs on, recorded as a `suite` event.
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendEvent, createEvent, readEventContext, runGitSync, statePaths, writeFd } from '@leap/core';
import { prepareSandbox, type PreparedSandbox } from '@leap/supervise';
import type { GroundTruthOptions } from './ground-truth.js';
import { childProcess } from './lazy-builtins.js';
import { suiteSandbox } from './leaf-sandbox.js';
import type { Phase } from './phase.js';
import { topLevelName } from './scratch-tree.js';

/**
 * Run the test command with bash in `cwd`; its output goes to our stderr, or is appended to `suiteLog`.
 * Resolves to its exit code (a signal is 128+N). With `stateDir`, the run is recorded as a `suite` event
 * (CONTRACT section 13): the tree it ran on, the command, the exit code, the time, the phase (a conductor's
 * run before any change is `baseline`).
 */
export function runSuite(
  options: Pick<GroundTruthOptions, 'testCmd' | 'env' | 'suiteLog'> & Partial<Pick<GroundTruthOptions, 'stateDir' | 'sandbox'>> & { phase?: Phase | 'baseline'; purpose?: 'canary' | 'rerun' },
  cwd: string,
): Promise<number> {
  const out = options.suiteLog === undefined ? 2 : openSync(options.suiteLog, 'a');
  const line = `leap-verify: ground truth: running VERI_TEST_CMD in ${cwd}\n`;
  if (out === 2) writeFd(2, line);
  else writeSync(out, line);
  const tree = options.stateDir === undefined ? null : workTreeHash(cwd, options.stateDir);
  const started = Date.now();
  // Sandboxed: a writer of the tree with the user's environment, so a test an agent wrote cannot reach home, .git or the state folder.
  let sandbox: PreparedSandbox | null = null;
  const bwrap = options.sandbox?.bwrap ?? null;
  if (bwrap !== null) {
    try {
      sandbox = prepareSandbox(suiteSandbox(cwd, options.stateDir, options.sandbox?.testNetwork === true), 'bash', ['-c', options.testCmd], options.env, bwrap);
    } catch (error) {
      if (out !== 2) closeSync(out);
      return Promise.reject(error);
    }
  }
  return new Promise<number>((resolve) => {
    const [command, args, env] = sandbox === null ? ['bash', ['-c', options.testCmd], options.env] : [sandbox.command, sandbox.args, sandbox.env];
    const child = childProcess().spawn(command, args, { cwd, env, stdio: ['ignore', out, out] });
    child.on('error', () => resolve(127));
    child.on('close', (code, signal) => resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal])));
  })
    .then((code) => {
      if (options.stateDir !== undefined) {
        const context = readEventContext(options.stateDir, options.env);
        appendEvent(
          statePaths(options.stateDir).events,
          createEvent(
            'suite',
            { tree, command: options.testCmd, code, duration_ms: Date.now() - started, phase: options.phase ?? null, ...(options.purpose === undefined ? {} : { purpose: options.purpose }) },
            context,
          ),
        );
      }
      return code;
    })
    .finally(() => {
      sandbox?.cleanup();
      if (out !== 2) closeSync(out);
    });
}

/**
 * The git tree of the work tree in `cwd` as the suite finds it: tracked and untracked files, not ignored
 * ones, not the state folder. Written through a copy of the repository's index (its stat data spares
 * hashing unchanged files), so the repository's own index is never touched; null when git cannot say.
 */
export function workTreeHash(cwd: string, stateDir: string): string | null {
  const scratch = mkdtempSync(join(tmpdir(), 'leap-suite-index-'));
  try {
    const index = join(scratch, 'index');
    const own = runGitSync(['rev-parse', '--path-format=absolute', '--git-path', 'index'], { cwd, allowFailure: true });
    if (own.code !== 0) return null;
    if (existsSync(own.stdout.trim())) copyFileSync(own.stdout.trim(), index);
    const extraEnv = { GIT_INDEX_FILE: index };
    if (runGitSync(['add', '-A', '--', '.'], { cwd, extraEnv, allowFailure: true }).code !== 0) return null;
    // The state folder is not part of what was tested (it is often ignored, and a pathspec naming an ignored
    // folder makes `git add` fail): taken out of the copy's index after.
    const state = topLevelName(cwd, stateDir);
    if (state !== null && runGitSync(['rm', '-r', '--cached', '--quiet', '--ignore-unmatch', '--', state], { cwd, extraEnv, allowFailure: true }).code !== 0) return null;
    const written = runGitSync(['write-tree'], { cwd, extraEnv, allowFailure: true });
    return written.code === 0 ? written.stdout.trim() : null;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
