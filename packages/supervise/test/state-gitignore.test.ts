// The state folder keeps git clean (CONTRACT section 2): a real leap-supervise leaf, its output redirected
// into the state folder as a skill does (`> .tdd/NAME.out 2> .tdd/NAME.err`), then leap-wait, leave
// `git status --porcelain` empty: pid, exit, out, err, the event log and the folder's .gitignore are ignored.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, hostileTitles } from '@leap/test-utils';
import { STATE_GITIGNORE } from '@leap/core';
import { SUPERVISE, WAIT, bin, killStrays, makeScene, superviseBin } from './helpers.js';

const status = (repo: string) => git(repo, 'status', '--porcelain', '--untracked-files=all');

const clean = suite('leap-supervise leaves git status clean');
clean.after.each(() => {
  killStrays();
  cleanupTempDirs();
});

clean('a leaf run as a skill runs it (output redirected into .tdd/), then leap-wait: git status is empty', async () => {
  const scene = makeScene({ VERI_STEP: hostileTitles(2)[1]! });
  assert.not.ok(
    existsSync(join(scene.state, '.gitignore')),
    "the scene's .tdd/ starts as a person makes it, without one",
  );
  // bash does the redirection, as the skill's script line does; the leaf prints to both streams.
  const line = `"$NODE" "$SUPERVISE" develop-red "$NODE" -e 'console.log("out"); console.error("err")' > .tdd/develop-red.out 2> .tdd/develop-red.err`;
  const run = spawnSync('bash', ['-c', line], {
    cwd: scene.repo,
    env: { ...scene.env, NODE: process.execPath, SUPERVISE },
    encoding: 'utf8',
  });
  assert.is(run.status, 0, run.stderr);
  const wait = await bin(WAIT, scene, ['develop-red', '5']);
  assert.is(wait.code, 0, wait.stderr);
  for (const file of ['develop-red.exit', 'develop-red.out', 'develop-red.err', 'events.jsonl'])
    assert.ok(existsSync(join(scene.state, file)), `${file} is there`);
  assert.is(readFileSync(join(scene.state, 'develop-red.out'), 'utf8'), 'out\n');
  assert.is(readFileSync(join(scene.state, '.gitignore'), 'utf8'), STATE_GITIGNORE);
  assert.is(status(scene.repo), '');
});

clean('a state folder leap-supervise makes (VERI_STATE_DIR) gets its .gitignore: git status is empty', async () => {
  const scene = makeScene();
  const result = await superviseBin(scene, ['plan', process.execPath, '-e', '0'], { VERI_STATE_DIR: 'run-state' });
  assert.is(result.code, 0, result.stderr);
  assert.ok(existsSync(join(scene.repo, 'run-state', 'plan.exit')));
  assert.is(readFileSync(join(scene.repo, 'run-state', '.gitignore'), 'utf8'), STATE_GITIGNORE);
  assert.is(status(scene.repo), '');
});

clean.run();
