import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostileTitles } from '@leap/test-utils';
import { createClaudeAgent, parseClaudeOutput } from '../src/index.js';
import { runInvocation } from './helpers.js';

const create = suite('createClaudeAgent');

create('names the anthropic family and builds a read-only verifier call with the prompt on stdin', () => {
  const agent = createClaudeAgent();
  assert.is(agent.name, 'claude');
  assert.is(agent.family, 'anthropic');
  const call = agent.buildInvocation('judge this', { role: 'verifier', cwd: '/tmp' });
  assert.is(call.command, 'claude');
  assert.equal(call.args, ['-p', '--output-format', 'json', '--permission-mode', 'default', '--disallowedTools', 'Edit,Write,NotebookEdit']);
  assert.is(call.stdin, 'judge this');
  assert.ok('CLAUDECODE' in (call.env ?? {}));
  assert.is(call.env?.CLAUDECODE, undefined);
});

create('a developer gets the write permission mode; model, schema and extra args are passed', () => {
  const agent = createClaudeAgent({ name: 'claude-fast', bin: '/opt/claude', model: 'haiku', extraArgs: ['--verbose'], writePermissionMode: 'acceptEdits' });
  const call = agent.buildInvocation('x', { role: 'developer', cwd: '/tmp', model: 'opus', answerSchema: { type: 'object' } });
  assert.is(agent.name, 'claude-fast');
  assert.is(call.command, '/opt/claude');
  assert.equal(call.args, ['-p', '--output-format', 'json', '--model', 'opus', '--permission-mode', 'acceptEdits', '--json-schema', '{"type":"object"}', '--verbose']);
  const fallback = createClaudeAgent({ model: 'haiku' }).buildInvocation('x', { role: 'builder', cwd: '/tmp' });
  assert.equal(fallback.args.slice(3, 7), ['--model', 'haiku', '--permission-mode', 'bypassPermissions']);
});

create('runs against a stand-in claude on PATH, with CLAUDECODE stripped and hostile prompts intact', async () => {
  const agent = createClaudeAgent();
  for (const title of hostileTitles(8, 3)) {
    const call = agent.buildInvocation(title, { role: 'reviewer', cwd: process.cwd() });
    const ran = await runInvocation(call, { CLAUDECODE: '1' });
    assert.is(ran.code, 0, ran.stderr);
    assert.is(agent.parseAnswer(ran.stdout).text, `echo:${title}`);
  }
});

create('the stand-in refuses unexpected argv, so the test would notice a wrong flag', async () => {
  const ran = await runInvocation({ command: 'claude', args: ['-p', '--output-format', 'text'], stdin: 'x' });
  assert.is(ran.code, 64);
  assert.match(ran.stderr, /unexpected value "text"/);
});

create('structured output with --json-schema lands in json', async () => {
  const agent = createClaudeAgent();
  const call = agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp', answerSchema: { type: 'object' } });
  const ran = await runInvocation(call, { STANDIN_RESULT: '', STANDIN_STRUCTURED: '{"verdict":"PASS","reason":"ok"}' });
  assert.equal(agent.parseAnswer(ran.stdout), { text: '', json: { verdict: 'PASS', reason: 'ok' } });
});

create('an error result throws, naming the subtype', async () => {
  const agent = createClaudeAgent();
  const ran = await runInvocation(agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp' }), { STANDIN_MODE: 'error', STANDIN_RESULT: 'overloaded' });
  assert.is(ran.code, 1);
  assert.throws(() => agent.parseAnswer(ran.stdout), /claude reported an error \(error_during_execution\): overloaded/);
});

create.run();

// ---

const parse = suite('parseClaudeOutput');

parse('reads the final JSON object of a stream', () => {
  const text = `${JSON.stringify({ type: 'system' })}\nnoise\n${JSON.stringify({ type: 'result', is_error: false, result: 'done' })}\n`;
  assert.equal(parseClaudeOutput(text), { text: 'done' });
});

parse('reads a pretty-printed single object, ignoring a null structured_output', () => {
  assert.equal(parseClaudeOutput(JSON.stringify({ result: 'a', structured_output: null }, null, 2)), { text: 'a' });
});

parse('refuses output that is not the CLI format', () => {
  assert.throws(() => parseClaudeOutput('plain text'), /expected a JSON object on stdout/);
  assert.throws(() => parseClaudeOutput(''), /expected a JSON object/);
  assert.throws(() => parseClaudeOutput('[1,2]\n{bad'), /expected a JSON object/);
  assert.throws(() => parseClaudeOutput('{"type":"result","result":42}'), /expected a string "result"/);
  assert.throws(() => parseClaudeOutput('{"type":"result"}'), /found "null"/);
  assert.throws(() => parseClaudeOutput(`{"is_error":true,"detail":"${'x'.repeat(200)}"}`), /claude reported an error \(error\): ".*…"/);
});

parse.run();
