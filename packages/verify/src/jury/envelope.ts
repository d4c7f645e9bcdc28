// The one envelope every juror reads. Zero authorship: building one that names the builder fails loudly.
import { LeapError, UsageError, showValue } from '@leap/core';
import { fenced } from '../verify-prompt.js';
import type { CandidateFile } from './candidate.js';

/** Identities that must not reach a juror. */
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
  const { builderName, modelIds = [], authors = [], sessionIds = [] } = aliases;
  const all = [builderName ?? '', ...modelIds, ...authors, ...sessionIds]
    .map((a) => a.trim())
    .filter((a) => a.length >= 3);
  const unique = [...new Set(all.map((a) => a.toLowerCase()))].sort((a, b) => b.length - a.length);
  if (unique.length === 0) return text;
  const escapeRegExp = (a: string) => a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // One pass over the text: a placeholder is never searched again, so no alias can be rebuilt from it.
  return text.replace(new RegExp(unique.map(escapeRegExp).join('|'), 'giu'), AUTHOR_PLACEHOLDER);
}

/** Throw an EnvelopeLeakError naming the alias and where it appears; the envelope is never graded un-blind. */
export function checkEnvelopeLeaks(text: string, input: EnvelopeInput, aliases: AuthorAliases): void {
  const lower = text.toLowerCase();
  const named: Array<[string, string]> = [
    ...(aliases.builderName === undefined ? [] : [['builder name', aliases.builderName] as [string, string]]),
    ...(aliases.modelIds ?? []).map((id) => ['model id', id] as [string, string]),
    ...(aliases.authors ?? []).map((a) => ['author', a] as [string, string]),
    ...(aliases.sessionIds ?? []).map((id) => ['session id', id] as [string, string]),
  ];
  for (const [kind, raw] of named) {
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
