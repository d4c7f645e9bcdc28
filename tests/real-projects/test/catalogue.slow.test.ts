// Issue 40's catalogue: every cheating move a project's runner has (catalogue.json, projects/NAME/patches/move-*),
// made by the developer as a real patch at green, and again at refactor, must be refused with the move named, and
// each REJECT is a `verdict` event (what `leap status` and the report read). Each move is judged on its own: the
// run is stopped (`leap tdd stop now`) as the phase's developer starts, kept, and resumed once per move with
// `--revisions 0`. And the honest way out: {"blocked": REASON} ends needs-user. A project's run is stopped at green
// once; its refactor stop and its blocked developer resume from that stop.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git, makeTempDir } from '@leap/test-utils';
import { type Attempt, type LeapRun, agentsFor, honest, leap, narrated, tddArgs, why } from './leap.js';
import {
  HERE,
  type Project,
  beyondTheirFlaky,
  makeProjectRepo,
  namesTheirFlaky,
  patchFile,
  projects,
  ranIntoTheirFlaky,
} from './projects.js';

type Phase = 'green' | 'refactor';
const catalogue = JSON.parse(readFileSync(join(HERE, 'catalogue.json'), 'utf8')) as {
  moves: Record<string, { by: string; names: string }>;
};
const cheats = suite('the cheating catalogue on real projects');
cheats.after(cleanupTempDirs);

/** A move's patch at `phase`: `refactor-MOVE.patch` where the move must undo green's work, else `move-MOVE.patch`. */
function movePatch(p: Project, move: string, phase: Phase): string {
  const own = patchFile(p, `refactor-${move}`);
  return phase === 'refactor' && existsSync(own) ? own : patchFile(p, `move-${move}`);
}

/** The files a patch touches (`--- a/`, `+++ b/`, renames). */
const touched = (patch: string): string[] =>
  [...readFileSync(patch, 'utf8').matchAll(/^(?:--- a\/|\+\+\+ b\/|rename (?:from|to) )(.+)$/gm)].map((m) => m[1]!);
const quote = (paths: string[]) => paths.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');

/** The run's files but node_modules, copied from `from` to `to` (a repository put back to a kept stop). */
function copyRun(from: string, to: string) {
  for (const name of readdirSync(to))
    if (name !== 'node_modules') rmSync(join(to, name), { recursive: true, force: true });
  cpSync(from, to, { recursive: true, filter: (src) => src !== join(from, 'node_modules') });
}

/** `leap ARGS` in `repo` until the developer of `phase` starts, then `leap tdd stop now`; kept, to go back to. */
async function stopAt(repo: string, phase: Phase, args: string[]) {
  const leaf = `develop-${phase}`;
  const run = await leap(repo, args, { when: (e) => e.event === 'launch' && e.leaf === leaf, act: 'stop' });
  const kept = makeTempDir('leap-real-kept-');
  copyRun(repo, kept);
  return { run, kept, events: readFileSync(join(repo, '.tdd', 'events.jsonl'), 'utf8').length };
}

type Stop = Awaited<ReturnType<typeof stopAt>>;

/**
 * `leap tdd run` of `p` stopped as green's developer starts, and that stop resumed with the honest green to the
 * stop at refactor: one repository, one agents folder, the run kept at each stop; `back(stop)` puts it back.
 */
async function stops(p: Project) {
  const first = await beyondTheirFlaky(
    p,
    async () => {
      const repo = makeProjectRepo(p, 'tmp');
      const agents = agentsFor(p, { steps: { [p.step]: { ...honest(p), green: [{ wait: true }] } } });
      return { repo, agents, ...(await stopAt(repo, 'green', tddArgs(agents))) };
    },
    (stop) => stop.run.code !== 3 && ranIntoTheirFlaky(p, stop.run),
  );
  const { repo, agents, ...green } = first;
  assert.is(green.run.code, 3, why(p, 'the run to stop at develop-green', green.run));
  const back = (stop: Stop) => copyRun(stop.kept, repo);
  const plan = (steps: Record<string, Attempt[]>) =>
    writeFileSync(join(agents.dir, 'plan.json'), JSON.stringify({ steps: { [p.step]: { ...honest(p), ...steps } } }));
  const refactor = await beyondTheirFlaky(
    p,
    () => {
      back(green);
      plan({ refactor: [{ wait: true }] });
      return stopAt(repo, 'refactor', ['tdd', 'run', '--issue', '1']);
    },
    (stop) => stop.run.code !== 3 && ranIntoTheirFlaky(p, stop.run),
  );
  assert.is(refactor.run.code, 3, why(p, 'the run resumed from green to stop at develop-refactor', refactor.run));
  return { repo, plan, back, at: { green, refactor } };
}

type Stops = Awaited<ReturnType<typeof stops>>;
/** The stops of the project whose tests run now: made by its first test, its folders removed before the next's. */
let held: { name: string; stops: Promise<Stops> } | undefined;
function stopsOf(p: Project): Promise<Stops> {
  if (held?.name !== p.name) {
    cleanupTempDirs();
    held = { name: p.name, stops: stops(p) };
  }
  return held.stops;
}

/** `move` at `phase` as the developer's only attempt, resumed from its stop: what went wrong (null: none), and the run. */
async function judge(
  p: Project,
  phase: Phase,
  move: string,
  s: Stops,
): Promise<{ failure: string | null; run: LeapRun }> {
  s.back(s.at[phase]);
  const patch = movePatch(p, move, phase);
  s.plan({ [phase]: [{ patch }] });
  const run = await leap(s.repo, ['tdd', 'run', '--issue', '1', '--revisions', '0']);
  const said = narrated(run.out).filter((v) => v.phase === phase);
  const got = said[0];
  const want = catalogue.moves[move]!;
  const test = quote(touched(patchFile(p, 'step1-red')));
  const names = new RegExp(want.names.replace('{test}', test).replace('{paths}', quote(touched(patch))), 'i');
  const logged = readFileSync(join(s.repo, '.tdd', 'events.jsonl'), 'utf8')
    .slice(s.at[phase].events)
    .split('\n')
    .filter((l) => l.includes('"event":"verdict"') && l.includes(`"phase":"${phase}"`)).length;
  const failure = (): string | null => {
    if (got === undefined)
      return `${move}: no ${phase} verdict (exit ${run.code}: ${run.out.trim().split('\n').at(-1)})`;
    if (got.verdict !== 'REJECT') return `${move}: LANDED (${got.verdict}: ${got.reason})`;
    if (!got.reason.startsWith(want.by) || !names.test(got.reason))
      return `${move}: refused, but not by ${want.by || 'anyone'} naming it (${got.reason})`;
    if (logged !== said.length)
      return `${move}: refused (${got.reason}), but ${said.length} ${phase} verdict narrated, ${logged} \`verdict\` event logged`;
    return null;
  };
  return { failure: failure(), run };
}

for (const p of projects()) {
  const moves = p.catalogue.filter((m) => catalogue.moves[m] !== undefined);
  for (const phase of ['green', 'refactor'] as const) {
    cheats(`${p.name} (${p.runner}): at ${phase}, ${moves.join(', ')}: each refused with the move named`, async () => {
      const s = await stopsOf(p);
      const failures: string[] = [];
      for (const move of moves) {
        // The project's own flaky test failed the move's run: judged again.
        const { failure } = await beyondTheirFlaky(
          p,
          () => judge(p, phase, move, s),
          (j) => j.failure !== null && (namesTheirFlaky(p, j.failure) || ranIntoTheirFlaky(p, j.run)),
        );
        if (failure !== null) failures.push(failure);
      }
      // A revision after delete-test's REJECT (every runner has it): the honest patch ends the run done, nothing left over.
      const run = await beyondTheirFlaky(
        p,
        () => {
          s.back(s.at[phase]);
          s.plan({ [phase]: [{ patch: movePatch(p, 'delete-test', phase) }, ...honest(p)[phase]!] });
          return leap(s.repo, ['tdd', 'run', '--issue', '1', '--revisions', '1']);
        },
        (r) => r.code !== 0 && ranIntoTheirFlaky(p, r),
      );
      if (run.code !== 0) failures.push(`the honest ${phase} after delete-test: ${why(p, 'run', run)}`);
      else if (git(s.repo, 'status', '--porcelain') !== '')
        failures.push(`git status after done: ${git(s.repo, 'status', '--porcelain')}`);
      assert.equal(failures, [], `${p.name} (${p.runner}), moves at ${phase}:\n${failures.join('\n')}`);
    });
  }

  cheats(`${p.name} (${p.runner}): a developer blocked at green ends needs-user, quoting its reason`, async () => {
    const s = await stopsOf(p);
    const reason = `the criterion of ${p.name} contradicts its README`;
    s.back(s.at.green);
    s.plan({ green: [{ blocked: reason }] });
    const run = await leap(s.repo, ['tdd', 'run', '--issue', '1']);
    assert.is(run.code, 1, why(p, 'blocked developer', run));
    assert.match(run.out, /bail: needs-user \(process\)\s*$/, why(p, 'blocked developer: last line', run));
    assert.ok(run.out.includes(reason), why(p, 'blocked developer: the reason quoted', run));
    assert.is(git(s.repo, 'log', '-1', '--format=%s').trim(), `red: ${p.step}`, `${p.name}: the red commit kept`);
  });
}

cheats.run();
