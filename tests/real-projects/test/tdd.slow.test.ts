// Every real project to `done` through `leap tdd run` (the built bin, the sandbox on, the project's own plain test
// command), then the same run SIGKILLed at an event and resumed: the same ledger, subjects and tree.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs } from '@leap/test-utils';
import { agentsFor, honest, leap, outcome, tddArgs, verdicts, why } from './leap.js';
import {
  beyondTheirFlaky,
  failsTheirFlaky,
  makeProjectRepo,
  namesTheirFlaky,
  projects,
  ranIntoTheirFlaky,
} from './projects.js';

const tdd = suite('leap tdd run on real projects');
tdd.after.each(cleanupTempDirs);

for (const p of projects()) {
  tdd(
    `${p.name} (${p.runner}): \`${p.testCmd}\` to done, git status clean; killed at its green verdict and resumed, the same`,
    async () => {
      // A run the project's own flaky test failed is made again (projects/NAME/project.json "flaky").
      const { repo, first } = await beyondTheirFlaky(
        p,
        async () => {
          const repo = makeProjectRepo(p);
          const agents = agentsFor(p, { steps: { [p.step]: honest(p) } });
          return { repo, first: await leap(repo, tddArgs(agents)) };
        },
        (r) => r.first.code !== 0 && ranIntoTheirFlaky(p, r.first),
      );
      assert.is(first.code, 0, why(p, `tdd run in ${repo}`, first));
      const done = outcome(repo);
      assert.equal(
        done.subjects,
        ['plan: issue 1', `red: ${p.step}`, `green: ${p.step}`, `refactor: ${p.step}`],
        why(p, 'commit subjects', first),
      );
      assert.is(done.status, '', `${p.name}: git status after done\n${done.status}`);
      // A verdict that only the project's own flaky tests failed (projects/NAME/project.json "flaky") is left out;
      // ground truth's "the suite fails" names the failed tests it can read, else the suite's output behind it does.
      const theirs = (v: { verdict: string; reason: string }) =>
        v.verdict !== 'PASS' &&
        (namesTheirFlaky(p, v.reason) ||
          (v.reason === 'ground truth: the suite fails' && failsTheirFlaky(p, first.suites)));
      assert.equal(
        verdicts(repo)
          .filter((v) => !theirs(v))
          .map((v) => `${v.phase} ${v.verdict}`),
        ['red PASS', 'green PASS', 'refactor PASS'],
        why(p, 'verdicts', first),
      );

      const { again, killed, resumed } = await beyondTheirFlaky(
        p,
        async () => {
          const again = makeProjectRepo(p);
          const agents = agentsFor(p, { steps: { [p.step]: honest(p) } });
          const killed = await leap(again, tddArgs(agents), {
            when: (e) => e.event === 'verdict' && e.phase === 'green',
            act: 'kill',
          });
          const resumed = killed.signal === 'SIGKILL' ? await leap(again, ['tdd', 'run', '--issue', '1']) : killed;
          return { again, killed, resumed };
        },
        (r) =>
          (r.killed.signal !== 'SIGKILL' || r.resumed.code !== 0) &&
          (ranIntoTheirFlaky(p, r.killed) || ranIntoTheirFlaky(p, r.resumed)),
      );
      assert.is(killed.signal, 'SIGKILL', why(p, 'the run to kill ended before its green verdict', killed));
      assert.is(resumed.code, 0, why(p, 'resume after SIGKILL at the green verdict', resumed));
      const after = outcome(again);
      assert.equal(after.subjects, done.subjects, `${p.name}: subjects after resume`);
      assert.is(after.ledger, done.ledger, `${p.name}: ledger after resume`);
      assert.is(after.tree, done.tree, `${p.name}: final tree after resume`);
      assert.is(after.status, '', `${p.name}: git status after resume\n${after.status}`);
    },
  );
}

tdd.run();
