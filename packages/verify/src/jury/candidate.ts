// The candidate the jury judges: whole current files and their tests, and one hash over them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { UsageError, showValue } from '@leap/core';

export type CandidateFile = { path: string; bytes: Buffer; kind: 'file' | 'test' };

/** Read the candidate's files and tests from `cwd`; a path outside it, missing, or named twice is a UsageError. */
export function readCandidate(cwd: string, files: readonly string[], tests: readonly string[]): CandidateFile[] {
  const seen = new Set<string>();
  const read = (given: string, kind: CandidateFile['kind']): CandidateFile => {
    const path = normalize(given).split(sep).join('/');
    if (given === '' || isAbsolute(path) || path === '..' || path.startsWith('../'))
      throw new UsageError(`Expected a candidate file inside ${cwd}, got ${showValue(given)}`);
    if (seen.has(path)) throw new UsageError(`candidate file ${showValue(path)} is named twice`);
    seen.add(path);
    try {
      return { path, bytes: readFileSync(join(cwd, path)), kind };
    } catch (cause) {
      throw new UsageError(`cannot read candidate file ${showValue(path)}: ${(cause as Error).message}`, { cause });
    }
  };
  if (files.length === 0) throw new UsageError('the jury needs at least one candidate FILE');
  return [...files.map((f) => read(f, 'file')), ...tests.map((t) => read(t, 'test'))];
}

/** sha256 over the files in path byte order, each PATH NUL LENGTH NUL BYTES: any byte or name change changes it. */
export function candidateHash(files: readonly CandidateFile[]): string {
  const hash = createHash('sha256');
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  for (const file of sorted) {
    hash.update(file.path);
    hash.update(`\0${file.bytes.length}\0`);
    hash.update(file.bytes);
  }
  return hash.digest('hex');
}
