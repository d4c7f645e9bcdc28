// `leap tdd run` with its leaves in the sandbox, by default (CONTRACT section 13): a hostile developer, a hostile
// verifier and a hostile test the developer wrote, in a real run; each asserts what the leaf saw and what stayed
// untouched. Without bwrap the run refuses with exit 2 before touching anything; --sandbox off and the project's
// config run unsandboxed, and the launch events say so.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, hostileProbe, makeTempDir, runBin } from '@leap/test-utils';
import { runTdd } from '../src/index.js';
import {
  TEST_CMD,
  cleanEnv,
  commandAgents,
  fixture,
  makeProject,
  planFile,
  readEvents,
  scriptedAgents,
  slugSteps,
  subjects,
  type StepEdits,
} from './helpers.js';

const TITLE = 'Lowercase and join with dashes';
const KEY = '-----BEGIN OPENSSH PRIVATE KEY----- not-for-leaves';
const SECRET = 'hunter2-secret-token';
const LEAP = join(import.meta.dirname, '..', '..', 'cli', 'dist', 'bin', 'leap.cjs');

const sandboxed = suite('runTdd: sandboxed leaves');
sandboxed.after.each(cleanupTempDirs);

/** A home of its own: a key in ~/.ssh, and a file a test will try to delete. */
function fakeHome(): string {
  const home = makeTempDir('leap-home-');
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_ed25519'), KEY);
  writeFileSync(join(home, 'precious.txt'), 'keep me\n');
  return home;
}

// What a hostile leaf tries, in its red phase, before doing its job; what it saw goes to SEEN_LOG, one JSON line.
const ATTEMPTS = hostileProbe({
  when: "process.env.LEAP_PHASE === 'red'",
  seen: { role: 'process.env.LEAP_AGENT_ROLE' },
  attempts: {
    transcript: "fs.readFileSync('.tdd/develop-red.out', 'utf8')",
    stateFolder: "fs.readdirSync('.tdd').join(',')",
    ledger: "fs.writeFileSync('.tdd/issue-1.md', '# hijacked\\n')",
    hook: "fs.writeFileSync('.git/hooks/pre-commit', '#!/bin/sh\\ntouch ' + JSON.stringify(process.env.LEAP_TEST_MARK) + '\\n', { mode: 0o755 })",
    ref: "fs.writeFileSync('.git/refs/heads/main', '0000000000000000000000000000000000000000\\n')",
    key: "fs.readFileSync(process.env.HOME + '/.ssh/id_ed25519', 'utf8')",
    signal: "(process.kill(Number(process.env.LEAP_TEST_CONDUCTOR_PID), 0), 'reachable')",
    planted: "fs.writeFileSync('planted-by-' + seen.role + '.txt', 'mine\\n')",
  },
  report: { appendTo: 'process.env.LEAP_TEST_SEEN' },
});

/** The command agents of helpers.ts, each preceded by ATTEMPTS (a wrapper beside them that imports the real one). */
function hostileAgents(steps: Record<string, StepEdits>) {
  const agents = commandAgents(steps);
  const data = JSON.parse(readFileSync(agents.file, 'utf8')) as { agents: Record<string, { command: string[] }> };
  for (const [name, fixtureName] of [
    ['dev', 'dev-agent.mjs'],
    ['ver', 'pass-verifier.mjs'],
  ] as const) {
    const wrapper = join(agents.dir, `hostile-${name}.mjs`);
    writeFileSync(wrapper, `${ATTEMPTS}\nawait import(${JSON.stringify(fixture(fixtureName))});\n`);
    const entry = data.agents[name] as { command: string[] };
    entry.command = [entry.command[0] as string, wrapper, ...entry.command.slice(2)];
  }
  writeFileSync(agents.file, JSON.stringify(data));
  return agents;
}

sandboxed(
  'a hostile developer, verifier and test change nothing they must not: no transcript, hook, ref, key, secret, conductor or home',
  async () => {
    const repo = makeProject();
    const home = fakeHome();
    const dir = makeTempDir('leap-seen-');
    const seenLog = join(dir, 'seen.jsonl');
    const mark = join(dir, 'hook-ran');
    const steps = slugSteps([TITLE]);
    const step = steps[TITLE] as StepEdits;
    // The developer's red also adds a test that deletes a file in home: the conductor's suite runs run it.
    step.red = {
      ...step.red!,
      extra: [
        {
          path: 'test/home.test.js',
          content:
            "import { test } from 'node:test';\nimport { rmSync } from 'node:fs';\ntest('home', () => {\n  let r = 'deleted';\n  try { rmSync(process.env.HOME + '/precious.txt'); } catch (e) { r = e.code; }\n  console.log('HOME-ATTEMPT ' + r);\n});\n",
        },
      ],
    };
    const agents = hostileAgents(steps);
    const main = git(repo, 'rev-parse', 'main').trim();
    const env = cleanEnv({
      HOME: home,
      SECRET_TOKEN: SECRET,
      LEAP_TEST_SEEN: seenLog,
      LEAP_TEST_MARK: mark,
      LEAP_TEST_CONDUCTOR_PID: String(process.pid),
    });
    // The log beside the agents is theirs (paths.write); the seen log's folder is made writable the same way.
    const data = JSON.parse(readFileSync(agents.file, 'utf8')) as {
      agents: Record<string, { paths: { write: string[] } }>;
    };
    for (const entry of Object.values(data.agents)) entry.paths.write.push(dir);
    writeFileSync(agents.file, JSON.stringify(data));
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env,
    });
    assert.is(result.code, 0, JSON.stringify(result.bail));
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
    const seen = readFileSync(seenLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const denied = {
      transcript: 'ENOENT',
      ledger: 'EROFS',
      hook: 'EROFS',
      ref: 'EROFS',
      key: 'ENOENT',
      signal: 'ESRCH',
      planted: 'ok',
      secret: null,
    };
    // The developer writes the tree, whose state folder is empty inside; the verifier reads a copy that has none.
    assert.equal(
      seen,
      [
        { role: 'developer', ...denied, stateFolder: '' },
        { role: 'verifier', ...denied, stateFolder: 'ENOENT', ledger: 'ENOENT' },
      ],
      JSON.stringify(seen),
    );
    // Nothing planted reached .git, no hook ran at the conductor's commits, main did not move, home and the key are whole.
    assert.not.ok(existsSync(join(repo, '.git', 'hooks', 'pre-commit')));
    assert.not.ok(existsSync(mark), 'no hook ran');
    assert.is(git(repo, 'rev-parse', 'main').trim(), main);
    assert.is(readFileSync(join(home, 'precious.txt'), 'utf8'), 'keep me\n');
    assert.is(readFileSync(join(home, '.ssh', 'id_ed25519'), 'utf8'), KEY);
    // The developer's file is its work (committed with the red); the verifier's never reached the tree.
    assert.ok(git(repo, 'ls-files').includes('planted-by-developer.txt'));
    assert.not.ok(existsSync(join(repo, 'planted-by-verifier.txt')));
    // The test ran in each suite run, and could not delete the file.
    assert.match(readFileSync(join(repo, '.tdd', 'verdict-green.err'), 'utf8'), /HOME-ATTEMPT EROFS/);
    const launches = readEvents(repo).filter((e) => e.event === 'launch');
    assert.equal(
      launches.map((e) => [e.leaf, e.sandbox, e.sandbox_role]),
      [
        ['develop-red', 'bwrap', 'writer'],
        ['verify-red', 'bwrap', 'reader'],
        ['develop-green', 'bwrap', 'writer'],
        ['verify-green', 'bwrap', 'reader'],
        ['develop-refactor', 'bwrap', 'writer'],
        ['verify-refactor', 'bwrap', 'reader'],
      ],
    );
  },
);

sandboxed('the planner is a reader: its edits never reach the tree', async () => {
  const repo = makeProject();
  const agents = scriptedAgents(
    [],
    [],
    [{ answer: `Slugify\n- ${TITLE} (criterion 1)\n`, edits: [{ path: 'notes.txt', content: 'planner was here' }] }],
  );
  // The developer has no move: the run bails after the plan, which is all this test is about.
  const result = await runTdd({
    cwd: repo,
    issue: 1,
    testCmd: TEST_CMD,
    developer: 'dev',
    verifier: 'ver',
    planner: 'plan',
    agentsFile: agents.file,
    env: cleanEnv(),
  });
  assert.equal(subjects(repo)[0], 'plan: issue 1', JSON.stringify(result.bail));
  assert.not.ok(existsSync(join(repo, 'notes.txt')));
  assert.not.ok(
    git(repo, 'log', '--all', '--format=%H')
      .split('\n')
      .some((sha) => sha !== '' && git(repo, 'ls-tree', '-r', '--name-only', sha).includes('notes.txt')),
    'nor any commit or kept-aside ref',
  );
  const launch = readEvents(repo).find((e) => e.event === 'launch' && e.leaf === 'plan');
  assert.equal([launch?.sandbox, launch?.sandbox_role], ['bwrap', 'reader']);
});

// A stand-in `codex` whose `login status` (the codex plugin's readiness check) is hostile: it tries what a
// hostile leaf would, prints what it saw as one JSON line on stderr and exits 3, so the bail quotes it.
const HOSTILE_LOGIN_STATUS = `#!/usr/bin/env node\n${hostileProbe({
  when: "process.argv[2] === 'login' && process.argv[3] === 'status'",
  attempts: {
    home: "fs.writeFileSync(process.env.HOME + '/planted.txt', 'mine\\n')",
    repo: "fs.writeFileSync(process.env.LEAP_TEST_REPO + '/planted.txt', 'mine\\n')",
    hook: "fs.writeFileSync(process.env.LEAP_TEST_REPO + '/.git/hooks/pre-commit', '#!/bin/sh\\n', { mode: 0o755 })",
    issue: "fs.readFileSync(process.env.LEAP_TEST_REPO + '/.tdd/issues/1.md', 'utf8')",
    key: "fs.readFileSync(process.env.HOME + '/.ssh/id_ed25519', 'utf8')",
    signal: "(process.kill(Number(process.env.LEAP_TEST_CONDUCTOR_PID), 0), 'reachable')",
  },
  report: { stderr: true, exitCode: 3 },
})}`;

sandboxed(
  "the run's own readiness check of its agents is sandboxed: a hostile `codex login status` plants nothing and reads no key, issue or secret",
  async () => {
    const home = fakeHome();
    // The repository inside the home, as a user's projects are (the sandbox's /tmp is private to it).
    const repo = join(home, 'src', 'project');
    mkdirSync(join(home, 'src'));
    renameSync(makeProject(), repo);
    const bin = join(makeTempDir('leap-codex-'), 'codex');
    writeFileSync(bin, HOSTILE_LOGIN_STATUS);
    chmodSync(bin, 0o755);
    const agents = commandAgents(slugSteps([TITLE]));
    const data = JSON.parse(readFileSync(agents.file, 'utf8')) as { agents: Record<string, unknown> };
    data.agents.cx = { plugin: 'codex', bin };
    writeFileSync(agents.file, JSON.stringify(data));
    const main = git(repo, 'rev-parse', 'main').trim();
    const env = cleanEnv({
      HOME: home,
      SECRET_TOKEN: SECRET,
      LEAP_TEST_REPO: repo,
      LEAP_TEST_CONDUCTOR_PID: String(process.pid),
    });
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: planFile([TITLE]),
      developer: 'cx',
      verifier: 'ver',
      agentsFile: agents.file,
      env,
    });
    assert.is(result.code, 1, JSON.stringify(result));
    assert.is(result.bail?.cause, 'agent-failed');
    const message = result.bail?.narration ?? '';
    assert.match(message, /^The developer: cx is not ready: `.*` exited with code 3: \{/);
    const seen = JSON.parse(message.slice(message.indexOf('{'))) as Record<string, unknown>;
    // A writer of an empty folder of its own: nothing of the repository, home or .git is writable, the state folder is absent.
    assert.equal(
      seen,
      { home: 'EROFS', repo: 'EROFS', hook: 'EROFS', issue: 'ENOENT', key: 'ENOENT', signal: 'ESRCH', secret: null },
      message,
    );
    assert.not.ok(existsSync(join(home, 'planted.txt')));
    assert.not.ok(existsSync(join(repo, 'planted.txt')));
    assert.not.ok(existsSync(join(repo, '.git', 'hooks', 'pre-commit')));
    assert.is(git(repo, 'rev-parse', 'main').trim(), main);
    assert.is(readFileSync(join(home, '.ssh', 'id_ed25519'), 'utf8'), KEY);
  },
);

sandboxed(
  'without bwrap `leap tdd run` refuses with exit 2 in one line, touching nothing; --sandbox off and leap.config.json run unsandboxed',
  async () => {
    const repo = makeProject();
    const agents = commandAgents(slugSteps([TITLE]));
    const plan = planFile([TITLE]);
    const env = { ...cleanEnv(), LEAP_BWRAP: '/nonexistent/bwrap' };
    const args = [
      'tdd',
      'run',
      '--issue',
      '1',
      '--test-cmd',
      TEST_CMD,
      '--plan',
      plan,
      '--developer',
      'dev',
      '--verifier',
      'ver',
      '--agents',
      agents.file,
    ];
    const refused = await runBin(LEAP, args, { cwd: repo, env });
    assert.is(refused.code, 2, refused.stderr);
    assert.is(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /cannot sandbox the leaf: bwrap \(bubblewrap\) is not installed .*apt-get install bubblewrap, or run with --sandbox off$/m,
    );
    assert.is(git(repo, 'branch', '--show-current').trim(), 'main', 'nothing touched');
    assert.not.ok(existsSync(join(repo, '.tdd', 'events.jsonl')));
    const bad = await runBin(LEAP, [...args, '--sandbox', 'maybe'], { cwd: repo, env });
    assert.equal([bad.code, /--sandbox must be on or off, got "maybe"/.test(bad.stderr)], [2, true], bad.stderr);
    // Stopped at its first step boundary, then resumed with no --sandbox: the recorded off holds (no bwrap refusal).
    mkdirSync(join(repo, '.tdd'), { recursive: true });
    writeFileSync(join(repo, '.tdd', 'stop'), 'at-ledger\n');
    const off = await runBin(LEAP, [...args, '--sandbox', 'off'], { cwd: repo, env });
    assert.is(off.code, 3, off.stderr + off.stdout);
    const journal = JSON.parse(readFileSync(join(repo, '.tdd', 'issue-1-run.json'), 'utf8')) as {
      options: { sandbox?: string };
    };
    assert.is(journal.options.sandbox, 'off', "recorded with the run's options");
    const again = await runBin(LEAP, ['tdd', 'run', '--issue', '1'], { cwd: repo, env });
    assert.is(again.code, 0, again.stderr + again.stdout);
    assert.match(again.stdout, /--sandbox off/);
    const launches = readEvents(repo).filter((e) => e.event === 'launch');
    assert.ok(
      launches.length >= 6 && launches.every((e) => e.sandbox === 'off'),
      JSON.stringify(launches.map((e) => e.sandbox)),
    );

    // The project's own config says the same.
    const second = makeProject();
    writeFileSync(join(second, 'leap.config.json'), '{ "sandbox": "off" }\n');
    git(second, 'add', 'leap.config.json');
    git(second, 'commit', '-q', '-m', 'config');
    const byConfig = await runTdd({
      cwd: second,
      issue: 1,
      testCmd: TEST_CMD,
      planFile: plan,
      developer: 'dev',
      verifier: 'ver',
      agentsFile: agents.file,
      env,
    });
    assert.is(byConfig.code, 0, JSON.stringify(byConfig.bail));
    assert.ok(
      readEvents(second)
        .filter((e) => e.event === 'launch')
        .every((e) => e.sandbox === 'off'),
    );
  },
);

sandboxed.run();
