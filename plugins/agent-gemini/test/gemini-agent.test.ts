import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostileTitles } from '@leap/test-utils';
import { GEMINI_PROMPT_FLAG_TEXT, createGeminiAgent, parseGeminiOutput } from '../src/index.js';
import { runInvocation } from './helpers.js';

const create = suite('createGeminiAgent');

create('names the google family; read-only roles get the default approval mode and the prompt on stdin', () => {
  const agent = createGeminiAgent();
  assert.is(agent.name, 'gemini');
  assert.is(agent.family, 'google');
  const call = agent.buildInvocation('the prompt', { role: 'verifier', cwd: '/tmp' });
  assert.is(call.command, 'gemini');
  assert.equal(call.args, ['--output-format', 'json', '--approval-mode', 'default', '-p', GEMINI_PROMPT_FLAG_TEXT]);
  assert.is(call.stdin, 'the prompt');
});

create('writers get yolo; model and extra args are passed', () => {
  const agent = createGeminiAgent({ name: 'gemini-pro', bin: '/opt/gemini', model: 'pro', extraArgs: ['--debug'] });
  const call = agent.buildInvocation('p', { role: 'developer', cwd: '/tmp', model: 'flash' });
  assert.is(agent.name, 'gemini-pro');
  assert.is(call.command, '/opt/gemini');
  assert.equal(call.args, ['--output-format', 'json', '--model', 'flash', '--approval-mode', 'yolo', '--debug', '-p', GEMINI_PROMPT_FLAG_TEXT]);
  assert.equal(agent.buildInvocation('p', { role: 'builder', cwd: '/tmp' }).args.slice(2, 4), ['--model', 'pro']);
});

create('runs against a stand-in gemini on PATH; hostile prompts arrive intact', async () => {
  const agent = createGeminiAgent();
  for (const title of hostileTitles(6, 5)) {
    const ran = await runInvocation(agent.buildInvocation(title, { role: 'reviewer', cwd: process.cwd() }));
    assert.is(ran.code, 0, ran.stderr);
    assert.is(agent.parseAnswer(ran.stdout).text, `echo:${title}|approval=default`);
  }
});

create('the stand-in refuses unexpected argv', async () => {
  const ran = await runInvocation({ command: 'gemini', args: ['--output-format', 'json', '--yolo'], stdin: 'x' });
  assert.is(ran.code, 42);
  assert.match(ran.stderr, /unexpected argument "--yolo"/);
});

create('an error object throws', async () => {
  const agent = createGeminiAgent();
  const ran = await runInvocation(agent.buildInvocation('x', { role: 'verifier', cwd: '/tmp' }), { STANDIN_MODE: 'error' });
  assert.is(ran.code, 1);
  assert.throws(() => agent.parseAnswer(ran.stdout), /gemini reported an error \(ApiError\): quota exceeded/);
});

create.run();

// ---

const parse = suite('parseGeminiOutput');

parse('reads the last JSON line after noise; a null error is no error', () => {
  assert.equal(parseGeminiOutput('Loaded cached credentials.\n{bad\n{"response":"ok","error":null}\n'), { text: 'ok' });
});

parse('throws on other shapes', () => {
  assert.throws(() => parseGeminiOutput('hello'), /expected a JSON object on stdout/);
  assert.throws(() => parseGeminiOutput('[]'), /expected a JSON object/);
  assert.throws(() => parseGeminiOutput('{"stats":{}}'), /expected a string "response", found "null"/);
  assert.throws(() => parseGeminiOutput('{"error":"denied"}'), /gemini reported an error \(error\): "\\"denied\\""/);
  assert.throws(() => parseGeminiOutput(`{"response":1,"x":"${'y'.repeat(200)}"}`), /found "1"/);
  assert.throws(() => parseGeminiOutput(`nope ${'z'.repeat(200)}`), /…"/);
});

parse.run();
