// The test command when none is given (CONTRACT section 9): the one candidate the project's files suggest.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { orElse, shellWord } from '@leap/core';

export type TestCommandChoice =
  | { kind: 'found'; command: string; source: string }
  | { kind: 'ambiguous'; candidates: { command: string; because: string }[] }
  | { kind: 'none' };

const NPM_DEFAULT = /no test specified/;

const read = (file: string): string | null => orElse(() => readFileSync(file, 'utf8'), null);

export function testCommandCandidates(root: string): { command: string; because: string }[] {
  const found: { command: string; because: string }[] = [];
  const add = (command: string, because: string) => found.push({ command, because });
  const has = (...files: string[]) => files.some((file) => existsSync(join(root, file)));
  const text = (file: string) => read(join(root, file)) ?? '';
  const pkg = read(join(root, 'package.json'));
  if (pkg !== null) {
    try {
      const test = (JSON.parse(pkg) as { scripts?: { test?: unknown } }).scripts?.test;
      if (typeof test === 'string' && test.trim() !== '' && !NPM_DEFAULT.test(test)) {
        const lock = ['pnpm-lock.yaml', 'yarn.lock'].find((file) => has(file));
        const manager = lock === undefined ? 'npm' : lock === 'yarn.lock' ? 'yarn' : 'pnpm';
        add(`${manager} test`, `package.json has a "test" script${lock === undefined ? '' : ` (${lock})`}`);
      }
    } catch {}
  }
  const makefile = ['Makefile', 'makefile', 'GNUmakefile']
    .map((name) => read(join(root, name)))
    .find((t) => t !== null);
  if (/^test\s*:/m.test(makefile ?? '')) add('make test', 'the Makefile has a "test" target');
  if (
    has('pytest.ini', '.pytest.ini', 'conftest.py') ||
    /\[tool\.pytest/.test(text('pyproject.toml')) ||
    /\[tool:pytest\]/.test(text('setup.cfg')) ||
    /\[pytest\]/.test(text('tox.ini'))
  )
    add('pytest', 'pytest is configured (pytest.ini, .pytest.ini, conftest.py, pyproject.toml, setup.cfg or tox.ini)');
  if (has('Cargo.toml')) add('cargo test', 'Cargo.toml exists');
  if (has('go.mod')) add('go test ./...', 'go.mod exists');
  if (has('build.gradle', 'build.gradle.kts'))
    add(has('gradlew') ? './gradlew test' : 'gradle test', 'build.gradle exists');
  if (has('pom.xml')) add('mvn test', 'pom.xml exists');
  if (has('mix.exs')) add('mix test', 'mix.exs exists');
  if (has('.rspec', join('spec', 'spec_helper.rb')))
    add(has('Gemfile') ? 'bundle exec rspec' : 'rspec', 'RSpec is configured (.rspec or spec/spec_helper.rb)');
  return found;
}

export function chooseTestCommand(root: string, given: string | undefined, env: NodeJS.ProcessEnv): TestCommandChoice {
  if (given !== undefined && given.trim() !== '') return { kind: 'found', command: given, source: '--test-cmd' };
  const fromEnv = env.VERI_TEST_CMD;
  if (fromEnv !== undefined && fromEnv.trim() !== '')
    return { kind: 'found', command: fromEnv, source: 'VERI_TEST_CMD' };
  const candidates = testCommandCandidates(root);
  if (candidates.length === 1) {
    const only = candidates[0] as { command: string; because: string };
    return { kind: 'found', command: only.command, source: `detected: ${only.because}` };
  }
  return candidates.length === 0 ? { kind: 'none' } : { kind: 'ambiguous', candidates };
}

/** The needs-user question, whole; each command it names works when pasted. */
export function testCommandQuestion(choice: Exclude<TestCommandChoice, { kind: 'found' }>, issue: number): string {
  if (choice.kind === 'none') {
    return (
      "Which command runs this project's tests? None was given (--test-cmd, VERI_TEST_CMD) and none could be " +
      'detected (no package.json "test" script, Makefile "test" target, pytest configuration, Cargo.toml, go.mod, ' +
      'build.gradle, pom.xml, mix.exs or RSpec configuration). ' +
      `Answer by running \`leap tdd run --issue ${issue}\` again with --test-cmd and that command, quoted; ` +
      "the run's other options are recorded."
    );
  }
  const list = choice.candidates.map((c) => `\`${c.command}\` (${c.because})`).join(', ');
  return (
    `Which command runs this project's tests: ${list}? ` +
    'More than one is possible and none was given (--test-cmd, VERI_TEST_CMD). ' +
    "Answer by running again with the one to use (the run's other options are recorded):\n" +
    choice.candidates.map((c) => `  leap tdd run --issue ${issue} --test-cmd ${shellWord(c.command)}`).join('\n')
  );
}
