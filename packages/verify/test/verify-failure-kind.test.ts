import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { verify } from '../src/index.js';
import { makeRedRepo, verifyEnv, writeAgents, writeScript } from './helpers.js';

const STEP = 'greet returns hello';

const run = suite('verify: why an agent ERROR had no answer');
run.after.each(cleanupTempDirs);

run('a verifier CLI that fails by itself is an ERROR of kind "failed", in its own words', async () => {
  const repo = makeRedRepo();
  const dir = makeTempDir();
  const agents = writeAgents(
    {
      v: {
        plugin: 'command',
        family: 'openai',
        command: ['bash', '-c', 'cat > /dev/null; echo "Not logged in: run login first" >&2; exit 1'],
      },
    },
    dir,
  );
  const result = await verify({
    phase: 'red',
    step: STEP,
    cwd: repo,
    env: verifyEnv({ VERI_AGENTS: agents, VERI_VERIFY_AGENT: 'v' }),
  });
  assert.is(result.verdict, 'ERROR');
  assert.is(result.code, 2);
  assert.is(result.failureKind, 'failed');
  assert.match(result.reason, /Not logged in: run login first/);
});

// The time limit is the suites' too: 3 s lets them end on a loaded machine, the verifier hangs past it.
run('a verifier killed for its time limit is an ERROR of kind "killed"', async () => {
  const repo = makeRedRepo();
  const dir = makeTempDir();
  const agents = writeAgents(
    { v: { plugin: 'scripted', script: writeScript([{ answer: 'never', hang: true }], 'scripted', dir) } },
    dir,
  );
  const result = await verify({
    phase: 'red',
    step: STEP,
    cwd: repo,
    env: verifyEnv({ VERI_AGENTS: agents, VERI_VERIFY_AGENT: 'v', VERI_TIMEOUT: '3' }),
  });
  assert.is(result.verdict, 'ERROR');
  assert.is(result.failureKind, 'killed');
});

run(
  'a verifier that answers something that is not a verdict is an ERROR with no failure kind (the answer was read)',
  async () => {
    const repo = makeRedRepo();
    const dir = makeTempDir();
    const agents = writeAgents(
      { v: { plugin: 'scripted', script: writeScript([{ answer: 'I think it is fine' }], 'scripted', dir) } },
      dir,
    );
    const result = await verify({
      phase: 'red',
      step: STEP,
      cwd: repo,
      env: verifyEnv({ VERI_AGENTS: agents, VERI_VERIFY_AGENT: 'v' }),
    });
    assert.is(result.verdict, 'ERROR');
    assert.is(result.failureKind, undefined);
    assert.match(result.reason, /malformed verdict|not one JSON object/);
  },
);

run.run();
