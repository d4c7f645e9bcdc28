// `leap slice run` of two or more independent balls on each project that names them, the sandbox on: the
// balls' tests are committed first (the user's red), each ball's builder applies its code patch, each proof runs
// the project's own runner on the ball's test; the slice must pass.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { agentsFor, leap, why } from './leap.js';
import { makeProjectRepo, patchFile, projects } from './projects.js';

const slices = suite('leap slice run on real projects');
slices.after.each(cleanupTempDirs);

for (const p of projects().filter((q) => Object.keys(q.balls).length > 0)) {
  const ids = Object.keys(p.balls);
  slices(`${p.name} (${p.runner}): balls ${ids.join(', ')} to passed`, async () => {
    const repo = makeProjectRepo(p);
    for (const id of ids) git(repo, 'apply', patchFile(p, `ball-${id}-test`));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', `tests of ${ids.join(', ')}`);
    const agents = agentsFor(p, {
      balls: Object.fromEntries(ids.map((id) => [id, [{ patch: patchFile(p, `ball-${id}-code`) }]])),
    });
    const dir = makeTempDir('leap-real-slice-');
    const args = ['slice', 'new', 'real', '--out', join(dir, 'slice.json')];
    for (const [id, ball] of Object.entries(p.balls)) {
      args.push('--ball', `${id}:${ball.scope.join(',')}`, '--proof', `${id}:${JSON.stringify(ball.proof)}`);
      args.push('--goal', `${id}:the ball's test passes`, '--spec', `${id}:make ${ball.proof.join(' ')} pass`);
    }
    const made = await leap(repo, args);
    assert.is(made.code, 0, why(p, 'slice new', made));
    const slice = JSON.parse(readFileSync(join(dir, 'slice.json'), 'utf8')) as { balls: Record<string, unknown>[] };
    for (const ball of slice.balls) {
      delete ball.live;
      ball.red_first = true;
    }
    writeFileSync(join(dir, 'slice.json'), `${JSON.stringify(slice, null, 2)}\n`);
    const run = await leap(repo, [
      'slice',
      'run',
      join(dir, 'slice.json'),
      '--agents',
      agents.file,
      '--builder',
      'dev',
      '--reviewers',
      'ver,ver2',
      '--jobs',
      '2',
    ]);
    assert.is(run.code, 0, why(p, `slice run of ${ids.join(', ')}`, run));
    // The engine's own records stay in .leap/ (CONTRACT section 2); nothing else is left over.
    const left = git(repo, 'status', '--porcelain')
      .split('\n')
      .filter((l) => l !== '' && l !== '?? .leap/');
    assert.equal(left, [], `${p.name}: git status after the slice`);
  });
}

slices.run();
