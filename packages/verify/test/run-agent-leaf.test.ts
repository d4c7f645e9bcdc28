import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCommandAgent } from '@leap/agent-command';
import { createScriptedAgent, movePromptFile } from '@leap/agent-scripted';
import { cleanupTempDirs, hostileTitles, makeGitRepo, makeTempDir } from '@leap/test-utils';
import { runAgentLeaf, superviseBinPath, whenLaunched } from '../src/run-agent-leaf.js';
import { verifyEnv, writeScript } from './helpers.js';

function setup() {
  const repo = makeGitRepo();
  const stateDir = join(repo, '.tdd');
  return { repo, stateDir };
}

const leaf = suite('runAgentLeaf');
leaf.after.each(cleanupTempDirs);

leaf('runs the agent under leap-supervise: prompt on stdin, answer parsed, files kept like a launch line', async () => {
  const { repo, stateDir } = setup();
  const [prompt] = hostileTitles(1, 21) as [string];
  const script = writeScript([{ answer: { verdict: 'PASS', reason: 'ok' }, stderr: 'thinking\n' }]);
  const agent = createScriptedAgent({ script });
  mkdirSync(stateDir);
  writeFileSync(join(stateDir, 'verify-green.exit'), '1\nstatus=exited\n');
  const result = await runAgentLeaf({ name: 'verify-green', agent, prompt, options: { role: 'verifier', cwd: repo }, stateDir, env: verifyEnv() });
  assert.is(result.code, 0, result.stderr);
  assert.is(result.status, 'exited');
  assert.equal(result.answer, { text: '{"verdict":"PASS","reason":"ok"}' });
  assert.is(result.failure, null);
  assert.is(readFileSync(movePromptFile(script, 0), 'utf8'), prompt);
  assert.is(readFileSync(join(stateDir, 'verify-green.out'), 'utf8'), '{"verdict":"PASS","reason":"ok"}');
  assert.match(readFileSync(join(stateDir, 'verify-green.err'), 'utf8'), /^thinking\nsupervise\[verify-green\]: exited\n$/);
  assert.match(readFileSync(join(stateDir, 'verify-green.exit'), 'utf8'), /^0\n/);
  // The supervisor's pid file is its single-instance lock: gone once the exit file and event are written.
  assert.not.ok(existsSync(join(stateDir, 'verify-green.pid')));
});

leaf('an agent that cannot start, one that fails, and one whose output is no answer', async () => {
  const { repo, stateDir } = setup();
  const missing = createCommandAgent({ name: 'ghost', command: ['no-such-agent-cli'], family: 'x' });
  const gone = await runAgentLeaf({ name: 'verify-red', agent: missing, prompt: 'p', options: { role: 'verifier', cwd: repo }, stateDir, env: verifyEnv() });
  assert.is(gone.code, 127);
  assert.is(gone.status, 'failed-start');
  assert.is(gone.failure, 'ghost could not start: no-such-agent-cli was not found (failed-start, code 127)');
  const failing = createCommandAgent({ name: 'sad', command: ['bash', '-c', 'echo partial; echo "quota exceeded" >&2; exit 5'], family: 'x' });
  const failed = await runAgentLeaf({ name: 'verify-red', agent: failing, prompt: 'p', options: { role: 'verifier', cwd: repo }, stateDir, env: verifyEnv() });
  assert.is(failed.code, 5);
  assert.is(failed.failure, 'sad exited with code 5 (exited): quota exceeded');
  assert.is(failed.answer, null);
  const silent = createCommandAgent({ name: 'mute', command: ['true'], family: 'x' });
  const mute = await runAgentLeaf({ name: 'verify-red', agent: silent, prompt: 'p', options: { role: 'verifier', cwd: repo }, stateDir, env: verifyEnv() });
  assert.is(mute.code, 0);
  assert.is(mute.failure, "could not read mute's answer: the agent printed nothing on stdout");
});

leaf('a stuck agent is killed by its supervisor at the timeout: code 2, killed-timeout', async () => {
  const { repo, stateDir } = setup();
  const agent = createScriptedAgent({ script: writeScript([{ answer: 'never', hang: true }]) });
  const result = await runAgentLeaf({ name: 'verify-refactor', agent, prompt: 'p', options: { role: 'verifier', cwd: repo }, stateDir, env: verifyEnv({ VERI_TIMEOUT: '0.5' }) });
  assert.is(result.code, 2);
  assert.is(result.status, 'killed-timeout');
  assert.is(result.failure, 'scripted was stopped by its supervisor (killed-timeout)');
});

leaf('a bad leaf name is refused before anything runs', async () => {
  const { repo, stateDir } = setup();
  const agent = createCommandAgent({ command: ['true'], family: 'x' });
  await runAgentLeaf({ name: '../x', agent, prompt: 'p', options: { role: 'verifier', cwd: repo }, stateDir, env: verifyEnv() })
    .then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /Expected a leaf NAME/));
});

leaf.run();

// ---

const bin = suite('superviseBinPath');

bin('the built leap-supervise of @leap/supervise', () => {
  assert.match(superviseBinPath(), /packages\/supervise\/dist\/bin\/leap-supervise\.js$/);
  assert.ok(existsSync(superviseBinPath()));
});

bin.run();

// ---

const launched = suite('whenLaunched');
launched.after.each(cleanupTempDirs);

launched('resolves once every pid file exists, or after the limit', async () => {
  const dir = makeTempDir();
  const started = Date.now();
  setTimeout(() => writeFileSync(join(dir, 'a.pid'), '1\n'), 50);
  writeFileSync(join(dir, 'b.pid'), '1\n');
  await whenLaunched(dir, ['a', 'b'], 5000);
  assert.ok(existsSync(join(dir, 'a.pid')));
  await whenLaunched(dir, ['never'], 60);
  assert.ok(Date.now() - started >= 60);
});

launched.run();
