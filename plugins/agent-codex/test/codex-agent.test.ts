import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostileTitles } from '@leap/test-utils';
import { createCodexAgent, parseCodexEvents } from '../src/index.js';
import { runInvocation } from './helpers.js';

const create = suite('createCodexAgent');

create('names the openai family; verifiers and reviewers run in the read-only sandbox', () => {
  const agent = createCodexAgent();
  assert.is(agent.name, 'codex');
  assert.is(agent.family, 'openai');
  for (const role of ['verifier', 'reviewer', 'planner'] as const) {
    const call = agent.buildInvocation('p', { role, cwd: '/tmp' });
    assert.equal(call.args, ['exec', '--json', '--sandbox', 'read-only', '-']);
    assert.is(call.stdin, 'p');
    assert.is(call.command, 'codex');
  }
});

create('writers get workspace-write; model and extra args come before "-"', () => {
  const agent = createCodexAgent({ name: 'codex-mini', bin: '/opt/codex', model: 'o4-mini', extraArgs: ['--ephemeral'] });
  assert.is(agent.name, 'codex-mini');
  const call = agent.buildInvocation('p', { role: 'developer', cwd: '/tmp' });
  assert.is(call.command, '/opt/codex');
  assert.equal(call.args, ['exec', '--json', '--sandbox', 'workspace-write', '--model', 'o4-mini', '--ephemeral', '-']);
  assert.equal(agent.buildInvocation('p', { role: 'builder', cwd: '/tmp', model: 'gpt-5' }).args.slice(4, 6), ['--model', 'gpt-5']);
});

create('runs against a stand-in codex on PATH; hostile prompts arrive intact', async () => {
  const agent = createCodexAgent();
  for (const title of hostileTitles(6, 11)) {
    const ran = await runInvocation(agent.buildInvocation(title, { role: 'reviewer', cwd: process.cwd() }));
    assert.is(ran.code, 0, ran.stderr);
    assert.is(agent.parseAnswer(ran.stdout).text, `echo:${title}|sandbox=read-only`);
  }
});

create('the stand-in refuses unexpected argv', async () => {
  const ran = await runInvocation({ command: 'codex', args: ['exec', '--sandbox', 'read-only', '-'], stdin: 'x' });
  assert.is(ran.code, 64);
  assert.match(ran.stderr, /missing --json/);
});

create('a failed turn throws with its message', async () => {
  const agent = createCodexAgent();
  const ran = await runInvocation(agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp' }), { STANDIN_MODE: 'fail' });
  assert.is(ran.code, 1);
  assert.throws(() => agent.parseAnswer(ran.stdout), /codex reported an error: usage limit/);
});

create.run();

// ---

const parse = suite('parseCodexEvents');

parse('takes the last agent message and ignores other items and noise', () => {
  const lines = ['not json', '{"type":"item.completed","item":{"type":"agent_message","text":"a"}}', '[1]', '{bad', '{"type":"item.completed","item":{"type":"command_execution","command":"ls"}}', '{"type":"item.completed","item":{"type":"agent_message","text":"b"}}', ''];
  assert.equal(parseCodexEvents(lines.join('\n')), { text: 'b' });
});

parse('throws on an error event, no events, or no agent message', () => {
  assert.throws(() => parseCodexEvents('{"type":"error","message":"boom"}'), /codex reported an error: boom/);
  assert.throws(() => parseCodexEvents('{"type":"turn.failed"}'), /codex reported an error: turn failed/);
  assert.throws(() => parseCodexEvents('final text only'), /expected JSON Lines events on stdout/);
  assert.throws(() => parseCodexEvents('{"type":"turn.started"}\n{"type":"item.completed"}\n{"type":"turn.completed"}'), /no completed agent_message item among 3 events/);
});

parse.run();
