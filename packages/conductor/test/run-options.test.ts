// A run remembers how it was started (CONTRACT section 9): its options are recorded in its run file, the
// hints it prints are commands that work when pasted (this test pastes them into bash), and an option given
// again replaces the recorded one, said in the narration.
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir, repoRoot, sourceCoverage } from '@leap/test-utils';
import { requestStop } from '@leap/core';
import { shellWord } from '@leap/core';
import { givenOptions, mergeOptions, describeOptions } from '../src/run-options.js';
import { cleanEnv, commandAgents, makeProject, planFile, slugSteps, subjects, writeRepoFile } from './helpers.js';

// The umbrella bin from source (this package's code as it is now, not a build of it).
const LEAP = join(repoRoot, 'packages/cli/src/bin/leap.ts');
const TSX = `file://${join(repoRoot, 'node_modules/tsx/dist/loader.mjs')}`;
const options = suite('leap tdd run: recorded options and pasted hints');
options.after.each(cleanupTempDirs);

/** Run a line in bash, in `cwd`, with a `leap` on PATH that is the built bin. */
function paste(line: string, cwd: string): { code: number; out: string } {
  const bin = makeTempDir('leap-bin-');
  writeFileSync(
    join(bin, 'leap'),
    `#!/bin/sh\nexec ${shellWord(process.execPath)} --conditions=leap-source --import ${shellWord(TSX)} ${shellWord(LEAP)} "$@"\n`,
  );
  chmodSync(join(bin, 'leap'), 0o755);
  const env = { ...cleanEnv(), ...sourceCoverage() };
  const ran = spawnSync('bash', ['-c', line], { cwd, env: { ...env, PATH: `${bin}:${env.PATH}` }, encoding: 'utf8' });
  return { code: ran.status ?? 128, out: `${ran.stdout}${ran.stderr}` };
}

const TITLE = 'Lowercase and join with dashes';

options(
  'a needs-user hint and a stop hint, pasted as printed, resume with every recorded option; one given again replaces it',
  async () => {
    const repo = makeProject();
    // npm test and make test both run the tests: the run cannot decide, and asks.
    writeRepoFile(repo, 'Makefile', 'test:\n\tnode --test test/\n');
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['add', 'Makefile'], { cwd: repo });
    execFileSync('git', ['commit', '-qm', 'make too'], { cwd: repo });
    const agents = commandAgents(slugSteps([TITLE]));
    const first = paste(
      `leap tdd run --issue 1 --agents ${shellWord(agents.file)} --developer dev --verifier ver --plan ${shellWord(planFile([TITLE]))} --revisions 1 --timeout 10m`,
      repo,
    );
    assert.is(first.code, 1, first.out);
    assert.match(first.out, 'bail: needs-user (process)');
    const hint = first.out
      .split('\n')
      .find((l) => l.trim().startsWith('leap tdd run --issue 1 --test-cmd') && l.includes('npm test'));
    assert.ok(hint, first.out);
    assert.is(hint?.trim(), "leap tdd run --issue 1 --test-cmd 'npm test'");
    requestStop(join(repo, '.tdd/stop'), 'at-ledger');
    const second = paste(hint as string, repo);
    assert.is(second.code, 3, second.out);
    assert.equal(subjects(repo), ['plan: issue 1']);
    assert.match(second.out, 'leaves: time limit 10m (--timeout), idle limit 300s (the default;');
    const resume = /Run `(leap tdd run --issue 1)` again to resume/.exec(second.out)?.[1];
    assert.is(resume, 'leap tdd run --issue 1', second.out);
    const third = paste(`${resume} --revisions 3`, repo);
    assert.is(third.code, 0, third.out);
    assert.match(
      third.out,
      `with the options it was started with: --agents ${shellWord(agents.file)} --developer dev --verifier ver --test-cmd 'npm test' --revisions 3 --timeout 10m --plan `,
    );
    assert.match(third.out, 'option given again: --revisions 3 replaces the recorded 1');
    assert.equal(subjects(repo), ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
  },
);

options(
  "--allow-same-family lets a verifier of the developer's family run, recorded in the run file and said at the start",
  async () => {
    const { runTdd } = await import('../src/index.js');
    const repo = makeProject();
    const agents = commandAgents(slugSteps([TITLE]));
    requestStop(join(repo, '.tdd/stop'), 'at-ledger');
    const lines: string[] = [];
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      testCmd: 'node --test test/',
      planFile: planFile([TITLE]),
      developer: 'dev',
      verifier: 'dev',
      allowSameFamily: true,
      agentsFile: agents.file,
      env: cleanEnv(),
      progress: (l) => lines.push(l),
    });
    assert.is(result.code, 3, JSON.stringify(result.bail));
    assert.ok(
      lines.some((l) =>
        l.includes('developer dev, verifier dev (the same model family, replayed: --allow-same-family)'),
      ),
      lines.join('\n'),
    );
    const { readFileSync } = await import('node:fs');
    assert.is(
      (
        JSON.parse(readFileSync(join(repo, '.tdd/issue-1-run.json'), 'utf8')) as {
          options: { allowSameFamily?: boolean };
        }
      ).options.allowSameFamily,
      true,
    );
  },
);

options(
  'merging: given options win, a same value is no replacement, an agents file is made absolute, a bad duration is refused',
  () => {
    const given = givenOptions({ cwd: '/repo', issue: 1, agentsFile: 'agents.json', developer: 'b', timeout: '15m' });
    assert.equal(given, { agentsFile: '/repo/agents.json', developer: 'b', timeout: '15m' });
    const { options: merged, replaced } = mergeOptions({ developer: 'a', verifier: 'v', timeout: '15m' }, given);
    assert.equal(merged, { developer: 'b', verifier: 'v', timeout: '15m', agentsFile: '/repo/agents.json' });
    assert.equal(replaced, ['--developer b replaces the recorded a']);
    assert.is(
      describeOptions({ testCmd: "it's $x", tests: ['src/**/*.rs', 'a b'], allowSameFamily: true }),
      `--test-cmd 'it'\\''s $x' --tests 'src/**/*.rs' --tests 'a b' --allow-same-family`,
    );
    assert.throws(
      () => givenOptions({ cwd: '/', issue: 1, idleTimeout: 'soon' }),
      /Expected --idle-timeout to be a non-negative duration/,
    );
  },
);

options.run();
