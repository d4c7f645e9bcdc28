// shellWord: what a person pastes is read back by a real shell byte for byte; showText: one line, no terminal control.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { hostileTitles } from '@leap/test-utils';
import { shellWord, showText } from '../src/errors.js';

test('shellWord: plain words stay bare; every other word comes back from bash byte for byte', () => {
  assert.is(shellWord('/tmp/a-b_c.d/e:f=g@h%i+j,k'), '/tmp/a-b_c.d/e:f=g@h%i+j,k');
  for (const word of ["it's", '$HOME `id` "q"', 'a\nb', 'ünïcødé ✓', '', ...hostileTitles(8, 11)]) {
    const back = spawnSync('bash', ['-c', `printf %s ${shellWord(word)}`], { encoding: 'utf8' });
    assert.is(back.stdout, word, JSON.stringify(word));
  }
});

test('showText: every control character escaped (newlines, C1, bidi overrides); other text as it is', () => {
  assert.is(showText('a\n\u001b[2J\u0007\u009b b 🦀'), 'a\\u000a\\u001b[2J\\u0007\\u009b b 🦀');
  assert.is(showText('x\u202ey\u2069 é\t'), 'x\\u202ey\\u2069 é\\u0009');
});

test.run();
