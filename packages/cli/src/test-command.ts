// The test command `leap init` proposes: the conductor's own detection (CONTRACT section 9), so `leap init`
// and `leap tdd run` never disagree about a project. @leap/conductor does not export its candidates list
// from its entry yet; until it does, its compiled module (shipped in the package's dist/) is loaded by path.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** One command the project suggests, with the file that suggests it. */
export interface TestCommandCandidate {
  command: string;
  because: string;
}

type Candidates = (root: string) => TestCommandCandidate[];

let loaded: Candidates | null = null;

/** The project's candidate test commands, as the conductor sees them. */
export async function testCommandCandidates(root: string): Promise<TestCommandCandidate[]> {
  loaded ??= await loadCandidates();
  return loaded(root);
}

async function loadCandidates(): Promise<Candidates> {
  const conductor = (await import('@leap/conductor')) as Record<string, unknown>;
  if (typeof conductor.testCommandCandidates === 'function') return conductor.testCommandCandidates as Candidates;
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('@leap/conductor/package.json'));
  const module = require(join(dir, 'dist', 'detect-test-cmd.js')) as { testCommandCandidates?: unknown };
  if (typeof module.testCommandCandidates !== 'function') throw new Error(`@leap/conductor (${dir}) has no testCommandCandidates`);
  return module.testCommandCandidates as Candidates;
}
