// leap.config.json (CONTRACT section 9): read at the repository root, options win over it, unknown keys and
// bad values are errors naming the file and the key, and its published JSON Schema is the zod schema's.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, git } from '@leap/test-utils';
import { requestStop } from '@leap/core';
import { projectConfigJsonSchema, readProjectConfig, runTdd } from '../src/index.js';
import {
  cleanEnv,
  commandAgents,
  makeProject,
  planFile,
  repoFingerprint,
  slugSteps,
  subjects,
  writeRepoFile,
} from './helpers.js';

const config = suite('leap.config.json');
config.after.each(cleanupTempDirs);

const TITLE = 'Lowercase and join with dashes';

function withConfig(value: unknown): string {
  const repo = makeProject();
  writeRepoFile(repo, 'leap.config.json', `${JSON.stringify(value, null, 2)}\n`);
  git(repo, 'add', 'leap.config.json');
  git(repo, 'commit', '-q', '-m', 'the project says how it is tested');
  return repo;
}

config("the JSON Schema the build wrote is the zod schema's", () => {
  const built = readFileSync(new URL('../schemas/leap-config.schema.json', import.meta.url), 'utf8');
  assert.fixture(
    built,
    `${JSON.stringify(projectConfigJsonSchema(), null, 2)}\n`,
    'schemas/leap-config.schema.json has drifted: npm run generate -w @leap/conductor',
  );
});

config(
  'an unknown key, a bad value, a bad duration, bad JSON: exit 2 naming the file, line and column, nothing touched',
  async () => {
    for (const [value, expected] of [
      [
        { testComand: 'npm test' },
        /leap\.config\.json:2:3: unknown key "testComand" \(did you mean "testCommand"\?\): expected only testCommand, testFiles, agents/,
      ],
      [{ sandbox: 'maybe' }, /leap\.config\.json:2:3: "sandbox": /],
      [{ timeout: 'soon' }, /leap\.config\.json:2:3: Expected "timeout" to be a non-negative duration/],
      [{ notify: [] }, /leap\.config\.json:2:3: "notify": /],
    ] as const) {
      const repo = withConfig(value);
      const before = repoFingerprint(repo);
      try {
        await runTdd({ cwd: repo, issue: 1, env: cleanEnv() });
        assert.unreachable('accepted');
      } catch (error) {
        assert.match((error as Error).message, expected);
        assert.is((error as { exitCode?: number }).exitCode, 2);
      }
      assert.is(repoFingerprint(repo), before);
    }
    const repo = makeProject();
    writeRepoFile(repo, 'leap.config.json', '{\n  "testCommand": "npm test"\n  "timeout": "1m"\n}\n');
    assert.throws(
      () => readProjectConfig(repo),
      /leap\.config\.json:3:3: not JSON: Expected ',' or '}' after property value$/,
    );
    writeRepoFile(repo, 'leap.config.json', '{"testCommand": ');
    assert.throws(() => readProjectConfig(repo), /leap\.config\.json:1:16: not JSON: Unexpected end of JSON input/);
    assert.is(readProjectConfig(makeProject()), null);
  },
);

config('every problem of the file at once, in the order of its lines, each at its key', () => {
  const repo = makeProject();
  writeRepoFile(
    repo,
    'leap.config.json',
    '{\n  "testCommand": "npm test",\n  "timeot": "15m",\n  "idleTimeout": "5 minutes",\n  "sandbox": "maybe"\n}\n',
  );
  const file = join(repo, 'leap.config.json');
  try {
    readProjectConfig(repo);
    assert.unreachable('accepted');
  } catch (error) {
    assert.equal((error as Error).message.split('\n'), [
      `${file}:3:3: unknown key "timeot" (did you mean "timeout"?): expected only testCommand, testFiles, agents, developer, verifier, planner, timeout, idleTimeout, sandbox, testNetwork, notify`,
      `${file}:4:3: Expected "idleTimeout" to be a non-negative duration (seconds, or a number with suffix s, m, h or d), got "5 minutes"`,
      `${file}:5:3: "sandbox": Invalid option: expected one of "on"|"off"`,
    ]);
  }
});

config(
  'the file gives the test command, the agents (a path from the root), the roles and the limits; an option wins over it, and each is narrated with its source',
  async () => {
    const agents = commandAgents(slugSteps([TITLE]));
    const repo = withConfig({
      $schema: './node_modules/@leap/conductor/schemas/leap-config.schema.json',
      testCommand: 'node --test test/',
      agents: agents.file,
      developer: 'dev',
      verifier: 'ver',
      timeout: '10m',
      idleTimeout: 45,
      testFiles: ['src/**/*.rs'],
    });
    requestStop(join(repo, '.tdd/stop'), 'at-ledger');
    const lines: string[] = [];
    const result = await runTdd({
      cwd: repo,
      issue: 1,
      planFile: planFile([TITLE]),
      timeout: '20m',
      env: cleanEnv(),
      progress: (l) => lines.push(l),
    });
    assert.is(result.code, 3, JSON.stringify(result.bail));
    assert.equal(subjects(repo), ['plan: issue 1']);
    const start = lines.find((l) => l.startsWith('issue 1: ')) ?? '';
    assert.match(start, 'tests: `node --test test/`; developer dev, verifier ver');
    assert.match(start, 'leaves: time limit 20m (--timeout), idle limit 45 (leap.config.json;');
    // Only the options are recorded: the file's values are read again at every start.
    const run = JSON.parse(readFileSync(join(repo, '.tdd/issue-1-run.json'), 'utf8')) as {
      options: Record<string, unknown>;
    };
    assert.equal(Object.keys(run.options).sort(), ['plan', 'timeout']);
  },
);

config(
  "the time limit said at the start is the supervisor's: the issue's timeout file with its unit; a VERI_TIMEOUT no suite would take is bad input",
  async () => {
    const agents = commandAgents(slugSteps([TITLE]));
    const start = async (env: NodeJS.ProcessEnv, file: string | null): Promise<string> => {
      const repo = makeProject();
      mkdirSync(join(repo, '.tdd'), { recursive: true });
      if (file !== null) writeFileSync(join(repo, '.tdd/issue-1-timeout'), file);
      requestStop(join(repo, '.tdd/stop'), 'at-ledger');
      const lines: string[] = [];
      const result = await runTdd({
        cwd: repo,
        issue: 1,
        planFile: planFile([TITLE]),
        testCmd: 'node --test test/',
        agentsFile: agents.file,
        developer: 'dev',
        verifier: 'ver',
        env,
        progress: (l) => lines.push(l),
      });
      assert.is(result.code, 3, JSON.stringify(result.bail));
      return lines.find((l) => l.startsWith('issue 1: ')) ?? '';
    };
    // cleanEnv's VERI_TIMEOUT (60) would win over the file.
    const noLimitVar = (): NodeJS.ProcessEnv => {
      const env = cleanEnv();
      delete env.VERI_TIMEOUT;
      return env;
    };
    // `2m` is two minutes, as the supervisor reads it (it was said `2ms`, the file's text with an `s` added).
    assert.match(await start(noLimitVar(), '2m\n'), 'leaves: time limit 120s (.tdd/issue-1-timeout), idle limit');
    assert.match(
      await start(cleanEnv({ VERI_TIMEOUT: '90' }), '2m\n'),
      'leaves: time limit 90 (VERI_TIMEOUT), idle limit',
    );
    assert.match(await start(noLimitVar(), null), 'leaves: time limit 900s (.tdd/issue-1-timeout), idle limit');
    // Unreadable, it stops the run at its first suite run (the baseline), before any branch: bad input, exit 2.
    const error = await start(cleanEnv({ VERI_TIMEOUT: 'soon' }), null).then(
      () => null,
      (e: Error & { exitCode?: number }) => e,
    );
    assert.match(
      error?.message ?? 'no error',
      'Expected VERI_TIMEOUT to be a non-negative duration (seconds, or a number with suffix s, m, h or d), got "soon"',
    );
    assert.is(error?.exitCode, 2);
  },
);

config.run();
