// Each real CLI inside the toolchain's sandbox (CONTRACT section 13), as a reader and as a writer: it starts
// (`--version`, `--help`), and a run without credentials reaches the CLI's own complaint, not a sandbox failure.
// Full runs inside the sandbox are verify.slow.test.ts's (leap-verify sandboxes its verifier by default).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { readFileIfExists } from '@leap/core';
import { supervise } from '@leap/supervise';
import { cleanupTempDirs, makeTempDir, startModelServer } from '@leap/test-utils';
import { agentSandbox, runAgentLeaf } from '@leap/verify';
import { CLI_NAMES, PINNED, cleanupHomes, privateHome } from './clis.js';
import { makeProject, readEvents } from './fixture-repo.js';
import { plugin } from './plugin.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

// What each CLI reads its credentials from, removed for the run without them.
const CREDENTIALS: Record<string, string[]> = {
  claude: ['ANTHROPIC_API_KEY'],
  codex: ['STUB_OPENAI_KEY', 'CODEX_API_KEY', 'OPENAI_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
};

for (const cli of CLI_NAMES) {
  test(`${cli} starts inside the sandbox as a reader and a writer: --version, --help, and a run without credentials ends in its own words`, async () => {
    const server = await startModelServer({ script: [] });
    try {
      const { env } = privateHome(cli, server);
      const repo = makeProject();
      const stateDir = makeTempDir('leap-real-agents-state-');
      const leafEnv = { ...env, VERI_STATE_DIR: stateDir };
      for (const role of ['reader', 'writer'] as const) {
        const sandbox = agentSandbox(plugin(cli), role, repo, leafEnv);
        for (const flag of ['--version', '--help']) {
          const name = `sbx-${role}${flag.replace('--', '-')}`;
          const out = join(stateDir, `${name}.out`);
          const run = await supervise({
            name,
            command: PINNED[cli].bin,
            args: [flag],
            env: leafEnv,
            cwd: repo,
            sandbox,
            io: { stdoutFile: out, stderrFile: join(stateDir, `${name}.err`) },
          });
          const said = `${readFileIfExists(out) ?? ''}${readFileIfExists(join(stateDir, `${name}.err`)) ?? ''}`;
          assert.equal(
            [run.status, run.code, run.sandbox],
            ['exited', 0, 'bwrap'],
            `${cli} ${flag} as a ${role}: ${said.slice(-2000)}`,
          );
          if (flag === '--version') assert.match(said, PINNED[cli].version, said);
          else assert.match(said, /usage/i, said.slice(0, 500));
        }
      }
      const bare: Record<string, string> = { ...leafEnv };
      for (const key of CREDENTIALS[cli] ?? []) delete bare[key];
      const leaf = await runAgentLeaf({
        name: 'verify-green',
        agent: plugin(cli),
        prompt: 'Say it.',
        options: { role: 'verifier', cwd: repo },
        stateDir,
        env: bare,
        preflight: false,
        sandbox: agentSandbox(plugin(cli), 'reader', repo, bare, stateDir),
      });
      assert.equal([leaf.status, leaf.failureKind], ['exited', 'failed'], `${leaf.failure}`);
      assert.not.match(`${leaf.stderr}${leaf.failure}`, /bwrap|cannot sandbox/, 'the CLI ran: its failure is its own');
      const launch = readEvents(stateDir).find((e) => e.event === 'launch' && e.leaf === 'verify-green');
      assert.equal([launch?.sandbox, launch?.sandbox_role], ['bwrap', 'reader']);
    } finally {
      await server.close();
    }
  });
}

test.run();
