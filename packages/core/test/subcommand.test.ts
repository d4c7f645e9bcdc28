import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { processSubcommandIo } from '../src/index.js';

const io = suite('processSubcommandIo');

io('the process\'s folder and environment; isTTY asks descriptor 1', () => {
  const made = processSubcommandIo();
  assert.is(made.cwd, process.cwd());
  assert.is(made.env, process.env);
  assert.is(made.isTTY, process.stdout.isTTY === true);
});

io('stdout and stderr write whole texts to descriptors 1 and 2, and a pipe is not a terminal', () => {
  const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const script = `import { processSubcommandIo } from ${JSON.stringify(index)}; const io = processSubcommandIo(); io.stdout('out:' + io.isTTY); io.stderr('err ✓');`;
  const ran = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.is(ran.status, 0, ran.stderr);
  assert.is(ran.stdout, 'out:false');
  assert.is(ran.stderr, 'err ✓');
});

io.run();
