// The skill's three-line launch form, run by a real bash exactly as written, with S pointing at our scripts/.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanupTempDirs, hostileTitles, runCommand, scriptPath, waitFor } from '@leap/test-utils';
import { eventsOf, exitRecord, fixture, killStrays, makeScene } from './helpers.js';

test.after.each(() => killStrays());
test.after(() => cleanupTempDirs());

const S = dirname(scriptPath('supervise.sh'));

// Quote text for the inside of a bash double-quoted string: only \, $, ` and " are special there.
function inDoubleQuotes(text: string): string {
  return text.replace(/[\\$`"]/g, (c) => `\\${c}`);
}

function launchForm(name: string, stepExpression: string, command: string): string {
  return [
    `rm -f .tdd/${name}.exit .tdd/${name}.pid`,
    `VERI_TEST_CMD='npm test' VERI_ISSUE=7 VERI_STEP="${stepExpression}" "$S"/detach-leaf.sh "$S"/supervise.sh ${name} ${command} > .tdd/${name}.out 2> .tdd/${name}.err`,
    `"$S"/wait-leaf.sh ${name}`,
  ].join('\n');
}

test('L-launch-form: rm -f, detach-leaf.sh supervise.sh with VERI_* and redirections, then wait-leaf.sh: every hostile title arrives byte for byte', async () => {
  const scene = makeScene({ S });
  writeFileSync(join(scene.state, 'issue-7-skill-commit'), 'c0ffee\n');
  const titles = hostileTitles(10, 11);
  for (const [i, title] of titles.entries()) {
    const name = `develop-green-${i + 1}`;
    // A stale pair from an earlier cycle, which the form's rm -f clears.
    writeFileSync(join(scene.state, `${name}.exit`), '0\nstatus=exited\nrun=stale\n');
    writeFileSync(join(scene.state, `${name}.pid`), '1\nrun=stale\n');
    // Half the titles as a literal in the form, half through $(cat ...) like `ledger-steps.sh current`.
    writeFileSync(join(scene.repo, 'step.txt'), title);
    const step = i % 2 === 0 ? inDoubleQuotes(title) : '$(cat step.txt | cat)';
    const script = launchForm(name, step, `'${fixture('print-env.js')}' 1`);
    const r = await runCommand('bash', ['-c', script], { cwd: scene.repo, env: scene.env });
    assert.is(r.code, 1, `${name}: ${r.stderr}`);
    assert.is(r.stderr, `wait-leaf[${name}]: exited\n`);
    const env = JSON.parse(readFileSync(join(scene.state, `${name}.out`), 'utf8'));
    assert.is(env.VERI_STEP, title);
    assert.is(env.VERI_TEST_CMD, 'npm test');
    assert.is(env.VERI_ISSUE, '7');
    assert.is(env.VERI_SKILL_COMMIT, 'c0ffee');
    assert.is(env.BASH_DEFAULT_TIMEOUT_MS, '20000');
    assert.is(readFileSync(join(scene.state, `${name}.err`), 'utf8'), `supervise[${name}]: exited\n`);
    assert.is(exitRecord(scene, name)?.code, 1);
    const [launch] = eventsOf(scene, 'launch', name);
    assert.is(launch?.step, title);
    assert.is(launch?.issue, 7);
    assert.is(launch?.skill_commit, 'c0ffee');
    assert.equal([launch?.actor, launch?.phase, launch?.attempt], ['developer', 'green', i + 1]);
    assert.is(launch?.timeout_ms, 20_000, 'the launch event says the time limit the supervisor applies');
    // wait-leaf returns once NAME.exit is written; the supervisor appends the exit event just after it (leaf-files.ts).
    const exit = await waitFor(() => eventsOf(scene, 'exit', name)[0], 20_000, `the exit event of ${name}`);
    assert.is(exit.step, title);
  }
});

test('L-launch-form-timeout: the same form with a leaf that outlives VERI_TIMEOUT answers 2 and the .err says killed-timeout', async () => {
  const scene = makeScene({ S, VERI_TIMEOUT: '0.3' });
  const script = launchForm('verify-red', "Red: it's \\$(broken)", `sleep 30`);
  const r = await runCommand('bash', ['-c', script], { cwd: scene.repo, env: scene.env });
  assert.is(r.code, 2);
  assert.is(r.stderr, 'wait-leaf[verify-red]: killed-timeout\n');
  assert.is(readFileSync(join(scene.state, 'verify-red.err'), 'utf8'), 'supervise[verify-red]: killed-timeout\n');
  assert.is(eventsOf(scene, 'launch', 'verify-red')[0]?.step, "Red: it's $(broken)");
});

test.run();
