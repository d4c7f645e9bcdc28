// Issue 40's catalogue: every cheating move a project's runner has (catalogue.json, projects/NAME/patches/move-*),
// made by the developer as a real patch at green, and again at refactor, must be refused with the move named, and
// each REJECT is a `verdict` event (what `leap status` and the report read). Each move is judged on its own: the
// run is stopped (`leap tdd stop now`) as the phase's developer starts, kept, and resumed once per move with
// `--revisions 0`. And the honest way out: {"blocked": REASON} ends needs-user.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { agentsFor, honest, leap, narrated, tddArgs, why } from './leap.js';
import { HERE, type Project, makeProjectRepo, namesTheirFlaky, patchFile, projects } from './projects.js';

type Phase = 'green' | 'refactor';
const catalogue = JSON.parse(readFileSync(join(HERE, 'catalogue.json'), 'utf8')) as {
  moves: Record<string, { by: string; names: string }>;
};
const cheats = suite('the cheating catalogue on real projects');
cheats.after.each(cleanupTempDirs);

/** A move's patch at `phase`: `refactor-MOVE.patch` where the move must undo green's work, else `move-MOVE.patch`. */
function movePatch(p: Project, move: string, phase: Phase): string {
  const own = patchFile(p, `refactor-${move}`);
  return phase === 'refactor' && existsSync(own) ? own : patchFile(p, `move-${move}`);
}

/** The files a patch touches (`--- a/`, `+++ b/`, renames). */
const touched = (patch: string): string[] =>
  [...readFileSync(patch, 'utf8').matchAll(/^(?:--- a\/|\+\+\+ b\/|rename (?:from|to) )(.+)$/gm)].map((m) => m[1]!);
const quote = (paths: string[]) => paths.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');

/** `leap tdd run` of `p` stopped as the developer of `phase` starts: the repository, its agents, and a copy to go back to. */
async function stoppedAt(p: Project, phase: Phase) {
  const repo = makeProjectRepo(p, 'tmp');
  const agents = agentsFor(p, { steps: { [p.step]: { ...honest(p), [phase]: [{ wait: true }] } } });
  const leaf = `develop-${phase}`;
  const run = await leap(repo, tddArgs(agents), { when: (e) => e.event === 'launch' && e.leaf === leaf, act: 'stop' });
  assert.is(run.code, 3, why(p, `the run to stop at ${leaf}`, run));
  const kept = makeTempDir('leap-real-kept-');
  cpSync(repo, kept, { recursive: true, filter: (src) => src !== join(repo, 'node_modules') });
  const events = readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8').length;
  const back = () => {
    for (const name of readdirSync(repo))
      if (name !== 'node_modules') rmSync(join(repo, name), { recursive: true, force: true });
    cpSync(kept, repo, { recursive: true });
  };
  return { repo, agents, events, back };
}

/** What went wrong with `move` at `phase`, resumed from `at` with the move as the developer's only attempt; null when refused as it must be. */
async function judge(
  p: Project,
  phase: Phase,
  move: string,
  at: Awaited<ReturnType<typeof stoppedAt>>,
): Promise<string | null> {
  at.back();
  const patch = movePatch(p, move, phase);
  writeFileSync(
    join(at.agents.dir, 'plan.json'),
    JSON.stringify({ steps: { [p.step]: { ...honest(p), [phase]: [{ patch }] } } }),
  );
  const run = await leap(at.repo, ['tdd', 'run', '--issue', '1', '--revisions', '0']);
  const said = narrated(run.out).filter((v) => v.phase === phase);
  const got = said[0];
  const want = catalogue.moves[move]!;
  const test = quote(touched(patchFile(p, 'step1-red')));
  const names = new RegExp(want.names.replace('{test}', test).replace('{paths}', quote(touched(patch))), 'i');
  const logged = readFileSync(join(at.repo, '.tdd', 'events.jsonl'), 'utf8')
    .slice(at.events)
    .split('\n')
    .filter((l) => l.includes('"event":"verdict"') && l.includes(`"phase":"${phase}"`)).length;
  if (got === undefined) return `${move}: no ${phase} verdict (exit ${run.code}: ${run.out.trim().split('\n').at(-1)})`;
  if (got.verdict !== 'REJECT') return `${move}: LANDED (${got.verdict}: ${got.reason})`;
  if (!got.reason.startsWith(want.by) || !names.test(got.reason))
    return `${move}: refused, but not by ${want.by || 'anyone'} naming it (${got.reason})`;
  if (logged !== said.length)
    return `${move}: refused (${got.reason}), but ${said.length} ${phase} verdict narrated, ${logged} \`verdict\` event logged`;
  return null;
}

for (const p of projects()) {
  const moves = p.catalogue.filter((m) => catalogue.moves[m] !== undefined);
  for (const phase of ['green', 'refactor'] as const) {
    cheats(`${p.name} (${p.runner}): at ${phase}, ${moves.join(', ')}: each refused with the move named`, async () => {
      const at = await stoppedAt(p, phase);
      const failures: string[] = [];
      for (const move of moves) {
        let failure = await judge(p, phase, move, at);
        // The project's own flaky test failed the move's run: judged once more.
        if (failure !== null && namesTheirFlaky(p, failure)) failure = await judge(p, phase, move, at);
        if (failure !== null) failures.push(failure);
      }
      // A revision after delete-test's REJECT (every runner has it): the honest patch ends the run done, nothing left over.
      const plan = honest(p);
      plan[phase] = [{ patch: movePatch(p, 'delete-test', phase) }, ...plan[phase]!];
      const honestRun = async () => {
        at.back();
        writeFileSync(join(at.agents.dir, 'plan.json'), JSON.stringify({ steps: { [p.step]: plan } }));
        return leap(at.repo, ['tdd', 'run', '--issue', '1', '--revisions', '1']);
      };
      let run = await honestRun();
      if (run.code !== 0 && namesTheirFlaky(p, run.out)) run = await honestRun();
      if (run.code !== 0) failures.push(`the honest ${phase} after delete-test: ${why(p, 'run', run)}`);
      else if (git(at.repo, 'status', '--porcelain') !== '')
        failures.push(`git status after done: ${git(at.repo, 'status', '--porcelain')}`);
      assert.equal(failures, [], `${p.name} (${p.runner}), moves at ${phase}:\n${failures.join('\n')}`);
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
