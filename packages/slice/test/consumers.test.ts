import * as assert from 'uvu/assert';
import { cleanupTempDirs, makeGitRepo, makeTempDir, suite } from '@leap/test-utils';
import { CONSUMER_LIMITS, consumerName, findConsumers, renderConsumers } from '../src/engine/consumers.js';

const consumers = suite('the consumers of changed files');
consumers.after.each(cleanupTempDirs);

consumers(
  'a file is named by its stem; index, mod.rs, __init__.py by their folder; a name too short is not searched',
  () => {
    assert.is(consumerName('src/slugify.ts'), 'slugify');
    assert.is(consumerName('src/parse/index.ts'), 'parse');
    assert.is(consumerName('src/net/mod.rs'), 'net');
    assert.is(consumerName('pkg/__init__.py'), 'pkg');
    assert.is(consumerName('include/ring.buffer.h'), 'ring');
    assert.is(consumerName('src/a.c'), null);
    assert.is(consumerName('index.js'), null);
  },
);

consumers(
  'consumers in four languages are found, the scope and the state folders are not, and unrelated files are not',
  async () => {
    const repo = makeGitRepo({
      files: {
        'src/ring.c': 'int ring(void) { return 1; }\n',
        'src/main.c': '#include "ring.h"\nint main(void) { return ring(); }\n',
        'src/lib.rs': 'mod ring;\n',
        'app/use.py': 'from .ring import Ring\n',
        'web/use.js': "const ring = require('./ring');\n",
        'src/ringing.c': 'int ringing;\n',
        'src/ring.h': 'int ring(void);\n',
        '.leap/s/b/round-1.json': '{"ring":1}\n',
      },
    });
    const found = await findConsumers(repo, ['src/ring.c'], new Set(['src/ring.c', 'src/ring.h']));
    assert.equal(found.consumers.map((c) => c.path).sort(), ['app/use.py', 'src/lib.rs', 'src/main.c', 'web/use.js']);
    assert.is(found.cut, false);
    const main = found.consumers.find((c) => c.path === 'src/main.c');
    assert.equal(main?.lines, [
      { n: 1, text: '#include "ring.h"' },
      { n: 2, text: 'int main(void) { return ring(); }' },
    ]);
  },
);

consumers('what the jury is shown is bounded: files, lines per file, and it says so when it cut', async () => {
  const files: Record<string, string> = { 'src/hub.ts': 'export const hub = 1;\n' };
  for (let i = 0; i < CONSUMER_LIMITS.files + 3; i++)
    files[`src/user${i}.ts`] = `import { hub } from './hub.js';\n${'hub;\n'.repeat(CONSUMER_LIMITS.linesPerFile + 2)}`;
  const repo = makeGitRepo({ files });
  const found = await findConsumers(repo, ['src/hub.ts'], new Set(['src/hub.ts']));
  assert.is(found.consumers.length, CONSUMER_LIMITS.files);
  assert.ok(found.consumers.every((c) => c.lines.length === CONSUMER_LIMITS.linesPerFile));
  assert.is(found.cut, true);
  const text = renderConsumers(found);
  assert.ok(text.length <= CONSUMER_LIMITS.totalChars + 100, `${text.length}`);
  assert.match(text, /\(more consumers were found than are shown here\)$/);
  assert.is(renderConsumers({ consumers: [], cut: false }), '');
});

consumers('a folder that is not a repository gives no consumers, not a failed round', async () => {
  const found = await findConsumers(makeTempDir('leap-consumers-'), ['src/slugify.ts'], new Set());
  assert.equal(found, { consumers: [], cut: false });
});

consumers.run();
