// The fall-over with the real CLIs (issue 21 §3): `leap tdd run --developer claude,gemini --verifier codex`,
// claude's server answering every request as a spent balance (Anthropic's 400 billing error) or as a rate
// limit that never lifts (429). Claude Code's plugin reads its vendor as dry, the conductor hands the leaf to
// gemini, no revision is spent, the run reaches done, and the events and `leap status` say who took over.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { binPath, cleanupTempDirs, git, runBin, startModelServer, type ModelServer } from '@leap/test-utils';
import { CLI_NAMES, cleanupHomes, installedCli, privateHome, sharedHome } from './clis.js';
import { TEST_CMD, readEvents } from './fixture-repo.js';
import { TITLE, developerServer, planFile, project, verifierServer } from './tdd-fixture.js';

test.after(() => {
  cleanupTempDirs();
  cleanupHomes();
});

const LEAP = binPath('cli', 'leap');

const CASES = [
  { fault: 'quota' as const, cause: 'quota' },
  { fault: 429 as const, cause: 'rate-limit' },
];

if (['claude', 'gemini', 'codex'].every((cli) => CLI_NAMES.includes(cli as never))) {
  for (const { fault, cause } of CASES) {
    test(`leap tdd run: claude's vendor answers ${fault} to everything; gemini takes the leaf, codex verifies, done with one fall-over`, async () => {
      const repo = project();
      // Claude's server refuses every request, of every conversation, the whole run.
      const dry = await startModelServer({ script: [{ text: 'never said', fault }] });
      const gem = await developerServer(repo);
      const ver = await verifierServer();
      const servers: ModelServer[] = [dry, gem, ver];
      try {
        const two = sharedHome({ cli: 'claude', server: dry }, { cli: 'gemini', server: gem });
        const third = privateHome('codex', ver, { codexLogin: true, home: two.HOME });
        const env = {
          ...two,
          ...third.env,
          HOME: two.HOME,
          PATH: `${installedCli('codex')}:${two.PATH}`,
          VERI_TEST_CMD: TEST_CMD,
        };
        const run = await runBin(
          LEAP,
          [
            'tdd',
            'run',
            '--issue',
            '1',
            '--test-cmd',
            TEST_CMD,
            '--plan',
            planFile(),
            '--developer',
            'claude,gemini',
            '--verifier',
            'codex',
          ],
          { cwd: repo, env },
        );
        const events = readEvents(join(repo, '.tdd'));
        assert.is(
          run.code,
          0,
          `${run.stdout}\n${run.stderr.slice(-4000)}\n${events
            .filter((e) => e.event === 'bail')
            .map((e) => e.message)
            .join('\n')}`,
        );
        const falls = events.filter((e) => e.event === 'fallover');
        assert.equal(
          falls.map((e) => [e.leaf, e.role, e.agent, e.family, e.cause, e.next]),
          [['develop-red', 'developer', 'claude', 'anthropic', cause, 'gemini']],
          'one fall-over: claude is skipped for the rest of the run',
        );
        assert.match(String(falls[0]?.message), fault === 'quota' ? /credit balance/i : /429|rate/i);
        assert.not.match(String(falls[0]?.message), /"type":"system"/, 'words, never raw stream-json');
        assert.match(run.stdout, `develop-red: the developer agent claude's vendor ran dry (${cause})`);
        // Not a revision: develop-red is launched twice at attempt 1, and the history is one cycle.
        const launches = events
          .filter((e) => e.event === 'launch' && String(e.leaf).startsWith('develop-'))
          .map((e) => `${e.leaf} ${e.attempt}`);
        assert.equal(launches, ['develop-red 1', 'develop-red 1', 'develop-green 1', 'develop-refactor 1']);
        const subjects = git(repo, 'log', '--format=%s', 'main..leap/issue-1').trimEnd().split('\n').reverse();
        assert.equal(subjects, ['plan: issue 1', `red: ${TITLE}`, `green: ${TITLE}`, `refactor: ${TITLE}`]);
        // Claude's server saw requests (it was asked), and no tool of claude ran: the test file is gemini's.
        assert.ok(dry.requests.length > 0);
        assert.equal(
          events.filter((e) => e.event === 'verdict').map((e) => `${e.phase} ${e.verdict} ${e.agent}`),
          ['red PASS codex', 'green PASS codex', 'refactor PASS codex'],
        );
        const usage = events.filter((e) => e.event === 'usage' && e.agent === 'gemini');
        const counted = gem.usage();
        assert.equal(
          usage.reduce((t, e) => [t[0] + e.input_tokens, t[1] + e.output_tokens], [0, 0]),
          [counted.input, counted.output],
        );
        const status = await runBin(LEAP, ['status', '--json'], { cwd: repo, env });
        const shown = (JSON.parse(status.stdout) as { fallovers: { agent: string; next: string; cause: string }[] })
          .fallovers;
        assert.equal(
          shown.map((f) => [f.agent, f.cause, f.next]),
          [['claude', cause, 'gemini']],
        );
      } finally {
        for (const s of servers) await s.close();
      }
    });
  }
}

test.run();
