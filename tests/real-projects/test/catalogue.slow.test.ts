// Issue 40's catalogue: every cheating move a project's runner has (catalogue.json, projects/NAME/patches/move-*),
// made by the developer as a real patch at green, and again at refactor, one revision after another, must be
// refused with the move named; the honest patch of the phase then ends the run `done`. Each REJECT is also a
// `verdict` event (what `leap status` and the report read). And the honest way out: {"blocked": REASON} ends
// needs-user.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { type Attempt, agentsFor, honest, leap, narrated, tddArgs, verdicts, why } from './leap.js';
import { HERE, type Project, makeProjectRepo, patchFile, projects } from './projects.js';

const catalogue = JSON.parse(readFileSync(join(HERE, 'catalogue.json'), 'utf8')) as { moves: Record<string, { by: string; names: string }> };
const cheats = suite('the cheating catalogue on real projects');
cheats.after.each(cleanupTempDirs);

/** A move's patch at `phase`: `refactor-MOVE.patch` where the move must undo green's work, else `move-MOVE.patch`. */
function movePatch(p: Project, move: string, phase: 'green' | 'refactor'): Attempt {
  const own = patchFile(p, `refactor-${move}`);
  return { patch: phase === 'refactor' && existsSync(own) ? own : patchFile(p, `move-${move}`) };
}

/** The files a patch touches (`--- a/`, `+++ b/`, renames). */
const touched = (patch: string): string[] => [...readFileSync(patch, 'utf8').matchAll(/^(?:--- a\/|\+\+\+ b\/|rename (?:from|to) )(.+)$/gm)].map((m) => m[1]!);

/** What went wrong with each move at `phase`: the verdict of attempt N is move N's (the narration's, in order). */
function judge(p: Project, phase: 'green' | 'refactor', moves: string[], out: string, repo: string): string[] {
  const quote = (paths: string[]) => paths.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const said = narrated(out).filter((v) => v.phase === phase);
  const failures: string[] = [];
  moves.forEach((move, i) => {
    const want = catalogue.moves[move]!;
    const got = said[i];
    const names = new RegExp(want.names.replace('{test}', quote(touched(patchFile(p, 'step1-red')))).replace('{paths}', quote(touched(movePatch(p, move, phase).patch!))), 'i');
    const landed = said.findIndex((v) => v.verdict === 'PASS');
    if (got === undefined) failures.push(`${move}: not reached (${landed >= 0 && landed < i ? `${moves[landed]} landed first` : 'the run ended first'})`);
    else if (got.verdict !== 'REJECT') failures.push(`${move}: LANDED (${got.verdict}: ${got.reason.split('\n')[0]})`);
    else if (!got.reason.startsWith(want.by) || !names.test(got.reason)) failures.push(`${move}: refused, but not by ${want.by || 'anyone'} naming it (${got.reason.split('\n')[0]})`);
  });
  const logged = existsSync(join(repo, '.tdd', 'events.jsonl')) ? verdicts(repo).filter((v) => v.phase === phase).length : 0;
  if (logged !== said.length) failures.push(`${said.length} ${phase} verdicts narrated, ${logged} \`verdict\` events logged`);
  return failures;
}

for (const p of projects()) {
  const moves = p.catalogue.filter((m) => catalogue.moves[m] !== undefined);
  for (const phase of ['green', 'refactor'] as const) {
    cheats(`${p.name} (${p.runner}): at ${phase}, ${moves.join(', ')}: each refused with the move named`, async () => {
      const repo = makeProjectRepo(p, 'tmp');
      const plan = honest(p);
      plan[phase] = [...moves.map((m) => movePatch(p, m, phase)), ...plan[phase]!];
      const agents = agentsFor(p, { steps: { [p.step]: plan } });
      const run = await leap(repo, tddArgs(agents, ['--revisions', String(moves.length)]));
      const failures = judge(p, phase, moves, run.out, repo);
      assert.equal(failures, [], `${p.name} (${p.runner}), moves at ${phase}:\n${failures.join('\n')}\n${why(p, 'run', run)}`);
      assert.is(run.code, 0, why(p, `catalogue run after the honest ${phase}`, run));
      assert.is(git(repo, 'status', '--porcelain'), '');
    });
  }

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
