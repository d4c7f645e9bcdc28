// leap-verify's leaves in the sandbox, by default (CONTRACT section 13): hostile verifiers and hostile tests,
// real processes in real repositories; each asserts what the leaf saw and what stayed untouched.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvents } from '@leap/core';
import { cleanupTempDirs, git, makeTempDir, runBin } from '@leap/test-utils';
import { verify } from '../src/index.js';
import { makeGreen, makeRedRepo, verifyBin, verifyEnv, writeAgents, writeScript } from './helpers.js';

const STEP = 'greet returns hello';
const TRANSCRIPT = 'DEVELOPER-REASONING: the verifier must never read this';
const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- not-for-leaves';
const SECRET = 'hunter2-secret-token';

/** A home of its own with a key in ~/.ssh and a file a test will try to delete. */
function fakeHome(): string {
  const home = makeTempDir('leap-home-');
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_ed25519'), KEY);
  writeFileSync(join(home, 'precious.txt'), 'keep me\n');
  return home;
}

/**
 * A verifier (node, as a command agent) that tries everything a hostile one would and answers PASS with what
 * it saw as the reason (JSON).
 */
const HOSTILE_VERIFIER = `
const fs = require('node:fs');
const seen = {};
const attempt = (name, fn) => { try { seen[name] = fn() ?? 'ok'; } catch (e) { seen[name] = e.code ?? String(e.message); } };
fs.readFileSync(0);
attempt('transcript', () => fs.readFileSync('.tdd/develop-red.out', 'utf8'));
attempt('stateFolder', () => fs.readdirSync('.tdd').join(','));
attempt('overwrite', () => { fs.writeFileSync('src/greet.js', 'hacked\\n'); return fs.readFileSync('src/greet.js', 'utf8'); });
attempt('newFile', () => fs.writeFileSync('planted.txt', 'mine\\n'));
attempt('hook', () => fs.writeFileSync('.git/hooks/pre-commit', '#!/bin/sh\\ntouch /tmp/hooked\\n', { mode: 0o755 }));
attempt('ref', () => fs.writeFileSync('.git/refs/heads/main', '0000000000000000000000000000000000000000\\n'));
attempt('key', () => fs.readFileSync(process.env.HOME + '/.ssh/id_ed25519', 'utf8'));
attempt('signal', () => { process.kill(Number(process.env.LEAP_TEST_PARENT_PID), 0); return 'reachable'; });
seen.secret = process.env.SECRET_TOKEN ?? null;
process.stdout.write(JSON.stringify({ verdict: 'PASS', reason: JSON.stringify(seen) }));
`;

const leaves = suite('sandboxed leaves of leap-verify');
leaves.after.each(cleanupTempDirs);

leaves(
  "a verifier reads a throwaway copy: no transcript, no state folder, no key, no secret; its writes never reach the user's tree",
  async () => {
    const repo = makeRedRepo();
    writeFileSync(join(repo, '.tdd', 'develop-red.out'), TRANSCRIPT);
    const home = fakeHome();
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const agents = writeAgents({ v: { plugin: 'command', family: 'f', command: ['node', '-e', HOSTILE_VERIFIER] } });
    const env = verifyEnv({
      VERI_AGENTS: agents,
      VERI_VERIFY_AGENT: 'v',
      HOME: home,
      SECRET_TOKEN: SECRET,
      LEAP_TEST_PARENT_PID: String(process.pid),
    });
    const result = await verify({ phase: 'red', step: STEP, cwd: repo, env });
    assert.is(result.verdict, 'PASS', result.reason);
    const seen = JSON.parse(result.reason) as Record<string, string | null>;
    assert.equal(
      seen,
      {
        transcript: 'ENOENT',
        stateFolder: 'ENOENT',
        overwrite: 'hacked\n',
        newFile: 'ok',
        hook: 'EROFS',
        ref: 'EROFS',
        key: 'ENOENT',
        signal: 'ESRCH',
        secret: null,
      },
      result.reason,
    );
    // The copy took its writes; the user's tree, .git and home are as they were.
    assert.is(readFileSync(join(repo, 'src', 'greet.js'), 'utf8'), 'export const greet = () => "hi";\n');
    assert.not.ok(existsSync(join(repo, 'planted.txt')));
    assert.not.ok(existsSync(join(repo, '.git', 'hooks', 'pre-commit')));
    assert.is(git(repo, 'rev-parse', 'HEAD').trim(), head);
    assert.is(git(repo, 'status', '--porcelain').trim(), '');
    assert.is(readFileSync(join(home, '.ssh', 'id_ed25519'), 'utf8'), KEY);
    const launch = readEvents(join(repo, '.tdd', 'events.jsonl'))
      .map((r) => r.event)
      .find((e) => e.event === 'launch' && e.leaf === 'verify-red') as Record<string, unknown>;
    assert.equal([launch.sandbox, launch.sandbox_role, launch.network], ['bwrap', 'reader', true]);
  },
);

leaves(
  'a test the developer wrote, run by the ground truth, cannot delete a file in home, plant a hook, edit the ledger or reach the network',
  async () => {
    const repo = makeRedRepo();
    makeGreen(repo);
    const home = fakeHome();
    const ledger = readFileSync(join(repo, '.tdd', 'issue-3.md'), 'utf8');
    // An extra test file in the tree, as a developer leaves one: the suite runs it.
    writeFileSync(
      join(repo, 'test', 'hostile.test.js'),
      `import fs from 'node:fs';
const seen = {};
const attempt = (name, fn) => { try { seen[name] = fn() ?? 'ok'; } catch (e) { seen[name] = e.code ?? String(e.message); } };
attempt('home', () => fs.rmSync(process.env.HOME + '/precious.txt'));
attempt('hook', () => fs.writeFileSync('.git/hooks/pre-commit', '#!/bin/sh\\n'));
attempt('ledger', () => fs.writeFileSync('.tdd/issue-3.md', '# hijacked\\n'));
attempt('tree', () => fs.writeFileSync('built.txt', 'a build output\\n'));
seen.interfaces = fs.readFileSync('/proc/net/dev', 'utf8').split('\\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean).join(',');
seen.secret = process.env.SECRET_TOKEN ?? null;
console.log('SEEN ' + JSON.stringify(seen));
`,
    );
    const script = writeScript([{ answer: { verdict: 'PASS', reason: 'fine' } }]);
    const suiteLog = join(makeTempDir(), 'suite.log');
    const env = verifyEnv({
      VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script } }),
      VERI_VERIFY_AGENT: 'v',
      HOME: home,
      SECRET_TOKEN: SECRET,
    });
    const result = await verify({
      phase: 'green',
      step: STEP,
      cwd: repo,
      env,
      suiteLog,
      testGlobs: ['test/greet.test.js'],
    });
    assert.is(result.verdict, 'PASS', result.reason);
    const line = readFileSync(suiteLog, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('SEEN ')) as string;
    // A suite run has the user's environment (its tests may need it) and writes the tree; nothing else.
    assert.equal(
      JSON.parse(line.slice(5)),
      { home: 'EROFS', hook: 'EROFS', ledger: 'EROFS', tree: 'ok', interfaces: 'lo', secret: SECRET },
      line,
    );
    assert.is(readFileSync(join(home, 'precious.txt'), 'utf8'), 'keep me\n');
    assert.not.ok(existsSync(join(repo, '.git', 'hooks', 'pre-commit')));
    assert.is(readFileSync(join(repo, '.tdd', 'issue-3.md'), 'utf8'), ledger);
    assert.ok(existsSync(join(repo, 'built.txt')), 'a writer of the tree: its build output stays');
  },
);

leaves(
  'without bwrap, leap-verify refuses with exit 2 in one line naming the cause and the package; --sandbox off and LEAP_SANDBOX=off run unsandboxed',
  async () => {
    const repo = makeRedRepo();
    const script = writeScript([
      { answer: { verdict: 'PASS', reason: 'off one' } },
      { answer: { verdict: 'PASS', reason: 'off two' } },
    ]);
    const env = verifyEnv({
      VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script } }),
      VERI_VERIFY_AGENT: 'v',
      LEAP_BWRAP: '/nonexistent/bwrap',
    });
    const refused = await runBin(verifyBin, ['--step', STEP, 'red'], { cwd: repo, env });
    assert.is(refused.code, 2, refused.stderr);
    assert.is(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /^leap-verify: cannot sandbox the leaf: bwrap \(bubblewrap\) is not installed .*apt-get install bubblewrap, or run with --sandbox off$/m,
    );
    assert.not.ok(
      existsSync(join(repo, '.tdd', 'verify-red.pid')) || existsSync(join(repo, '.tdd', 'verify-red.exit')),
      'no leaf was started',
    );
    const off = await runBin(verifyBin, ['--sandbox', 'off', '--step', STEP, 'red'], { cwd: repo, env });
    assert.equal([off.code, off.stdout], [0, 'off one\n'], off.stderr);
    const offByEnv = await runBin(verifyBin, ['--step', STEP, 'red'], {
      cwd: repo,
      env: { ...env, LEAP_SANDBOX: 'off' },
    });
    assert.equal([offByEnv.code, offByEnv.stdout], [0, 'off two\n'], offByEnv.stderr);
    const launches = readEvents(join(repo, '.tdd', 'events.jsonl'))
      .map((r) => r.event)
      .filter((e) => e.event === 'launch') as Record<string, unknown>[];
    assert.equal(
      launches.map((e) => e.sandbox),
      ['off', 'off'],
      'an unsandboxed run says so in its launch events',
    );
    const bad = await runBin(verifyBin, ['--sandbox', 'maybe', '--step', STEP, 'red'], { cwd: repo, env });
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /--sandbox must be on or off, got "maybe"/);
  },
);

leaves(
  "where user namespaces are refused, the refusal names the cause (bwrap's own words) and the package",
  async () => {
    const repo = makeRedRepo();
    const dir = makeTempDir();
    // A bwrap that fails as the real one does on a kernel that refuses user namespaces.
    const fake = join(dir, 'bwrap');
    writeFileSync(
      fake,
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
    );
    chmodSync(fake, 0o755);
    const env = verifyEnv({
      VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script: writeScript([]) } }),
      VERI_VERIFY_AGENT: 'v',
      LEAP_BWRAP: fake,
    });
    const refused = await runBin(verifyBin, ['--step', STEP, 'red'], { cwd: repo, env });
    assert.is(refused.code, 2, refused.stderr);
    assert.is(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /cannot sandbox the leaf: user namespaces are refused here \(bwrap: No permissions to creating new namespace.*apt-get install bubblewrap.*--sandbox off$/m,
    );
  },
);

leaves.run();
