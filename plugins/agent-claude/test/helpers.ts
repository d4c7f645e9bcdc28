// Run an agent invocation as a supervisor would, with this plugin's stand-in CLIs first on PATH.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { standInCli } from '@leap/test-utils';

export { OTHER_USER, makeWorktree } from '@leap/test-utils';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** The stand-in's login when a test does not say otherwise: a key, as a configured machine has one. */
const LOGGED_IN = { ANTHROPIC_API_KEY: 'sk-ant-standin-key' };

export const { runInvocation, recorded } = standInCli(fixtures, LOGGED_IN);
