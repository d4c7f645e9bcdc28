// The test command `leap init` proposes: the conductor's own detection (CONTRACT section 9), so `leap init`
// and `leap tdd run` never disagree about a project. Loaded on first use: the conductor is not on the path
// of every `leap` command.

/** One command the project suggests, with the file that suggests it. */
export interface TestCommandCandidate {
  command: string;
  because: string;
}

/** The project's candidate test commands, as the conductor sees them. */
export async function testCommandCandidates(root: string): Promise<TestCommandCandidate[]> {
  const { testCommandCandidates: candidates } = await import('@leap/conductor');
  return candidates(root);
}
