// Test command detection over real project layouts in temp folders: one candidate is the command; more is a
// question whose every suggested line keeps the command whole.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { chooseTestCommand, testCommandQuestion } from '../src/detect-test-cmd.js';

const detect = suite('test command detection');
detect.after.each(cleanupTempDirs);

function project(files: Record<string, string>): string {
  const dir = makeTempDir('leap-detect-');
  for (const [name, content] of Object.entries(files)) {
    const { mkdirSync } = process.getBuiltinModule('node:fs') as typeof import('node:fs');
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

const pkg = JSON.stringify({ scripts: { test: 'ava' } });

detect('each kind of project names its own command', () => {
  const cases: [Record<string, string>, string][] = [
    [{ 'package.json': pkg }, 'npm test'],
    [{ 'package.json': pkg, 'pnpm-lock.yaml': '' }, 'pnpm test'],
    [{ 'package.json': pkg, 'yarn.lock': '' }, 'yarn test'],
    [{ '.pytest.ini': '[pytest]\n' }, 'pytest'],
    [{ 'pyproject.toml': '[tool.pytest.ini_options]\n' }, 'pytest'],
    [{ 'Cargo.toml': '[package]\nname = "x"\n' }, 'cargo test'],
    [{ 'go.mod': 'module x\n' }, 'go test ./...'],
    [{ 'build.gradle.kts': '', gradlew: '' }, './gradlew test'],
    [{ 'build.gradle': '' }, 'gradle test'],
    [{ GNUmakefile: 'test:\n\tgo test ./...\n' }, 'make test'],
    [{ makefile: 'check:\n\ttrue\ntest : check\n' }, 'make test'],
    [{ 'pom.xml': '<project/>' }, 'mvn test'],
    [{ 'mix.exs': '' }, 'mix test'],
    [{ '.rspec': '', Gemfile: '' }, 'bundle exec rspec'],
    [{ 'spec/spec_helper.rb': '' }, 'rspec'],
  ];
  for (const [files, command] of cases) {
    const choice = chooseTestCommand(project(files), undefined, {});
    assert.equal(choice.kind === 'found' ? choice.command : choice, command, JSON.stringify(files));
  }
});

detect("a Makefile without a test target and an npm script that is npm init's placeholder suggest nothing", () => {
  const choice = chooseTestCommand(
    project({
      Makefile: 'build:\n\ttrue\ntesting:\n\ttrue\n',
      'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
    }),
    undefined,
    {},
  );
  assert.equal(choice, { kind: 'none' });
});

detect('two candidates: the question lists one pasteable line each; none: the question says how to answer', () => {
  const choice = chooseTestCommand(project({ 'package.json': pkg, 'pom.xml': '<project/>' }), undefined, {});
  assert.is(choice.kind, 'ambiguous');
  const question = testCommandQuestion(choice as Exclude<typeof choice, { kind: 'found' }>, 7);
  assert.match(
    question,
    "\n  leap tdd run --issue 7 --test-cmd 'npm test'\n  leap tdd run --issue 7 --test-cmd 'mvn test'",
  );
  const none = chooseTestCommand(project({}), undefined, {});
  assert.match(
    testCommandQuestion(none as Exclude<typeof none, { kind: 'found' }>, 7),
    'Answer by running `leap tdd run --issue 7` again with --test-cmd',
  );
});

detect.run();
