// Each real CLI in every role (developer, builder, verifier, reviewer, planner), with the toolchain's sandbox on,
// as the tests' own user and as another (issue 21 §1): most people run agents as a user other than root, and the
// CLIs behave differently as root (Claude Code refuses bypassPermissions there). As root the other user is
// `nobody` (uid 65534), through a child process of that user; run by another user the tests are already not
// root, and only that user is tried.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentRole } from '@leap/core';
import { cleanupTempDirs, repoRoot, startModelServer, type ModelServer } from '@leap/test-utils';
import { CACHE_ROOT, CLI_NAMES, PINNED, installedCli, privateHome, type CliName } from './clis.js';
import { HOSTILE_LINE, SOURCE_MARK, makeProject, readerTurns, sentBack, writerTurns } from './fixture-repo.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const AS_ROOT = process.getuid?.() === 0;
/** Who the leaf runs as: nobody when the tests are root, else the (already unprivileged) user running them. */
const LEAF_UID = AS_ROOT ? 65534 : (process.getuid?.() as number);

// Root's cache lies in a home only root may enter: the other user gets the CLIs at a place it can reach,
// hard links of the cached install (no second copy of the bytes), and its homes, repositories and state there.
const EVERYONE = AS_ROOT ? '/var/cache/leap-test-everyone' : null;
const made: string[] = [];

test.after(() => {
  cleanupTempDirs();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function reachable(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}

/** The folder holding the CLI's bin, reachable by the leaf's user. */
function cliBinFor(cli: CliName): string {
  const own = installedCli(cli);
  if (EVERYONE === null) return own;
  const { version } = PINNED[cli];
  const dir = join(reachable(join(EVERYONE, 'agents')), `${cli}@${version}`);
  if (!existsSync(join(dir, 'node_modules', '.bin', PINNED[cli].bin))) {
    const staging = mkdtempSync(`${dir}.linking-`);
    rmSync(staging, { recursive: true });
    // `cp -al`: the same files by hard link; where links cannot be made (another file system), a copy.
    const source = dirname(dirname(own));
    try {
      execFileSync('cp', ['-al', source, staging]);
    } catch {
      cpSync(source, staging, { recursive: true, verbatimSymlinks: true });
    }
    // The cache's install folder was made by mkdtemp (owner only): the other user must enter it.
    chmodSync(staging, 0o755);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  }
  return join(dir, 'node_modules', '.bin');
}

const LEAF_AS = join(HERE, 'fixtures', 'leaf-as.mjs');
let toolchainCopy: string | undefined;

/** Where the leaf's user reads leaf-as.mjs and the built toolchain it loads (`root`): the clone, or a copy. */
function toolchainFor(uid: number): { root: string; leafAs: string } {
  const own = { root: repoRoot, leafAs: LEAF_AS };
  if (EVERYONE === null || uid === process.getuid?.() || readableBy(uid, join(repoRoot, 'package.json'))) return own;
  if (toolchainCopy === undefined) {
    // A clone the other user cannot enter (under /root): hard links of what the leaf loads, as in cliBinFor.
    const copy = mkdtempSync(join(reachable(join(EVERYONE, 'work')), 'toolchain-'));
    made.push(copy);
    chmodSync(copy, 0o755);
    // node_modules/@leap/* are relative links to packages/* and plugins/*: they resolve in the copy as in the clone.
    const sources = ['package.json', 'node_modules', 'packages', 'plugins'].map((name) => join(repoRoot, name));
    try {
      execFileSync('cp', ['-al', ...sources, LEAF_AS, copy]);
    } catch {
      for (const from of [...sources, LEAF_AS]) {
        cpSync(from, join(copy, basename(from)), { recursive: true, verbatimSymlinks: true });
      }
    }
    toolchainCopy = copy;
  }
  return { root: toolchainCopy, leafAs: join(toolchainCopy, 'leaf-as.mjs') };
}

function readableBy(uid: number, file: string): boolean {
  try {
    execFileSync('test', ['-r', file], { uid, gid: uid, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A folder owned by `uid`, the leaf's user: a home, a repository, a state folder. */
function ownedBy(prefix: string, uid: number): string {
  if (EVERYONE === null) {
    // Not under /tmp: Codex refuses a home under the temp folder.
    const dir = mkdtempSync(join(reachable(join(CACHE_ROOT, 'work')), prefix));
    made.push(dir);
    return dir;
  }
  const dir = mkdtempSync(join(reachable(join(EVERYONE, 'work')), prefix));
  made.push(dir);
  chownSync(dir, uid, uid);
  return dir;
}

function chownTree(dir: string, uid: number): void {
  if (!AS_ROOT) return;
  chownSync(dir, uid, uid);
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (!lstatSync(path).isSymbolicLink()) chownSync(path, uid, uid);
  }
}

/** The fixture project, owned by the leaf's user. */
function projectOfTheUser(uid: number): string {
  const repo = join(ownedBy('repo-', uid), 'project');
  cpSync(makeProject(), repo, { recursive: true });
  chownTree(repo, uid);
  return repo;
}

/** Run one leaf in a child process of the leaf's user; its result as the fixture prints it. */
async function leafAs(cli: CliName, role: AgentRole, repo: string, server: ModelServer, prompt: string, uid: number) {
  // Not under the cache (root's home): a home of the user's own, configured as clis.ts configures one.
  const home = join(ownedBy(`${cli}-home-`, uid), 'home');
  mkdirSync(home);
  const { env } = privateHome(cli, server, { codexLogin: true, home });
  chownTree(home, uid);
  const stateDir = ownedBy('state-', uid);
  const leafEnv = { ...env, PATH: `${cliBinFor(cli)}:${process.env.PATH ?? ''}` };
  const toolchain = toolchainFor(uid);
  const args = JSON.stringify({ repoRoot: toolchain.root, cli, role, repo, stateDir, prompt });
  // Not spawnSync: the model server answers from this very process, whose event loop must keep running.
  const ran = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [toolchain.leafAs, args], {
      cwd: repo,
      env: leafEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
      ...(uid === process.getuid?.() ? {} : { uid, gid: uid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  const last = ran.stdout.trim().split('\n').at(-1) as string;
  assert.ok(last.startsWith('{'), `the leaf printed no result (exit ${ran.status}):\n${ran.stderr.slice(-2000)}`);
  const result = JSON.parse(last) as {
    uid: number;
    status: string;
    code: number;
    failure: string | null;
    answer: { text: string } | null;
    usage: { input_tokens: number | null; output_tokens: number | null } | null;
    stderr: string;
  };
  return result;
}

const gitStatus = (repo: string) =>
  execFileSync('git', ['-c', `safe.directory=${repo}`, 'status', '--porcelain', '--untracked-files=all'], {
    cwd: repo,
    encoding: 'utf8',
  });

// Every role, as the tests' own user (root, in CI) and as the other one: writers (developer, builder) write, run
// and answer; readers (verifier, reviewer, planner) change nothing whatever their model asks.
const USERS = [...new Set([process.getuid?.() as number, LEAF_UID])];
const WRITERS: AgentRole[] = ['developer', 'builder'];
const READERS: AgentRole[] = ['verifier', 'reviewer', 'planner'];

for (const cli of CLI_NAMES) {
  for (const uid of USERS) {
    test(`${cli} as ${WRITERS.join(' and ')}, run by uid ${uid} in the sandbox: it writes, runs a command, answers; the files are that user's; usage is the server's`, async () => {
      for (const role of WRITERS) {
        const repo = projectOfTheUser(uid);
        const hostile = HOSTILE_LINE;
        const server = await startModelServer({ script: writerTurns(repo, `done by ${cli} as ${role}`) });
        try {
          const leaf = await leafAs(cli, role, repo, server, 'Add sub.js.', uid);
          assert.is(leaf.uid, uid);
          assert.is(leaf.failure, null, `${role}: ${leaf.failure}\n${leaf.stderr}`);
          assert.equal([leaf.status, leaf.code], ['exited', 0]);
          assert.is(leaf.answer?.text, `done by ${cli} as ${role}`);
          assert.is(readFileSync(join(repo, 'sub.js'), 'utf8'), `exports.sub = (a, b) => a - b; // ${hostile}`);
          assert.is(readFileSync(join(repo, 'ran.txt'), 'utf8'), '2');
          assert.is(statSync(join(repo, 'sub.js')).uid, uid, 'written by the leaf, as its user');
          assert.ok(sentBack(server, SOURCE_MARK), 'what the read tool read went back to the model');
          const counted = server.usage();
          assert.equal([leaf.usage?.input_tokens, leaf.usage?.output_tokens], [counted.input, counted.output]);
        } finally {
          await server.close();
        }
      }
    });

    test(`${cli} as ${READERS.join(', ')}, run by uid ${uid} in the sandbox: its model's writes reach nothing of the repository`, async () => {
      for (const role of READERS) {
        const repo = projectOfTheUser(uid);
        const server = await startModelServer({ script: readerTurns(repo, `looked only (${cli}, ${role})`) });
        try {
          const leaf = await leafAs(cli, role, repo, server, 'Judge.', uid);
          assert.is(leaf.uid, uid);
          assert.is(leaf.failure, null, `${role}: ${leaf.failure}\n${leaf.stderr}`);
          assert.is(leaf.answer?.text, `looked only (${cli}, ${role})`);
          assert.not.ok(existsSync(join(repo, 'evil.txt')), role);
          assert.not.ok(existsSync(join(repo, 'evil2.txt')), role);
          assert.is(gitStatus(repo), '');
        } finally {
          await server.close();
        }
      }
    });
  }
}

test.run();
