#!/usr/bin/env node
// Refuses commit messages that break the project's rule (issue 41): every commit after BASE has a subject
// of at most 72 characters, `area: what changed` in the imperative, and a body. A few lines of our own, not
// commitlint: one rule, no configuration, no dependency tree. Merges are left out: their message is git's.
//
//   node tools/check-commits.mjs [--base REV] [--range A..B]
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BASE = 'cff1603';
const MAX = 72;
// `area: what changed`: a lower-case area (a package, a folder, a few joined by commas or slashes), then the change.
const FORM = /^[a-z0-9][a-z0-9._/-]*(, ?[a-z0-9][a-z0-9._/-]*)*: [^\s]/;
// The imperative: a subject starts with a verb's plain form, never `added`, `fixes`, `adding`.
const NOT_IMPERATIVE = /^(\w+ed|\w+ing|\w+[^s]s)$/i;
const PLAIN = new Set([
  'need',
  'embed',
  'feed',
  'seed',
  'shed',
  'speed',
  'bring',
  'string',
  'ring',
  'process',
  'focus',
  'access',
  'pass',
  'address',
  'bias',
  'alias',
]);

/** What is wrong with one message (subject line, then body), or [] when nothing is. */
export function problems(message) {
  const [subject = '', blank, ...body] = message.replace(/\n+$/, '').split('\n');
  const out = [];
  if (subject.length > MAX) out.push(`subject is ${subject.length} characters (at most ${MAX})`);
  if (!FORM.test(subject)) out.push("subject is not `area: what changed` (a lower-case area, ': ', the change)");
  else {
    const verb = subject.slice(subject.indexOf(': ') + 2).split(/\s/)[0] ?? '';
    if (NOT_IMPERATIVE.test(verb) && !PLAIN.has(verb.toLowerCase()))
      out.push(
        `subject's verb ${JSON.stringify(verb)} is not in the imperative (say what the commit does: "add", not "added")`,
      );
  }
  if (blank !== undefined && blank !== '') out.push('the line after the subject is not blank');
  if (body.join('').trim() === '') out.push('no body (say why, and what was measured)');
  return out;
}

function main(argv) {
  let range = null;
  let base = BASE;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--base') base = argv[++i];
    else if (argv[i] === '--range') range = argv[++i];
    else if (argv[i] === '-h' || argv[i] === '--help') {
      process.stdout.write(
        'Usage: node tools/check-commits.mjs [--base REV] [--range A..B]\nChecks every commit after REV (default cff1603) up to HEAD.\n',
      );
      return 0;
    } else {
      process.stderr.write(`check-commits: unknown argument ${JSON.stringify(argv[i])}\n`);
      return 2;
    }
  }
  const git = (...args) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  range ??= `${base}..HEAD`;
  try {
    git('rev-parse', '--verify', '--quiet', `${range.split('..')[0]}^{commit}`);
  } catch {
    process.stderr.write(
      `check-commits: ${range.split('..')[0]} is not in this clone's history (a shallow clone?): fetch it with git fetch --unshallow\n`,
    );
    return 2;
  }
  const log = git('log', '--no-merges', '--format=%H%x00%B%x01', range);
  let bad = 0;
  let count = 0;
  for (const record of log.split('\x01')) {
    const [sha, message] = record.replace(/^\n/, '').split('\x00');
    if (message === undefined) continue;
    count++;
    const found = problems(message);
    if (found.length === 0) continue;
    bad++;
    process.stderr.write(`${sha.slice(0, 7)} ${message.split('\n')[0]}\n${found.map((p) => `  - ${p}\n`).join('')}`);
  }
  process.stdout.write(`check-commits: ${count} commit(s) in ${range}, ${bad} refused\n`);
  return bad === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
