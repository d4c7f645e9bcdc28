// A live proof's server ends with the proof even when it leaves the proof's group and session: a hostile proof
// starts a server that daemonizes itself (a double fork and setsid, its pipes closed). Sandboxed (the default),
// bwrap's pid namespace ends with the proof; with --sandbox off the supervisor's whole-tree kill finds it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeGitRepo, waitFor } from '@leap/test-utils';
import { runLive } from '../src/engine/proof.js';

const tree = suite('runLive: a server that daemonizes itself ends with the proof');
const TOKENS = [`leap-daemon-${process.pid}-off`, `leap-daemon-${process.pid}-on`];
tree.after.each(() => {
  // A server a failed assertion left behind is ended here, by its pid.
  for (const pid of TOKENS.flatMap(holding)) process.kill(pid, 'SIGKILL');
  cleanupTempDirs();
});

/** The live pids whose command line holds `token` (host pids: a sandbox's pid namespace does not hide them from here). */
function holding(token: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const state = /\) (\S)/.exec(readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1];
      if (state !== 'Z' && readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').includes(token))
        found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

// The proof: a child that starts the server in a session of its own (detached: setsid) with no pipes, then exits;
// the server waits forever; the proof says "serving" once the server runs, and exits 0.
function hostileLive(token: string) {
  const server = 'setInterval(() => {}, 1e6)';
  const middle = `const { spawn } = require('child_process'); spawn(process.execPath, ['-e', ${JSON.stringify(server)}, ${JSON.stringify(token)}], { detached: true, stdio: 'ignore' }).unref();`;
  const proof = `const { spawnSync } = require('child_process'); spawnSync(process.execPath, ['-e', ${JSON.stringify(middle)}], { stdio: 'ignore' }); setTimeout(() => { console.log('serving'); process.exit(0); }, 300);`;
  return { argv: [process.execPath, '-e', proof], timeout_s: 60 };
}

tree('with --sandbox off: the whole-tree kill ends the setsid server once the proof ends', async () => {
  const repo = makeGitRepo({ files: { 'README.md': '# r\n' } });
  const token = TOKENS[0] as string;
  const run = await runLive(hostileLive(token), {
    cwd: repo,
    env: process.env,
    stateDir: join(repo, '.tdd'),
    name: 'live-a-1',
    idleMs: 0,
    sandbox: null,
  });
  assert.is(run.code, 0, run.output);
  assert.is(run.output, 'serving\n');
  assert.equal(holding(token), [], 'the daemonized server is gone when runLive resolves');
});

tree('sandboxed (the default): the pid namespace ends the setsid server with the proof', async () => {
  const repo = makeGitRepo({ files: { 'README.md': '# r\n' } });
  const token = TOKENS[1] as string;
  const sandbox = { role: 'writer' as const, tree: repo, inheritEnv: true, network: false };
  const run = await runLive(hostileLive(token), {
    cwd: repo,
    env: process.env,
    stateDir: join(repo, '.tdd'),
    name: 'live-a-1',
    idleMs: 0,
    sandbox,
  });
  assert.is(run.code, 0, run.output);
  assert.is(run.output, 'serving\n');
  // The kernel ends a pid namespace's processes as its init dies: waited for, not timed.
  await waitFor(() => holding(token).length === 0, 10_000, 'the sandboxed server gone');
});

tree.run();
