// A ball's proof is a supervised leaf of the state folder (its files, its events, the run's time and idle limits),
// and a proof that could not run (its program missing, a limit, a crash, the sandbox's refusal) is told from a
// test that failed, by what the supervisor saw and by the lines only the environment prints.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { resetSandboxCheck } from '@leap/supervise';
import { causeLines, runProof, type ProofPlace } from '../src/engine/proof.js';
import { engineEnv } from './engine-helpers.js';

const proofs = suite('runProof: a supervised leaf that tells a red from a proof that could not run');
proofs.after.each(cleanupTempDirs);

const node = (script: string, ...args: string[]) => ({ argv: [process.execPath, '-e', script, ...args] });
const place = (dir: string, name: string, more: Partial<ProofPlace> = {}): ProofPlace => ({
  cwd: dir,
  env: engineEnv(),
  stateDir: join(dir, '.tdd'),
  name,
  timeoutMs: 20_000,
  idleMs: 0,
  sandbox: null,
  ...more,
});
const EROFS = "Error: EROFS: read-only file system, open '/p/node_modules/.vite-temp/vitest.config.ts.timestamp-1.mjs'";

proofs(
  'no shell, its exit and the lines that matter (controls escaped); its out and err files and its launch and exit events in the state folder',
  async () => {
    const dir = makeTempDir();
    const run = await runProof(
      node(
        'console.log(process.argv[1]); console.error("AssertionError: expected 1 to be 2"); process.exit(3)',
        '$(id) `x`\t\u0007\u202eé',
      ),
      place(dir, 'proof-a-1'),
    );
    assert.equal([run.code, run.cannotRun, run.interrupted], [3, null, false]);
    // The reason's words are one line of plain text; the output file keeps the bytes.
    assert.is(run.lines, 'AssertionError: expected 1 to be 2 | $(id) `x`\\u0009\\u0007\\u202eé');
    assert.is(readFileSync(join(dir, '.tdd', 'proof-a-1.out'), 'utf8'), '$(id) `x`\t\u0007\u202eé\n');
    const events = readFileSync(join(dir, '.tdd', 'events.jsonl'), 'utf8');
    assert.match(events, /"event":"launch"[^\n]*"leaf":"proof-a-1"/);
    assert.match(events, /"event":"exit"[^\n]*"leaf":"proof-a-1"/);
  },
);

proofs(
  'could not run: its command missing, a program it runs missing, a limit of time or of idleness, a crash; a failed test is a red',
  async () => {
    const dir = makeTempDir();
    const missing = await runProof({ argv: ['no-such-proof-command'] }, place(dir, 'p1'));
    assert.equal(missing.code, 127);
    assert.match(missing.note ?? '', /^the proof could not run: command not found: "no-such-proof-command"/);
    const inner = await runProof({ argv: ['bash', '-c', 'no-such-runner-x'] }, place(dir, 'p2'));
    assert.equal(inner.code, 127);
    assert.match(
      inner.cannotRun ?? '',
      /^a program it runs was not found \(bash: (line 1: )?no-such-runner-x: command not found\)$/,
    );
    const slow = await runProof(node('setTimeout(() => {}, 60000)'), place(dir, 'p3', { timeoutMs: 300 }));
    assert.equal([slow.code, slow.cannotRun], [124, 'it ran past its time limit (0.3s) and was ended']);
    // A test runner in watch mode: it says so, then waits, using no CPU; the idle limit ends it, not the time limit.
    const started = Date.now();
    const watch = await runProof(
      node("console.log('Waiting for file changes...'); setInterval(() => {}, 1e6)"),
      place(dir, 'p4', { idleMs: 600 }),
    );
    assert.equal(watch.code, 124);
    assert.match(
      watch.cannotRun ?? '',
      /^it made no progress \(no output, no CPU\) for 0\.6s and was ended: a test runner in watch mode/,
    );
    assert.match(watch.lines, /Waiting for file changes\.\.\./);
    assert.ok(Date.now() - started < 15_000, 'ended by the idle limit');
    const crash = await runProof(node("process.kill(process.pid, 'SIGSEGV')"), place(dir, 'p5'));
    assert.match(crash.cannotRun ?? '', /SIGSEGV/);
    const red = await runProof(
      node("console.error('AssertionError: expected 1 to be 2'); process.exit(1)"),
      place(dir, 'p6'),
    );
    assert.equal([red.code, red.cannotRun, red.note], [1, null, undefined]);
    // npx that fell back to the registry with the network off could not run; npm 6's word for a failed script is a red.
    const npx = await runProof(
      node(
        "console.error('npm error code EAI_AGAIN\\nnpm error request to https://registry.npmjs.org/vitest failed'); process.exit(1)",
      ),
      place(dir, 'p7'),
    );
    assert.is(npx.cannotRun, 'npm error code EAI_AGAIN');
    const npm6 = await runProof(node("console.error('npm ERR! code ELIFECYCLE'); process.exit(1)"), place(dir, 'p8'));
    assert.is(npm6.cannotRun, null);
  },
);

proofs(
  "a crash before any test ran, seen only in its output (vitest's EROFS on .vite-temp), could not run; the reason keeps that line",
  async () => {
    const dir = makeTempDir();
    const stack = Array.from({ length: 12 }, (_, i) => `    at frame${i} (node:internal/x:${i}:1)`).join('\\n');
    const run = await runProof(
      node(`console.log(' RUN  v3.2.4 /p'); console.error(${JSON.stringify(EROFS)} + '\\n${stack}'); process.exit(1)`),
      place(dir, 'p1'),
    );
    assert.equal([run.code, run.cannotRun], [1, EROFS]);
    assert.is(run.lines, 'RUN  v3.2.4 /p | at frame10 (node:internal/x:10:1) | at frame11 (node:internal/x:11:1)');
  },
);

proofs(
  "a file system error on the linked dependencies (Node's recursive mkdir says ENOENT where a sandbox made node_modules read-only) could not run; one on the ball's own files is a red",
  async () => {
    const dir = makeTempDir();
    const theirs = [join(dir, 'node_modules'), '/main/node_modules'];
    const vite = `Error: ENOENT: no such file or directory, mkdir '${join(dir, 'node_modules', '.vite-temp')}'`;
    const colored = `\x1b[31m\x1b[1m Startup Error \x1b[22m\x1b[39m\n${vite.replace("'", "\x1b[32m'")}\x1b[39m`;
    const crash = await runProof(
      node(`console.error(${JSON.stringify(colored)}); process.exit(1)`),
      place(dir, 'p1', { theirs }),
    );
    assert.equal([crash.code, crash.cannotRun], [1, vite]);
    assert.is(crash.lines, 'Startup Error');
    const target = await runProof(
      node(
        `console.error("FileNotFoundError: [Errno 2] No such file or directory: '/main/node_modules/x/index.js'"); process.exit(1)`,
      ),
      place(dir, 'p2', { theirs }),
    );
    assert.match(target.cannotRun ?? '', /^FileNotFoundError/);
    const red = await runProof(
      node(
        `console.error("Error: ENOENT: no such file or directory, open '${join(dir, 'src', 'sub.ts')}'"); process.exit(1)`,
      ),
      place(dir, 'p3', { theirs }),
    );
    assert.is(red.cannotRun, null);
  },
);

proofs(
  'sandboxed: a real write refused by the sandbox (EROFS), and a sandbox bwrap could not make, could not run',
  async () => {
    const dir = makeTempDir();
    const ro = makeTempDir();
    const sandbox = { role: 'writer' as const, tree: dir, inheritEnv: true, network: false, read: [ro] };
    const refused = await runProof(
      node(`require('fs').writeFileSync(${JSON.stringify(join(ro, 'f'))}, 'x')`),
      place(dir, 'p1', { sandbox }),
    );
    assert.equal(refused.code, 1);
    assert.match(refused.cannotRun ?? '', /EROFS: read-only file system/);
    assert.not.ok(existsSync(join(ro, 'f')));
    // A bwrap that fails before the proof starts (no "exit-code" in its status): the sandbox could not be made.
    const bin = join(makeTempDir(), 'bwrap');
    writeFileSync(bin, "#!/bin/sh\necho 'bwrap: Creating new namespace failed: Operation not permitted' >&2\nexit 1\n");
    chmodSync(bin, 0o755);
    mkdirSync(join(dir, '.tdd'), { recursive: true });
    resetSandboxCheck();
    try {
      const broken = await runProof(
        node('process.exit(0)'),
        place(dir, 'p2', { sandbox, env: engineEnv({ LEAP_BWRAP: bin }) }),
      );
      assert.equal(broken.code, 2);
      assert.match(broken.cannotRun ?? '', /^cannot sandbox the leaf: namespaces are refused here/);
    } finally {
      resetSandboxCheck();
    }
  },
);

proofs(
  'causeLines: the line that names the cause, the first errors, the last lines of each stream, each line bounded',
  () => {
    const err = [EROFS, ...Array.from({ length: 30 }, (_, i) => `    at f${i}`)].join('\n');
    assert.is(causeLines(' RUN v3\n', err), `${EROFS} |  RUN v3 | at f28 | at f29`.replace(' |  RUN', ' | RUN'));
    assert.is(causeLines('', ''), '');
    assert.is(causeLines(' RUN v3\n', err, `the proof could not run: ${EROFS}`), 'RUN v3 | at f28 | at f29');
    assert.is(causeLines(`${'x'.repeat(300)}\n`, '').length, 243);
  },
);

proofs.run();
