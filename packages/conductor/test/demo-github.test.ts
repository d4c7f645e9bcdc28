// The demo's issue driven on "GitHub": runTdd with the github tracker, over the stand-in gh of
// plugins/tracker-github (it checks every argument and answers as gh does) and a real bare remote. The suite
// runs in one process with the demo's reporter: `node --test` forks one per file (demo.test.ts runs it as is).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, git, makeTempDir, repoRoot } from '@leap/test-utils';
import { createGithubTracker } from '@leap/tracker-github';
import { runTdd } from '../src/index.js';
import { DEMO_PLAN, DEMO_REJECT_REASON } from '../src/demo/demo-moves.js';
import { AGENTS_DIR, writeDemoAgents } from '../src/demo/run-demo.js';
import { DEMO_ISSUE_TEXT, createSampleProject } from '../src/demo/sample-project.js';
import { RUN_ALL } from './helpers.js';

const TEST_CMD = 'node --test-reporter=./tools/summary-reporter.mjs test/run.mjs';

const GH = join(repoRoot, 'plugins', 'tracker-github', 'test', 'fixtures');
const TITLES = DEMO_PLAN.trim()
  .split('\n')
  .slice(1)
  .map((line) => line.replace(/ \(criterion \d\)$/, ''));

test.after(cleanupTempDirs);

test('the demo issue on GitHub: read, narrated, ticked and left on a draft pull request through gh', async () => {
  const dir = join(makeTempDir('leap-demo-gh-'), 'slug-demo');
  createSampleProject(dir);
  // The issue lives on GitHub only, its body with the CRLF line ends github.com writes.
  rmSync(join(dir, '.tdd', 'issues'), { recursive: true });
  writeFileSync(join(dir, 'test', 'run.mjs'), RUN_ALL);
  git(dir, 'add', 'test/run.mjs');
  git(dir, 'commit', '-q', '-a', '-m', 'the issue is on GitHub; the suite in one process');
  writeDemoAgents(dir);
  const remote = join(makeTempDir('leap-demo-gh-remote-'), 'slug-demo.git');
  git(dir, 'init', '-q', '--bare', remote);
  git(dir, 'remote', 'add', 'origin', remote);
  git(dir, 'push', '-q', 'origin', 'main');
  const body = DEMO_ISSUE_TEXT.replace(/^# .*\n\n/, '').replace(/\n/g, '\r\n');
  const stateDir = makeTempDir('leap-demo-gh-state-');
  const stateFile = join(stateDir, 'state.json');
  writeFileSync(
    stateFile,
    JSON.stringify({
      repo: 'acme/slug-demo',
      remote,
      issues: { '1': { title: 'Slugify step titles', body } },
      pulls: [],
    }),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${GH}:${process.env.PATH ?? ''}`,
    GH_STANDIN_STATE: stateFile,
  };
  for (const key of Object.keys(env)) if (/^(VERI|LEAP)_/.test(key) || key === 'GH_TOKEN') delete env[key];

  const lines: string[] = [];
  const result = await runTdd({
    cwd: dir,
    issue: 1,
    testCmd: TEST_CMD,
    agentsFile: join(dir, AGENTS_DIR, 'agents.json'),
    planner: 'planner',
    developer: 'developer',
    verifier: 'verifier',
    tracker: createGithubTracker({ cwd: dir, env, repo: 'acme/slug-demo' }),
    env,
    progress: (line) => lines.push(line),
  });
  assert.is(result.code, 0, `${lines.join('\n')}\n${JSON.stringify(result.bail)}`);
  assert.equal(git(dir, 'log', '--reverse', '--format=%s', 'main..leap/issue-1').trim().split('\n'), [
    'plan: issue 1',
    ...TITLES.flatMap((t) => [`red: ${t}`, `green: ${t}`, `refactor: ${t}`]),
  ]);

  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as {
    issues: Record<string, { body: string; comments?: { body: string }[] }>;
    pulls: { number: number; title: string; body: string; head: string; base: string; draft: boolean }[];
  };
  const issue = state.issues['1'];
  assert.is(
    issue?.body,
    body.replace(/^- \[ \]/gm, '- [x]'),
    'the three criteria ticked on GitHub, every other byte kept, CRLF included',
  );
  const thread = (issue?.comments ?? []).map((c) => c.body).join('\n---\n');
  assert.ok(thread.includes(DEMO_REJECT_REASON), 'the REJECT narrated on the issue thread');
  assert.ok(thread.includes(TITLES[1] as string), 'the step title with \' " $ ` narrated byte for byte');
  assert.is(state.pulls.length, 1);
  const [pull] = state.pulls;
  assert.equal([pull?.head, pull?.base, pull?.draft], ['leap/issue-1', 'main', true]);
  assert.match(pull?.body ?? '', /Closes #1\n$/);
  assert.is(result.pullRequest?.url, `https://github.com/acme/slug-demo/pull/${pull?.number}`);
  assert.is(
    git(remote, 'rev-parse', 'leap/issue-1').trim(),
    git(dir, 'rev-parse', 'leap/issue-1').trim(),
    'the branch pushed whole',
  );

  const calls = readFileSync(join(stateDir, 'calls.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { argv: string[]; code: number; env: { GH_PROMPT_DISABLED: string | null } });
  assert.ok(
    calls.every((c) => c.env.GH_PROMPT_DISABLED === '1'),
    'gh never prompts',
  );
  assert.equal(calls.filter((c) => c.argv[1] === 'edit' && c.argv[0] === 'issue').length, 3, 'one edit per criterion');
  assert.ok(
    calls.every((c) => c.code === 0 || (c.argv[0] === 'pr' && c.argv[1] === 'create')),
    'no gh call failed',
  );
});

test.run();
