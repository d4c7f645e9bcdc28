import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceCoverage } from '@leap/test-utils';
import { processSubcommandIo } from '../src/index.js';
import { stdoutIsTerminal } from '../src/subcommand.js';

const io = suite('processSubcommandIo');

io("the process's folder and environment; isTTY asks descriptor 1", () => {
  const made = processSubcommandIo();
  assert.is(made.cwd, process.cwd());
  assert.is(made.env, process.env);
  assert.is(made.isTTY, process.stdout.isTTY === true);
});

io('stdout and stderr write whole texts to descriptors 1 and 2, and a pipe is not a terminal', () => {
  const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const script = `import { processSubcommandIo } from ${JSON.stringify(index)}; const io = processSubcommandIo(); io.stdout('out:' + io.isTTY); io.stderr('err ✓');`;
  const ran = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, ...sourceCoverage() },
  });
  assert.is(ran.status, 0, ran.stderr);
  assert.is(ran.stdout, 'out:false');
  assert.is(ran.stderr, 'err ✓');
});

io(
  'stdoutIsTerminal: a pseudo-terminal is one; /dev/null, /dev/zero, a file, a pipe and a closed descriptor are not',
  () => {
    const subcommand = fileURLToPath(new URL('../src/subcommand.ts', import.meta.url));
    const dir = mkdtempSync(join(tmpdir(), 'leap-tty-'));
    const out = join(dir, 'answer');
    // `script` runs the command on a new pseudo-terminal (descriptor 1 is its slave side); the answer goes to a file.
    const probe = `import { stdoutIsTerminal } from ${JSON.stringify(subcommand)}; import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(out)}, String(stdoutIsTerminal()));`;
    const command = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', probe]
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const ran = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, ...sourceCoverage() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.is(ran.status, 0, ran.stderr);
    assert.is(readFileSync(out, 'utf8'), 'true');
    for (const device of ['/dev/null', '/dev/zero']) {
      const fd = openSync(device, 'w');
      assert.is(stdoutIsTerminal(fd), false, device);
      closeSync(fd);
    }
    const file = openSync(join(dir, 'plain'), 'w');
    assert.is(stdoutIsTerminal(file), false, 'a file');
    closeSync(file);
    assert.is(stdoutIsTerminal(file), false, 'a closed descriptor');
  },
);

io.run();
