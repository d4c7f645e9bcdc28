// Hostile leaves through a real bwrap: each tries to reach what the sandbox denies (the user's tree from a
// reader, home, a sibling repository, /etc, .git's hooks and refs, the state folder, another process, ~/.ssh,
// a secret variable, the host's loopback) and fails; each test asserts the thing untouched and what the leaf saw.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, isAlive, runBin, runCommand, waitFor } from '@leap/test-utils';
import { supervise } from '../src/supervise.js';
import type { SandboxSpec } from '../src/sandbox-plan.js';
import { scanProcesses } from '../src/proc-scan.js';
import { SUPERVISE, eventsOf, killStrays, track } from './helpers.js';

// Scenes live outside /tmp (the sandbox's /tmp is its own), so a sibling repository or home is there, read-only.
const ROOT = (() => {
  for (const base of [process.env.LEAP_SANDBOX_TEST_DIR, '/run', '/var/lib', tmpdir()]) {
    if (base === undefined) continue;
    try {
      return mkdtempSync(join(base, 'leap-sbx-'));
    } catch {
      // not writable here
    }
  }
  throw new Error('no folder for sandbox scenes');
})();

test.after.each(() => killStrays());
test.after(() => rmSync(ROOT, { recursive: true, force: true }));

const SECRET = 'sk-live-7f3a-do-not-leak';

interface World {
  base: string;
  repo: string;
  sibling: string;
  home: string;
  state: string;
  out: string;
  err: string;
  env: NodeJS.ProcessEnv;
}

let count = 0;
function world(): World {
  const base = join(ROOT, `w${++count}`);
  const repo = join(base, 'repo');
  const sibling = join(base, 'sibling');
  const home = join(base, 'home');
  for (const [dir, files] of [
    [repo, { 'README.md': '# mine\n', 'keep.txt': 'keep\n' }],
    [sibling, { 'lib.txt': 'sibling\n' }],
  ] as const) {
    mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'config', 'user.name', 'Leap Test');
    git(dir, 'config', 'user.email', 'leap@test.invalid');
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'initial');
  }
  const state = join(repo, '.tdd');
  mkdirSync(state);
  writeFileSync(join(state, 'develop-red.out'), `the developer's reasoning ${SECRET}\n`);
  writeFileSync(join(state, 'issue-1.md'), '# ledger\n\n## Steps\n\n- [ ] one\n');
  for (const [path, text] of Object.entries({
    '.ssh/id_ed25519': `${SECRET} private key\n`,
    '.aws/credentials': `aws_secret_access_key=${SECRET}\n`,
    '.config/gh/hosts.yml': `oauth_token: ${SECRET}\n`,
    '.npmrc': `//registry.npmjs.org/:_authToken=${SECRET}\n`,
    '.netrc': `machine x password ${SECRET}\n`,
    '.codex/auth.json': `{"key":"${SECRET}"}\n`,
    '.claude/settings.json': '{}\n',
    '.bashrc': 'export A=1\n',
    '.config/tool/config': 'ok\n',
  })) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    VERI_KILL_AFTER: '0.3',
    VERI_TIMEOUT: '30',
    VERI_STATE_DIR: state,
    AWS_SECRET_ACCESS_KEY: SECRET,
    GITHUB_TOKEN: SECRET,
    REDIS_URL: `redis://:${SECRET}@127.0.0.1:6379`,
    ANTHROPIC_API_KEY: 'sk-ant-passed',
  };
  return { base, repo, sibling, home, state, out: join(base, 'leaf.out'), err: join(base, 'leaf.err'), env };
}

/** Run `script` (bash) as a sandboxed leaf of `w`; its stdout and stderr together. */
async function leaf(w: World, name: string, script: string, spec: Partial<SandboxSpec> = {}, env: NodeJS.ProcessEnv = {}) {
  const result = await supervise({
    name,
    command: 'bash',
    args: ['-c', script],
    cwd: spec.tree ?? w.repo,
    env: { ...w.env, ...env },
    sandbox: { role: 'writer', tree: w.repo, ...spec },
    io: { stdoutFile: w.out, stderrFile: w.err },
  });
  return { result, seen: `${readFileSync(w.out, 'utf8')}${readFileSync(w.err, 'utf8')}` };
}

function head(repo: string): string {
  return git(repo, 'rev-parse', 'HEAD').trim();
}

test("hostile: a reader writes, deletes and renames in the user's tree: it works in its copy, the tree is untouched, the copy is gone after", async () => {
  const w = world();
  // The copy is made under this test's own temporary folder: other programs' readers in the machine's /tmp
  // (a suite running beside this one) come and go, and must not count.
  const copies = join(w.base, 'tmp');
  mkdirSync(copies);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = copies;
  let ran: Awaited<ReturnType<typeof leaf>>;
  try {
    ran = await leaf(w, 'verify-red', 'echo pwned > README.md && rm keep.txt && echo new > planted.txt && mkdir -p build && echo o > build/out && ls && cat README.md', {
      role: 'reader',
    });
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  const { result, seen } = ran;
  assert.is(result.code, 0, seen);
  assert.match(seen, 'planted.txt', 'the reader could build in its copy');
  assert.match(seen, 'pwned');
  assert.is(readFileSync(join(w.repo, 'README.md'), 'utf8'), '# mine\n');
  assert.ok(existsSync(join(w.repo, 'keep.txt')));
  assert.not.ok(existsSync(join(w.repo, 'planted.txt')));
  assert.not.ok(existsSync(join(w.repo, 'build')));
  assert.equal(readdirSync(copies), [], 'every write of the reader is discarded with its copy');
  const [launch] = eventsOf({ state: w.state } as never, 'launch', 'verify-red');
  assert.equal([launch?.sandbox, launch?.sandbox_role, launch?.network], ['bwrap', 'reader', true]);
  assert.is(eventsOf({ state: w.state } as never, 'exit', 'verify-red')[0]?.sandbox, 'bwrap');
});

test("hostile: a reader reads the developer's transcript (.tdd/develop-*.out): the state folder does not exist for it", async () => {
  const w = world();
  const { seen } = await leaf(w, 'verify-green', 'cat .tdd/develop-red.out; ls -a; ls .tdd; grep -r "do-not-leak" . 2>/dev/null; echo done', { role: 'reader' });
  assert.not.ok(seen.includes(SECRET), seen);
  assert.match(seen, /\.tdd\/develop-red\.out: No such file or directory/);
  assert.not.ok(/^\.tdd$/m.test(seen), 'no .tdd entry in the copy');
  assert.match(seen, 'done');
});

test('hostile: a writer writes in home, a sibling repository, /etc, /usr: each is read-only; its own tree is writable', async () => {
  const w = world();
  const { result, seen } = await leaf(
    w,
    'develop-green',
    [
      `echo x > "$HOME/planted"`,
      `echo x >> "$HOME/.bashrc"`,
      `echo x > ${w.sibling}/lib.txt`,
      `echo x > ${w.sibling}/new.txt`,
      'echo x > /etc/leap-planted',
      'echo x >> /etc/hostname',
      'echo mine > mine.txt',
      'echo ok',
    ]
      .map((c) => `${c} 2>&1`)
      .join('; '),
  );
  assert.is(result.code, 0, seen);
  assert.ok((seen.match(/Read-only file system/g) ?? []).length >= 6, seen);
  assert.not.ok(existsSync(join(w.home, 'planted')));
  assert.is(readFileSync(join(w.home, '.bashrc'), 'utf8'), 'export A=1\n');
  assert.is(readFileSync(join(w.sibling, 'lib.txt'), 'utf8'), 'sibling\n');
  assert.not.ok(existsSync(join(w.sibling, 'new.txt')));
  assert.not.ok(existsSync('/etc/leap-planted'));
  assert.is(readFileSync(join(w.repo, 'mine.txt'), 'utf8'), 'mine\n', "the writer's own tree is written");
});

test('hostile: a writer plants .git/hooks/pre-commit, moves a ref, edits .git/config: .git is read-only, and no hook runs at the next commit', async () => {
  const w = world();
  const before = head(w.repo);
  const config = readFileSync(join(w.repo, '.git', 'config'), 'utf8');
  const { seen } = await leaf(
    w,
    'develop-red',
    [
      `printf '#!/bin/sh\\ntouch ${w.base}/hook-ran\\n' > .git/hooks/pre-commit`,
      'chmod +x .git/hooks/pre-commit',
      'git update-ref refs/heads/main HEAD~0^{tree}',
      'echo 0000000000000000000000000000000000000000 > .git/refs/heads/main',
      'git branch evil',
      'git config core.hooksPath /tmp',
      'echo "[core]" >> .git/config',
      'git commit --allow-empty -m sneaky',
      'echo end',
    ]
      .map((c) => `${c} 2>&1`)
      .join('; '),
  );
  assert.match(seen, 'Read-only file system');
  assert.match(seen, 'end');
  assert.not.ok(existsSync(join(w.repo, '.git', 'hooks', 'pre-commit')), seen);
  assert.is(head(w.repo), before, 'no ref moved');
  assert.not.ok(git(w.repo, 'branch', '--list', 'evil').trim(), 'no branch made');
  assert.is(readFileSync(join(w.repo, '.git', 'config'), 'utf8'), config);
  writeFileSync(join(w.repo, 'next.txt'), 'next\n');
  git(w.repo, 'add', 'next.txt');
  git(w.repo, 'commit', '-q', '-m', 'the conductor commits');
  assert.not.ok(existsSync(join(w.base, 'hook-ran')), 'no hook ran at the next commit');
});

test("hostile: a writer edits the state folder (ledger, event log, another leaf's files): it is empty and read-only; nothing changes", async () => {
  const w = world();
  const ledger = readFileSync(join(w.state, 'issue-1.md'), 'utf8');
  const { seen } = await leaf(
    w,
    'develop-green',
    [
      'ls -A .tdd; echo listed',
      'echo "- [x] forged" >> .tdd/issue-1.md',
      'echo \'{"event":"verdict"}\' >> .tdd/events.jsonl',
      'echo 0 > .tdd/verify-green.exit',
      'rm -rf .tdd',
      `cat ${w.state}/develop-red.out`,
      'echo end',
    ]
      .map((c) => `${c} 2>&1`)
      .join('; '),
  );
  assert.match(seen, /^listed$/m, 'the leaf sees an empty state folder');
  assert.not.ok(seen.includes(SECRET));
  assert.is(readFileSync(join(w.state, 'issue-1.md'), 'utf8'), ledger);
  assert.not.ok(existsSync(join(w.state, 'verify-green.exit')));
  assert.ok(existsSync(join(w.state, 'develop-red.out')));
  const log = readFileSync(join(w.state, 'events.jsonl'), 'utf8');
  assert.not.ok(log.includes('{"event":"verdict"}'), 'the event log holds only what the supervisor wrote');
  assert.equal(
    eventsOf({ state: w.state } as never, 'launch').map((e) => e.leaf),
    ['develop-green'],
  );
});

test("hostile: a builder in its ball worktree (inside .leap) writes the main tree, another ball's worktree, the main .tdd: all refused; its own worktree is written", async () => {
  const w = world();
  const b1 = join(w.repo, '.leap', 's1', 'balls', 'b1', 'wt');
  const b2 = join(w.repo, '.leap', 's1', 'balls', 'b2', 'wt');
  mkdirSync(join(w.repo, '.leap', 's1', 'balls', 'b1'), { recursive: true });
  mkdirSync(join(w.repo, '.leap', 's1', 'balls', 'b2'), { recursive: true });
  writeFileSync(join(w.repo, '.leap', 's1', 'journal.json'), '{"balls":2}\n');
  git(w.repo, 'worktree', 'add', '-q', '-b', 'ball-b1', b1);
  git(w.repo, 'worktree', 'add', '-q', '-b', 'ball-b2', b2);
  const main = head(w.repo);
  for (const role of ['writer', 'reader'] as const) {
    const { result, seen } = await leaf(
      w,
      `build-b1-${role}`,
      [
        'pwd',
        `echo mine > own-${role}.txt`,
        `echo x > ${w.repo}/README.md`,
        `echo x > ${b2}/README.md`,
        `ls -A ${w.repo}/.leap/s1`,
        `ls -A ${w.repo}/.leap/s1/balls`,
        `cat ${w.repo}/.leap/s1/journal.json`,
        `cat ${w.state}/develop-red.out`,
        'git log --oneline -1',
        'git commit --allow-empty -m sneaky',
        'echo end',
      ]
        .map((c) => `${c} 2>&1`)
        .join('; '),
      { role, tree: b1 },
      {},
    );
    assert.is(result.status, 'exited', seen);
    assert.match(seen, new RegExp(`^${b1}$`, 'm'), 'the worktree is at its own path');
    assert.match(seen, 'initial', 'git reads the repository through the read-only .git');
    assert.not.ok(seen.includes(SECRET), "the main tree's state folder is absent");
    assert.not.ok(seen.includes('"balls"'), 'the rest of .leap is absent');
    assert.not.ok(/^b2$/m.test(seen), "another ball's worktree is not there");
    assert.match(seen, 'end');
    assert.is(existsSync(join(b1, `own-${role}.txt`)), role === 'writer', `${role}: its own worktree ${role === 'writer' ? 'is' : 'is not'} written`);
  }
  assert.is(readFileSync(join(w.repo, 'README.md'), 'utf8'), '# mine\n');
  assert.is(readFileSync(join(b2, 'README.md'), 'utf8'), '# mine\n');
  assert.is(head(w.repo), main);
  assert.is(git(b1, 'rev-parse', 'HEAD').trim(), main, 'no commit was made from the ball');
});

test("hostile: a leaf reads ~/.ssh, ~/.aws, gh's token, ~/.npmrc, another agent's folder: absent; its own agent folder is read-write", async () => {
  const w = world();
  const { seen } = await leaf(
    w,
    'develop-green',
    [
      'ls -A "$HOME"',
      'cat "$HOME/.ssh/id_ed25519" "$HOME/.aws/credentials" "$HOME/.config/gh/hosts.yml" "$HOME/.npmrc" "$HOME/.netrc" "$HOME/.codex/auth.json"',
      'cat "$HOME/.config/tool/config"',
      'echo written > "$HOME/.claude/session"',
      'echo end',
    ]
      .map((c) => `${c} 2>&1`)
      .join('; '),
    { agentPaths: ['.claude'] },
  );
  assert.not.ok(seen.includes(SECRET), seen);
  for (const gone of ['.ssh', '.aws', '.npmrc', '.netrc', '.codex']) assert.not.ok(new RegExp(`^\\${gone}$`, 'm').test(seen), `${gone} is not listed`);
  assert.ok((seen.match(/No such file or directory/g) ?? []).length >= 6, seen);
  assert.match(seen, /^ok$/m, 'the rest of ~/.config is readable');
  assert.is(readFileSync(join(w.home, '.claude', 'session'), 'utf8'), 'written\n');
  assert.ok(readFileSync(join(w.home, '.ssh', 'id_ed25519'), 'utf8').includes(SECRET), 'the key itself is untouched');
});

test('hostile: a leaf prints its environment: no secret variable reaches it, only the allow-list and what its entry names', async () => {
  const w = world();
  const { seen } = await leaf(w, 'develop-green', 'env', { passEnv: ['ANTHROPIC_*'], env: { CLAUDE_CODE_ENTRYPOINT: 'sdk' } });
  assert.not.ok(seen.includes(SECRET), seen);
  for (const name of ['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'REDIS_URL']) assert.not.ok(seen.includes(`${name}=`), name);
  assert.match(seen, /^ANTHROPIC_API_KEY=sk-ant-passed$/m);
  assert.match(seen, /^CLAUDE_CODE_ENTRYPOINT=sdk$/m);
  assert.match(seen, new RegExp(`^HOME=${w.home}$`, 'm'));
  assert.match(seen, /^VERI_KILL_AFTER=0\.15$/m, "half the supervisor's grace: a supervisor nested in the leaf ends first");
});

test('hostile: a leaf signals its supervisor and another process by pid: neither is in its pid namespace; both live', async () => {
  const w = world();
  const sleeper = spawn('sleep', ['300'], { stdio: 'ignore', detached: true });
  track(sleeper.pid as number);
  // The supervisor's own pid reaches the leaf (exec keeps the shell's $$), as a hostile leaf could learn it from ps.
  const leafScript = 'for p in $LEAP_SUP $LEAP_SLEEPER; do kill -TERM $p 2>&1; kill -KILL $p 2>&1; done; echo pid=$$; echo procs=$(ls /proc | grep -c "^[0-9]"); echo end';
  const r = await runCommand('bash', ['-c', 'LEAP_SUP=$$ exec "$@"', 'bash', process.execPath, SUPERVISE, '--sandbox', 'writer', 'develop-red', 'bash', '-c', leafScript], {
    cwd: w.repo,
    env: { ...w.env, LEAP_SLEEPER: String(sleeper.pid) },
  });
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'end');
  assert.match(r.stdout, /No such process/);
  assert.match(r.stderr, /supervise\[develop-red\]: exited$/m, 'the supervisor was not signalled');
  assert.ok(isAlive(sleeper.pid as number), 'the host process lives');
  assert.match(r.stdout, /^pid=\d$/m, 'the leaf is a low pid of a namespace of its own');
  const procs = Number(/^procs=(\d+)$/m.exec(r.stdout)?.[1]);
  assert.ok(procs > 0 && procs <= 5, `the leaf sees only its own processes in /proc (${procs})`);
  sleeper.kill('SIGKILL');
});

test('hostile: a leaf signals the supervisor whose pid it was told: no such process inside; the supervisor ends normally', async () => {
  const w = world();
  const { result, seen } = await leaf(w, 'develop-red', `kill -TERM ${process.pid} 2>&1; kill -KILL ${process.pid} 2>&1; echo end`);
  assert.is(result.status, 'exited');
  assert.match(seen, /No such process/);
  assert.match(seen, 'end');
});

test('hostile: a leaf remounts its read-only places, or makes namespaces of its own to do it: refused (no capability is left)', async () => {
  const w = world();
  const { seen } = await leaf(
    w,
    'develop-red',
    [
      `mount -o remount,rw ${w.sibling}`,
      'mount -o remount,rw /',
      `unshare -Urm sh -c "mount -o remount,rw ${w.sibling}; echo x > ${w.sibling}/lib.txt"`,
      `echo x > ${w.sibling}/lib.txt`,
      'grep CapEff /proc/self/status',
      'echo end',
    ]
      .map((c) => `${c} 2>&1`)
      .join('; '),
  );
  assert.match(seen, /CapEff:\s+0+$/m, seen);
  assert.is(readFileSync(join(w.sibling, 'lib.txt'), 'utf8'), 'sibling\n');
  assert.match(seen, 'end');
});

async function listen(): Promise<{ server: Server; port: number; hits: () => number }> {
  let hits = 0;
  const server = createServer((socket) => {
    hits++;
    socket.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address !== null ? address.port : 0, hits: () => hits };
}

test("hostile: with network off, a leaf connects to a listener on the host's loopback and fails; with it on, the same leaf reaches it", async () => {
  const w = world();
  const { server, port, hits } = await listen();
  try {
    const script = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo unreachable; ip -o link 2>/dev/null | cut -d: -f2; echo end`;
    const off = await leaf(w, 'proof-1', script, { network: false });
    assert.match(off.seen, 'unreachable', off.seen);
    assert.not.ok(off.seen.includes('hello from the host'));
    assert.is(hits(), 0, 'the host listener saw no connection');
    assert.is(eventsOf({ state: w.state } as never, 'launch', 'proof-1')[0]?.network, false);
    const on = await leaf(w, 'proof-2', script, { network: true });
    assert.match(on.seen, 'hello from the host', 'the test can tell: with network on the listener is reached');
    assert.is(hits(), 1);
  } finally {
    server.close();
  }
});

/** Host pids of processes whose environment holds `tag`. */
function tagged(tag: string): number[] {
  return scanProcesses()
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/environ`, 'latin1').includes(`\0${tag}\0`) || readFileSync(`/proc/${p.pid}/environ`, 'latin1').startsWith(`${tag}\0`);
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}

test('kill: the whole tree inside the sandbox ends on timeout: a child that ignores TERM and a grandchild', async () => {
  const w = world();
  const tag = `SBX_KILL_TAG=${process.pid}-${Date.now()}`;
  const script = '(trap "" TERM; (trap "" TERM; while :; do sleep 1; done) & while :; do sleep 1; done) & echo started; wait';
  const running = supervise({
    name: 'develop-red',
    command: 'bash',
    args: ['-c', script],
    cwd: w.repo,
    env: { ...w.env, VERI_TIMEOUT: '0' },
    sandbox: { role: 'writer', tree: w.repo, env: { [tag.split('=')[0] as string]: tag.split('=')[1] as string } },
    io: { stdoutFile: w.out, stderrFile: w.err },
  });
  const inside = await waitFor(() => {
    const pids = tagged(tag);
    return pids.length >= 4 ? pids : null;
  }, 20_000);
  assert.ok(inside !== null && inside.length >= 4, 'bash, the TERM-ignoring child, the grandchild and their sleeps are running');
  const stopFile = join(w.state, 'stop');
  writeFileSync(stopFile, 'now\n');
  const result = await running;
  assert.is(result.status, 'killed-stop');
  assert.equal(
    (inside as number[]).filter((pid) => isAlive(pid)),
    [],
    'every process of the sandbox is gone',
  );
  assert.equal(tagged(tag), []);
});

test("end: a sandboxed leaf that exits leaves nothing behind, run after run: the sandbox's pid 1, still torn down by the kernel when bwrap has exited, is no leftover to kill", async () => {
  const w = world();
  const ends: string[] = [];
  for (let i = 0; i < 20; i++) {
    const result = await supervise({ name: `develop-red-${i + 2}`, command: 'true', cwd: w.repo, env: w.env, sandbox: { role: 'writer', tree: w.repo } });
    ends.push(`${result.status} ${result.code} leftovers=${result.leftovers} unkillable=${result.unkillable.length}`);
  }
  // Before PF_EXITING counted as gone, about every second run found that pid 1 (state D, ppid 1) and ran the kill sequence.
  assert.equal(
    ends,
    Array.from({ length: 20 }, () => 'exited 0 leftovers=0 unkillable=0'),
  );
});

test('kill: a SIGKILLed supervisor takes its sandboxed leaf with it (bwrap --die-with-parent)', async () => {
  const w = world();
  const tag = `LEAP_SBX_ORPHAN=${process.pid}-${Date.now()}`;
  const [key, value] = tag.split('=') as [string, string];
  const child = spawn(process.execPath, [SUPERVISE, '--sandbox', 'writer', 'develop-red', 'bash', '-c', 'sleep 300 & wait'], {
    cwd: w.repo,
    env: { ...w.env, [key]: value },
    stdio: 'ignore',
    detached: true,
  });
  track(child.pid as number);
  const inside = await waitFor(() => {
    const pids = tagged(tag).filter((p) => p !== child.pid);
    return pids.length >= 3 ? pids : null;
  }, 20_000);
  assert.ok(inside !== null, 'bwrap, bash and sleep run');
  process.kill(child.pid as number, 'SIGKILL');
  const gone = await waitFor(() => (inside as number[]).every((pid) => !isAlive(pid)) || null, 20_000);
  assert.ok(gone, 'no process of the sandbox outlives its supervisor');
});

test('unavailable: bwrap not on PATH: one line naming it and apt-get install bubblewrap, exit 2, nothing touched', async () => {
  const w = world();
  const bin = join(w.base, 'bin');
  mkdirSync(bin);
  for (const tool of ['bash', 'true', 'git']) {
    const found = execFileSync('bash', ['-c', `type -P ${tool}`], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, tool), `#!/bin/sh\nexec ${found} "$@"\n`);
    chmodSync(join(bin, tool), 0o755);
  }
  const r = await runBin(SUPERVISE, ['--sandbox', 'reader', 'develop-red', 'true'], { cwd: w.repo, env: { ...w.env, PATH: bin } });
  assert.is(r.code, 2);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, r.stderr);
  assert.match(lines[0] ?? '', /bwrap \(bubblewrap\) is not installed/);
  assert.match(lines[0] ?? '', 'apt-get install bubblewrap');
  assert.not.ok(existsSync(join(w.state, 'develop-red.pid')));
  assert.not.ok(existsSync(join(w.state, 'develop-red.exit')));
  assert.not.ok(existsSync(join(w.state, 'events.jsonl')));
  const env = await runBin(SUPERVISE, ['develop-red', 'true'], { cwd: w.repo, env: { ...w.env, PATH: bin, LEAP_SANDBOX: 'on' } });
  assert.is(env.code, 2, 'LEAP_SANDBOX=on asks for the sandbox too');
  const off = await runBin(SUPERVISE, ['--sandbox', 'off', 'develop-red', 'true'], { cwd: w.repo, env: { ...w.env, PATH: bin, LEAP_SANDBOX: 'on' } });
  assert.is(off.code, 0, '--sandbox off wins over LEAP_SANDBOX');
  assert.is(eventsOf({ state: w.state } as never, 'launch', 'develop-red')[0]?.sandbox, 'off', 'an unsandboxed run is recorded as such');
  const bad = await runBin(SUPERVISE, ['--sandbox', 'maybe', 'develop-red', 'true'], { cwd: w.repo, env: w.env });
  assert.is(bad.code, 125);
  assert.match(bad.stderr, /--sandbox must be writer, reader, on or off/);
});

test('unavailable: namespaces refused (a user namespace allowing none, no capability): failed-start, code 2, the cause in one line', async () => {
  const w = world();
  const probe = await runCommand('unshare', ['-U', '-r', 'true'], {});
  if (probe.code !== 0) {
    console.log('  (skipped: this kernel refuses the user namespace the test needs)');
    return;
  }
  const script = 'echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --bounding-set=-all --inh-caps=-all "$@"';
  const r = await runCommand('unshare', ['-U', '-r', 'sh', '-c', script, 'sh', process.execPath, SUPERVISE, '--sandbox', 'writer', 'develop-red', 'true'], { cwd: w.repo, env: w.env });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /cannot sandbox the leaf: (user namespaces|namespaces) are refused here.* \(bwrap: /);
  assert.match(r.stderr, 'apt-get install bubblewrap');
  assert.match(r.stderr, /supervise\[develop-red\]: failed-start/);
  const [exit] = eventsOf({ state: w.state } as never, 'exit', 'develop-red');
  assert.is(exit?.status, 'failed-start');
  assert.is(exit?.code, 2);
});

test.run();
