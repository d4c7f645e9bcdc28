import { spawn } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cleanupTempDirs,
  git,
  hostileTitles,
  isAlive,
  makeGitRepo,
  makeTempDir,
  runCommand,
  waitFor,
} from '@leap/test-utils';
import { createScriptedAgent, movePromptFile, scriptedAgentBin } from '../src/index.js';
import { runInvocation } from './helpers.js';

function writeScript(dir: string, data: unknown, name = 'script.json'): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(data));
  return file;
}

/** The agent's bin on `script` in `dir`, the prompt `p` on stdin: its process, its stdout so far, its end. */
function startAgent(script: string, dir: string) {
  const call = createScriptedAgent({ script }).buildInvocation('p', { role: 'developer', cwd: dir });
  const child = spawn(call.command, call.args, { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
  });
  const closed = new Promise<number | null>((r) => child.on('close', r));
  child.stdin.end('p');
  return { child, out: () => out, closed };
}

const create = suite('createScriptedAgent');
create.after.each(cleanupTempDirs);

create('runs the built replay bin with the prompt on stdin; family from the script, config or default', () => {
  const dir = makeTempDir();
  const withFamily = writeScript(dir, { family: 'alpha', moves: [] }, 'a.json');
  const bare = writeScript(dir, [], 'b.json');
  const agent = createScriptedAgent({ script: withFamily });
  assert.is(agent.name, 'scripted');
  assert.is(agent.family, 'alpha');
  assert.is(createScriptedAgent({ script: bare }).family, 'scripted');
  assert.is(createScriptedAgent({ script: bare, family: 'beta', name: 'r' }).family, 'beta');
  const call = agent.buildInvocation('p', { role: 'developer', cwd: dir });
  assert.is(call.command, process.execPath);
  assert.equal(call.args, [scriptedAgentBin(), withFamily]);
  assert.ok(existsSync(scriptedAgentBin()), 'build the package first: the bin is missing');
  assert.is(call.stdin, 'p');
  assert.is(call.env?.LEAP_AGENT_ROLE, 'developer');
});

create('its sandbox needs: its claims folder (SCRIPT.state/), made now, its own agent folder (read-write)', () => {
  const dir = makeTempDir();
  const script = writeScript(dir, { moves: [] });
  assert.equal(createScriptedAgent({ script }).sandbox?.({}), { agentPaths: [`${script}.state`] });
  assert.ok(existsSync(`${script}.state`));
});

create(
  'replays moves in order: edits, commit, answer, stderr, exit code; records each prompt byte for byte',
  async () => {
    const repo = makeGitRepo();
    const script = writeScript(makeTempDir(), {
      moves: [
        {
          answer: 'first',
          edits: [{ path: 'test/a.test.js', content: 'red\n' }],
          commit: 'red: add a test',
          stderr: 'working\n',
        },
        { answer: { verdict: 'PASS', reason: 'ok' }, edits: [{ path: 'test/a.test.js', delete: true }], exit: 1 },
      ],
    });
    const agent = createScriptedAgent({ script });
    const [title1, title2] = hostileTitles(2, 9) as [string, string];
    const one = await runInvocation(agent.buildInvocation(title1, { role: 'developer', cwd: repo }), {}, repo);
    assert.is(one.code, 0, one.stderr);
    assert.is(agent.parseAnswer(one.stdout).text, 'first');
    assert.is(one.stderr, 'working\n');
    assert.is(readFileSync(join(repo, 'test/a.test.js'), 'utf8'), 'red\n');
    assert.is(git(repo, 'log', '-1', '--format=%s').trim(), 'red: add a test');
    const two = await runInvocation(agent.buildInvocation(title2, { role: 'verifier', cwd: repo }), {}, repo);
    assert.is(two.code, 1);
    assert.equal(JSON.parse(agent.parseAnswer(two.stdout).text), { verdict: 'PASS', reason: 'ok' });
    assert.not.ok(existsSync(join(repo, 'test/a.test.js')));
    assert.is(readFileSync(movePromptFile(script, 0), 'utf8'), title1);
    assert.is(readFileSync(movePromptFile(script, 1), 'utf8'), title2);
    const three = await runInvocation(agent.buildInvocation('x', { role: 'verifier', cwd: repo }), {}, repo);
    assert.is(three.code, 3);
    assert.match(three.stderr, /no move left in .*script\.json \(2 replayed\)/);
    assert.throws(() => agent.parseAnswer(three.stdout), /printed nothing/);
  },
);

create('a dry move exits 1 with its words and the kind: ranDry reads them; no other end is dry', async () => {
  const dir = makeTempDir();
  const script = writeScript(dir, {
    moves: [
      { dry: 'rate-limit', stderr: 'API Error: 429 rate limit reached\n' },
      { dry: 'quota' },
      {
        stderr: 'leap-scripted-agent: the vendor ran dry: rate-limit (a crash that says so is not the line)\n',
        exit: 1,
      },
      { answer: 'the vendor ran dry: quota', exit: 0 },
    ],
  });
  const agent = createScriptedAgent({ script });
  const run = () => runInvocation(agent.buildInvocation('p', { role: 'developer', cwd: dir }), {}, dir);
  const limited = await run();
  assert.is(limited.code, 1);
  assert.equal(agent.ranDry?.(limited.stdout, limited.stderr), {
    kind: 'rate-limit',
    message: 'API Error: 429 rate limit reached',
  });
  const spent = await run();
  assert.is(spent.code, 1);
  assert.equal(agent.ranDry?.(spent.stdout, spent.stderr), {
    kind: 'quota',
    message: 'the scripted vendor ran dry (quota)',
  });
  const crash = await run();
  assert.is(agent.ranDry?.(crash.stdout, crash.stderr), null);
  const claim = await run();
  assert.is(claim.code, 0);
  assert.is(agent.ranDry?.(claim.stdout, claim.stderr), null);
  assert.throws(
    () =>
      writeScript(dir, { moves: [{ dry: 'tired' }] }, 'bad.json') &&
      createScriptedAgent({ script: join(dir, 'bad.json') }),
    /move 0: expected "dry" to be one of quota, rate-limit, overload, found "tired"/,
  );
});

create('concurrent launches never replay the same move', async () => {
  const dir = makeTempDir();
  const moves = Array.from({ length: 6 }, (_, i) => ({ answer: `move ${i}`, sleep_ms: 20 }));
  const script = writeScript(dir, { family: 'f', moves });
  const agent = createScriptedAgent({ script });
  const runs = await Promise.all(
    moves.map(() => runInvocation(agent.buildInvocation('p', { role: 'reviewer', cwd: dir }), {}, dir)),
  );
  assert.equal(runs.map((r) => r.stdout).sort(), moves.map((m) => m.answer).sort());
});

create('a hanging move ignores TERM and never answers, until KILL', async () => {
  const dir = makeTempDir();
  const script = writeScript(dir, [{ answer: 'never', hang: true }]);
  const { child, out, closed } = startAgent(script, dir);
  assert.ok(await waitFor(() => existsSync(movePromptFile(script, 0))));
  child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(isAlive(child.pid as number), 'TERM must not end a hanging move');
  child.kill('SIGKILL');
  await closed;
  assert.is(out(), '');
});

create('a wait_for move applies its edits, then answers only once its cue file exists', async () => {
  const dir = makeTempDir();
  const script = writeScript(dir, [{ answer: 'cued', edits: [{ path: 'made.txt', content: 'x' }], wait_for: 'go' }]);
  const { child, out, closed } = startAgent(script, dir);
  await waitFor(() => existsSync(join(dir, 'made.txt')), 60_000, 'the edit made');
  await new Promise((r) => setTimeout(r, 200));
  assert.is(out(), '', 'answered before its cue');
  assert.ok(isAlive(child.pid as number));
  writeFileSync(join(`${script}.state`, 'go'), '');
  assert.is(await closed, 0);
  assert.is(out(), 'cued');
});

create.run();

// ---

const bin = suite('leap-scripted-agent');
bin.after.each(cleanupTempDirs);

bin('--help prints the usage; bad usage and a malformed script exit 2 with the file named', async () => {
  const help = await runCommand(process.execPath, [scriptedAgentBin(), '--help']);
  assert.is(help.code, 0);
  assert.match(help.stdout, /^Usage: leap-scripted-agent SCRIPT/);
  const none = await runCommand(process.execPath, [scriptedAgentBin()]);
  assert.is(none.code, 2);
  assert.match(none.stderr, /Expected exactly one argument, the script file, got 0/);
  const dir = makeTempDir();
  const bad = writeScript(dir, { moves: [{ answer: 'x', edits: [{ path: '../escape', content: 'x' }] }] });
  const escaped = await runCommand(process.execPath, [scriptedAgentBin(), bad], { cwd: dir });
  assert.is(escaped.code, 2);
  assert.match(escaped.stderr, /Expected an edit path inside the working folder, got "\.\.\/escape"/);
  const missing = await runCommand(process.execPath, [scriptedAgentBin(), join(dir, 'nope.json')], { cwd: dir });
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /nope\.json: cannot read the script/);
});

bin.run();
