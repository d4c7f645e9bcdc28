// The candidate (whole files and tests, one hash) and the one envelope every juror reads: naming the builder fails.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { LeapError, UsageError, runGit, showValue, type GitOptions } from '@leap/core';
import { fenced } from '../verify-prompt.js';

export interface AuthorAliases {
  builderName?: string;
  modelIds?: readonly string[];
  authors?: readonly string[];
  /** Ids of the builder's chat or session, whose history must not ride along (a transcript quoting them). */
  sessionIds?: readonly string[];
}

export class EnvelopeLeakError extends LeapError {}

export type EnvelopeInput = { candidate: string; intent: string; criteria: string; files: readonly CandidateFile[] };
const AUTHOR_PLACEHOLDER = '[the author]';

/** Aliases under 3 characters are ignored; `redact` replaces all but the hash line, which hashes the real bytes. */
export function buildEnvelope(input: EnvelopeInput, aliases: AuthorAliases, redact = false): string {
  const intent = input.intent.trim();
  if (intent === '' || /[\r\n]/.test(intent))
    throw new UsageError(`Expected the intent as one non-empty line, got ${showValue(input.intent)}`);
  if (input.criteria.trim() === '') throw new UsageError('Expected non-empty pass criteria');
  const section = (kind: CandidateFile['kind']) =>
    input.files.filter((f) => f.kind === kind).map((f) => `=== ${f.path} ===\n${fenced(f.bytes.toString('utf8'))}`);
  const tests = section('test');
  const shown = [
    `INTENT: ${intent}`,
    `PASS CRITERIA:\n${input.criteria.trim()}`,
    `FILES (whole current content):\n${section('file').join('\n\n')}`,
    `TESTS:\n${tests.length === 0 ? '(none)' : tests.join('\n\n')}`,
  ].join('\n\n');
  const body = redact ? redactAliases(shown, aliases) : shown;
  checkEnvelopeLeaks(body, input, aliases);
  return `ENVELOPE candidate sha256:${input.candidate}\n\n${body}\n`;
}

function redactAliases(text: string, aliases: AuthorAliases): string {
  const all = named(aliases)
    .map(([, a]) => a.trim())
    .filter((a) => a.length >= 3);
  const unique = [...new Set(all.map((a) => a.toLowerCase()))].sort((a, b) => b.length - a.length);
  if (unique.length === 0) return text;
  const escapeRegExp = (a: string) => a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // One pass over the text: a placeholder is never searched again, so no alias can be rebuilt from it.
  return text.replace(new RegExp(unique.map(escapeRegExp).join('|'), 'giu'), AUTHOR_PLACEHOLDER);
}

const named = ({ builderName, modelIds = [], authors = [], sessionIds = [] }: AuthorAliases) =>
  [
    ...(builderName === undefined ? [] : [['builder name', builderName]]),
    ...modelIds.map((id) => ['model id', id]),
    ...authors.map((a) => ['author', a]),
    ...sessionIds.map((id) => ['session id', id]),
  ] as [string, string][];

export function checkEnvelopeLeaks(text: string, input: EnvelopeInput, aliases: AuthorAliases): void {
  const lower = text.toLowerCase();
  for (const [kind, raw] of named(aliases)) {
    const alias = raw.trim().toLowerCase();
    if (alias.length < 3 || !lower.includes(alias)) continue;
    throw new EnvelopeLeakError(
      `the envelope would not be blind: the ${kind} ${showValue(raw.trim())} appears in ${whereIs(alias, input)}; ` +
        'remove it before review',
    );
  }
}

function whereIs(alias: string, input: EnvelopeInput): string {
  if (input.intent.toLowerCase().includes(alias)) return 'the intent';
  if (input.criteria.toLowerCase().includes(alias)) return 'the pass criteria';
  const file = input.files.find(
    (f) => f.path.toLowerCase().includes(alias) || f.bytes.toString('utf8').toLowerCase().includes(alias),
  );
  return file === undefined ? 'the envelope' : `${file.kind} ${file.path}`;
}

/** From git: the folder's identity, `rev`'s author and committer; what git cannot say adds nothing. */
export async function gitAliases(
  cwd: string,
  rev = 'HEAD',
  options: Pick<GitOptions, 'env' | 'isolate' | 'ceiling'> = {},
): Promise<string[]> {
  const read = async (args: string[]): Promise<string> => {
    const ran = await runGit(args, { ...options, cwd, allowFailure: true }).catch(() => null);
    return ran === null || ran.code !== 0 ? '' : ran.stdout;
  };
  const log = ['log', '-1', '--format=%an%x00%ae%x00%cn%x00%ce', rev, '--'];
  const [ident, authors] = await Promise.all([read(['var', 'GIT_AUTHOR_IDENT']), read(log)]);
  const [, name = '', email = ''] = /^(.*) <(.*)> \d+ [+-]\d{4}$/.exec(ident.trim()) ?? [];
  const values = [name, email, ...authors.split('\0')].map((v) => v.trim());
  return [...new Set(values.filter((v) => v !== ''))];
}

export type CandidateFile = { path: string; bytes: Buffer; kind: 'file' | 'test' };

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
