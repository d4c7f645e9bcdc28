import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostileTitles } from '@leap/test-utils';
import { join } from 'node:path';
import { createCommandAgent, parsePlainAnswer } from '../src/index.js';
import { fixtures, runInvocation } from './helpers.js';

const create = suite('createCommandAgent');

create('runs any argv with the prompt on stdin and the family from configuration', async () => {
  const agent = createCommandAgent({
    name: 'local-llm',
    command: [join(fixtures, 'answer-agent.sh')],
    family: 'mistral',
    env: { EXTRA: 'e' },
  });
  assert.is(agent.name, 'local-llm');
  assert.is(agent.family, 'mistral');
  for (const title of hostileTitles(6, 2)) {
    const call = agent.buildInvocation(title, { role: 'reviewer', cwd: '/srv/repo', model: 'm1' });
    assert.equal(call.args, []);
    const ran = await runInvocation(call);
    assert.is(ran.code, 0, ran.stderr);
    assert.is(agent.parseAnswer(ran.stdout).text, `role=reviewer model=m1 cwd=/srv/repo extra=e\n${title}`.trim());
  }
});

create('argv elements pass through untouched, with no shell and no templating', async () => {
  const agent = createCommandAgent({ command: ['printf', '%s|%s', '$(id)', '{model}'], family: 'x' });
  assert.is(agent.name, 'command');
  const ran = await runInvocation(agent.buildInvocation('ignored', { role: 'verifier', cwd: '/tmp' }));
  assert.is(ran.stdout, '$(id)|{model}');
  assert.is(agent.buildInvocation('p', { role: 'verifier', cwd: '/tmp' }).env?.LEAP_AGENT_MODEL, undefined);
});

create('refuses an empty command or a family that cannot name a leaf', () => {
  assert.throws(
    () => createCommandAgent({ command: [], family: 'x' }),
    /expected "command" to be a non-empty argv array, got "\[\]"/,
  );
  assert.throws(() => createCommandAgent({ name: 'n', command: [''], family: 'x' }), /agent "n"/);
  assert.throws(() => createCommandAgent({ command: ['true'], family: 'a-b' }), /expected "family" to be a word/);
  assert.throws(
    () => createCommandAgent({ command: ['true'], family: undefined as unknown as string }),
    /got undefined/,
  );
});

create.run();

// ---

const parse = suite('parsePlainAnswer');

parse('trims the answer and refuses an empty one', () => {
  assert.equal(parsePlainAnswer('  {"verdict":"PASS"}\n'), { text: '{"verdict":"PASS"}' });
  assert.throws(() => parsePlainAnswer(' \n\t'), /printed nothing/);
});

parse.run();
