// findExecutable: the one lookup of a command as a spawn without a shell makes it (the supervisor, the agents' readiness, verify).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeTempDir } from '@leap/test-utils';
import { findExecutable } from '../src/index.js';

const which = suite('findExecutable');
which.after.each(cleanupTempDirs);

which('looks a name up on PATH and checks a path; directories and plain files are not executables', () => {
  const dir = makeTempDir();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'tool'), '#!/bin/sh\n');
  chmodSync(join(bin, 'tool'), 0o755);
  writeFileSync(join(bin, 'plain'), '');
  mkdirSync(join(bin, 'folder'));
  const path = ':/nonexistent:bin';
  assert.is(findExecutable('tool', path, dir), join(bin, 'tool'));
  assert.is(findExecutable('plain', path, dir), null);
  assert.is(findExecutable('folder', path, dir), null);
  assert.is(findExecutable('./bin/tool', undefined, dir), join(bin, 'tool'));
  assert.is(findExecutable(join(bin, 'tool'), undefined, '/'), join(bin, 'tool'));
  assert.is(findExecutable('tool', undefined, dir), null);
  // The first on PATH wins; a name with a slash is never looked up on PATH.
  const other = join(dir, 'other');
  mkdirSync(other);
  writeFileSync(join(other, 'tool'), '#!/bin/sh\n');
  chmodSync(join(other, 'tool'), 0o755);
  assert.is(findExecutable('tool', `${other}:${bin}`, dir), join(other, 'tool'));
  assert.is(findExecutable('bin/tool', other, '/'), null);
});

which.run();
