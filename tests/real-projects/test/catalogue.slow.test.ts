// Issue 40's catalogue: every cheating move a project's runner has (catalogue.json, projects/NAME/patches/move-*),
// made by the developer as a real patch at green, one revision after another, must be refused with the move
// named; the honest green then ends the run `done`. And the honest way out: {"blocked": REASON} ends needs-user.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { agentsFor, honest, leap, tddArgs, verdicts, why } from './leap.js';
import { HERE, makeProjectRepo, patchFile, projects } from './projects.js';

const catalogue = JSON.parse(readFileSync(join(HERE, 'catalogue.json'), 'utf8')) as { moves: Record<string, { by: string; names: string }> };
const cheats = suite('the cheating catalogue on real projects');
cheats.after.each(cleanupTempDirs);

for (const p of projects()) {
  // The step's test file: the one file the red patch adds.
  const testFile = /^\+\+\+ b\/(.+)$/m.exec(readFileSync(patchFile(p, 'step1-red'), 'utf8'))?.[1] ?? '';
  cheats(`${p.name} (${p.runner}): ${p.catalogue.join(', ')}: each refused with the move named`, async () => {
    const repo = makeProjectRepo(p, 'tmp');
    const moves = p.catalogue.filter((m) => catalogue.moves[m] !== undefined);
    const green = [...moves.map((m) => ({ patch: patchFile(p, `move-${m}`) })), { patch: patchFile(p, 'step1-green') }];
    const agents = agentsFor(p, { steps: { [p.step]: { ...honest(p), green } } });
    const run = await leap(repo, tddArgs(agents, ['--revisions', String(moves.length)]));
    const greens = verdicts(repo).filter((v) => v.phase === 'green');
    const failures: string[] = [];
    moves.forEach((move, i) => {
      const want = catalogue.moves[move]!;
      const got = greens[i];
      const names = new RegExp(want.names.replace('{test}', testFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'i');
      if (got === undefined) failures.push(`${move}: no verdict (the run ended first)`);
      else if (got.verdict !== 'REJECT') failures.push(`${move}: LANDED (${got.verdict}: ${got.reason.split('\n')[0]})`);
      else if (!got.reason.startsWith(want.by) || !names.test(got.reason)) failures.push(`${move}: refused, but not named (${got.reason.split('\n')[0]})`);
    });
    assert.equal(failures, [], `${p.name} (${p.runner}), catalogue, step test ${testFile}:\n${failures.join('\n')}\n${why(p, 'run', run)}`);
    assert.is(run.code, 0, why(p, 'catalogue run after the honest green', run));
    assert.is(git(repo, 'status', '--porcelain'), '');
  });

  cheats(`${p.name} (${p.runner}): a developer blocked at green ends needs-user, quoting its reason`, async () => {
    const repo = makeProjectRepo(p, 'tmp');
    const reason = `the criterion of ${p.name} contradicts its README`;
    const agents = agentsFor(p, { steps: { [p.step]: { ...honest(p), green: [{ blocked: reason }] } } });
    const run = await leap(repo, tddArgs(agents));
    assert.is(run.code, 1, why(p, 'blocked developer', run));
    assert.match(run.out, /bail: needs-user \(process\)\s*$/, why(p, 'blocked developer: last line', run));
    assert.ok(run.out.includes(reason), why(p, 'blocked developer: the reason quoted', run));
    assert.is(git(repo, 'log', '-1', '--format=%s').trim(), `red: ${p.step}`, `${p.name}: the red commit kept`);
  });
}

cheats.run();
