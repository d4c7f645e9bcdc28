// shellWord: what a person pastes is read back by a real shell byte for byte.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { hostileTitles } from '@leap/test-utils';
import { shellWord } from '../src/errors.js';

test('shellWord: plain words stay bare; every other word comes back from bash byte for byte', () => {
  assert.is(shellWord('/tmp/a-b_c.d/e:f=g@h%i+j,k'), '/tmp/a-b_c.d/e:f=g@h%i+j,k');
  for (const word of ["it's", '$HOME `id` "q"', 'a\nb', 'ünïcødé ✓', '', ...hostileTitles(8, 11)]) {
    const back = spawnSync('bash', ['-c', `printf %s ${shellWord(word)}`], { encoding: 'utf8' });
    assert.is(back.stdout, word, JSON.stringify(word));
  }
});

test.run();
