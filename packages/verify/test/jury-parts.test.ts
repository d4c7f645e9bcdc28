import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCommandAgent } from '@leap/agent-command';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import {
  EnvelopeLeakError, LENS_PREAMBLES, buildEnvelope, candidateHash, checkEnvelopeLeaks, combine, gitAliases, judgeReview,
  parseFinding, readCandidate, renderJurorPrompt, seatReviewers,
} from '../src/index.js';
import type { AgentLeafResult, CandidateFile } from '../src/index.js';

const file = (path: string, text: string, kind: CandidateFile['kind'] = 'file'): CandidateFile => ({ path, bytes: Buffer.from(text), kind });

const read = suite('readCandidate');
read.after.each(cleanupTempDirs);

read('reads files and tests relative to the folder; refuses paths outside, twice-named and missing files', () => {
  const dir = makeTempDir();
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'a.js'), 'a');
  writeFileSync(join(dir, 'a.test.js'), 't');
  assert.equal(readCandidate(dir, ['./src/a.js'], ['a.test.js']), [file('src/a.js', 'a'), file('a.test.js', 't', 'test')]);
  assert.throws(() => readCandidate(dir, ['../x'], []), /Expected a candidate file inside .*, got "\.\.\/x"/);
  assert.throws(() => readCandidate(dir, ['/etc/passwd'], []), /Expected a candidate file inside/);
  assert.throws(() => readCandidate(dir, ['src/a.js'], ['src/../src/a.js']), /candidate file "src\/a\.js" is named twice/);
  assert.throws(() => readCandidate(dir, ['nope.js'], []), /cannot read candidate file "nope\.js": ENOENT/);
  assert.throws(() => readCandidate(dir, [], ['a.test.js']), /at least one candidate FILE/);
});

read.run();

// ---

const hash = suite('candidateHash');

hash('sha256 over paths and bytes, independent of order, sensitive to any byte or name', () => {
  const a = [file('b.js', 'B'), file('a.js', 'A')];
  const h = candidateHash(a);
  assert.match(h, /^[0-9a-f]{64}$/);
  assert.is(candidateHash([...a].reverse()), h);
  assert.is.not(candidateHash([file('b.js', 'B'), file('a.js', 'a')]), h);
  assert.is.not(candidateHash([file('b.js', 'B'), file('c.js', 'A')]), h);
  assert.is.not(candidateHash([file('ab', ''), file('c', '')]), candidateHash([file('a', 'b'), file('c', '')]), 'boundaries are unambiguous');
});

hash.run();

// ---

const envelope = suite('buildEnvelope');

envelope('whole files, tests, one-line intent, criteria and the candidate hash', () => {
  const text = buildEnvelope({ candidate: 'abc', intent: ' greet says hello ', criteria: 'greet() is "hello"', files: [file('src/a.js', 'code ```x```'), file('a.test.js', 'test', 'test')] }, {});
  assert.ok(text.startsWith('ENVELOPE candidate sha256:abc\n\nINTENT: greet says hello\n\nPASS CRITERIA:\ngreet() is "hello"\n\nFILES (whole current content):\n=== src/a.js ===\n````\ncode ```x```\n````\n\nTESTS:\n=== a.test.js ===\n```\ntest\n```'), text);
  assert.match(buildEnvelope({ candidate: 'abc', intent: 'i', criteria: 'c', files: [file('a', '')] }, {}), /TESTS:\n\(none\)/);
});

envelope('an intent of more than one line, or empty criteria, is refused', () => {
  assert.throws(() => buildEnvelope({ candidate: 'c', intent: 'one\ntwo', criteria: 'c', files: [] }, {}), /intent as one non-empty line, got "one\\ntwo"/);
  assert.throws(() => buildEnvelope({ candidate: 'c', intent: 'one', criteria: ' ', files: [] }, {}), /non-empty pass criteria/);
});

envelope('fails loudly when the builder\'s name, a model id or an author appears anywhere', () => {
  const input = { candidate: 'c', intent: 'add greet', criteria: 'works', files: [file('src/a.js', '// written by Jane Doe <jane@example.com>\n'), file('claude-opus-4.notes', 'x', 'test')] };
  assert.throws(() => buildEnvelope(input, { authors: ['jane@example.com'] }), (e: Error) => e instanceof EnvelopeLeakError && /the author "jane@example\.com" appears in file src\/a\.js/.test(e.message));
  assert.throws(() => buildEnvelope(input, { authors: ['JANE DOE'] }), /author "JANE DOE" appears in file src\/a\.js/);
  assert.throws(() => buildEnvelope(input, { modelIds: ['claude-opus-4'] }), /model id "claude-opus-4" appears in test claude-opus-4\.notes/);
  assert.throws(() => buildEnvelope({ ...input, intent: 'builder-bot adds greet' }, { builderName: 'Builder-Bot' }), /builder name "Builder-Bot" appears in the intent/);
  assert.throws(() => buildEnvelope({ ...input, criteria: 'as builder-bot said' }, { builderName: 'builder-bot' }), /appears in the pass criteria/);
  assert.ok(buildEnvelope(input, { authors: ['J', ' ', 'someone else'], modelIds: ['gpt-5'], builderName: 'x' }).includes('Jane Doe'), 'unrelated and too-short aliases do not block');
});

envelope.run();

// ---

const leaks = suite('checkEnvelopeLeaks');

leaks('names the envelope when the alias is only in the assembled text', () => {
  assert.throws(() => checkEnvelopeLeaks('ENVELOPE sha256:abc', { candidate: 'abc', intent: 'i', criteria: 'c', files: [] }, { modelIds: ['sha256:abc'] }), /appears in the envelope/);
});

leaks.run();

// ---

const prompt = suite('renderJurorPrompt');

prompt('header, lens preamble, envelope, and the output protocol with the literal lens', () => {
  const text = renderJurorPrompt('boundary_condition', 'ENVELOPE x\n');
  assert.ok(text.includes(LENS_PREAMBLES.boundary_condition as string));
  assert.ok(text.includes('"lens": "boundary_condition"'));
  assert.not.ok(text.includes('<your lens>'));
  assert.ok(text.includes('ENVELOPE x'));
  assert.match(renderJurorPrompt('custom', 'E'), /LENS: CUSTOM\. Blind juror\./);
  assert.is(Object.keys(LENS_PREAMBLES).length, 8);
});

prompt.run();

// ---

const judge = suite('judgeReview');

const leafWith = (text: string | null, extra: Partial<AgentLeafResult> = {}): AgentLeafResult => ({
  name: 'review-abc-openai', code: 0, status: 'exited', stdout: text ?? '', stderr: '', answer: text === null ? null : { text }, failure: text === null ? 'codex could not start' : null, ...extra,
});
const answer = (fields: Record<string, unknown>) => JSON.stringify({ verdict: 'pass', lens: 'defect', findings: [], reasoning: 'checked greet', ...fields });

judge('a clean pass is 1; a pass with only minor and info findings too', async () => {
  assert.equal(judgeReview(leafWith(answer({})), 'defect'), { verdict: 'pass', value: 1, findings: [], reasoning: 'checked greet', note: 'pass (no findings)' });
  const withMinor = judgeReview(leafWith(`Here you go:\n\`\`\`json\n${answer({ findings: ['[minor] a.js:1 name', '[info] a.js:2 ok'] })}\n\`\`\``), 'defect');
  assert.equal([withMinor.value, withMinor.findings], [1, [{ severity: 'minor', message: 'a.js:1 name' }, { severity: 'info', message: 'a.js:2 ok' }]]);
});

judge('a refuse is -1 with its findings', async () => {
  const refused = judgeReview(leafWith(answer({ verdict: 'refuse', findings: ['[major] a.js:3 off by one'] })), 'defect');
  assert.equal([refused.verdict, refused.value, refused.note, refused.findings], ['refuse', -1, 'refused', [{ severity: 'major', message: 'a.js:3 off by one' }]]);
});

judge('fail closed: garbage, a schema miss, another lens, or a pass listing a blocker is -1', async () => {
  const cases: Array<[string, RegExp]> = [
    ['LGTM!', /answered garbage: no JSON object with a "verdict"/],
    [answer({ verdict: 'PASS' }), /answered badly: .*\/verdict must be equal to one of the allowed values/],
    [answer({ findings: ['no severity'] }), /answered badly: .*must match pattern/],
    [answer({ extra: true }), /answered badly: .*must NOT have additional properties/],
    [answer({ lens: 'proportion' }), /answered for lens "proportion", seated for "defect"/],
    [answer({ findings: ['[blocker] a.js:1 crash'] }), /a pass that lists a \[blocker\] finding is not a pass/],
    [answer({ findings: ['[info] ok', '[major] a.js:1 leak'] }), /lists a \[major\] finding/],
  ];
  for (const [text, note] of cases) {
    const verdict = judgeReview(leafWith(text), 'defect');
    assert.is(verdict.value, -1, text);
    assert.is(verdict.verdict, 'refuse');
    assert.match(verdict.note, note);
  }
});

judge('never answered is 0; structured json from the CLI is used', async () => {
  assert.equal(judgeReview(leafWith(null, { code: 127, status: 'failed-start' }), 'defect'), { verdict: 'none', value: 0, findings: [], note: 'never answered: codex could not start' });
  const structured = judgeReview(leafWith('', { answer: { text: 'prose', json: JSON.parse(answer({})) } }), 'defect');
  assert.is(structured.value, 1);
});

judge.run();

// ---

const finding = suite('parseFinding');

finding('splits the severity off; an unmarked finding is unknown', () => {
  assert.equal(parseFinding('[minor] a.js:1 x'), { severity: 'minor', message: 'a.js:1 x' });
  assert.equal(parseFinding('plain'), { severity: 'unknown', message: 'plain' });
});

finding.run();

// ---

const seat = suite('seatReviewers');

const agent = (name: string, family: string) => createCommandAgent({ name, command: ['true'], family });

seat('refuses the builder\'s family (any case) and a second reviewer of a seated family', () => {
  const seating = seatReviewers('Anthropic', [agent('claude', 'anthropic'), agent('codex', 'openai'), agent('codex2', 'openai'), agent('gemini', 'google')]);
  assert.equal(seating.seated.map((a) => a.name), ['codex', 'gemini']);
  assert.equal(seating.refused, [
    { reviewer: 'claude', family: 'anthropic', reason: 'same family as the builder (Anthropic)' },
    { reviewer: 'codex2', family: 'openai', reason: 'family openai is already seated by codex' },
  ]);
  assert.equal(seatReviewers('x', [agent('a', 'openai')], ['openai']).refused[0]?.reason, 'family openai is already seated by (an earlier seat)');
});

seat.run();

// ---

const count = suite('combine');

count('any refuse is -1; any silent seat or fewer than two is 0; else a unanimous 1', () => {
  const s = (reviewer: string, value: -1 | 0 | 1, note = 'n') => ({ reviewer, value, note });
  assert.is(combine([s('a', 1), s('b', -1, 'refused'), s('c', 0)]).value, -1);
  assert.is(combine([s('a', 1), s('b', -1, 'refused')]).reason, 'refuse: b (refused)');
  assert.equal(combine([s('a', 1), s('b', 0, 'never answered: x')]), { value: 0, reason: 'hold: b never answered: x' });
  assert.equal(combine([s('a', 1)]), { value: 0, reason: 'hold: 1 passing seat(s), the jury needs 2' });
  assert.equal(combine([s('a', 1), s('b', 1)]), { value: 1, reason: 'unanimous pass of 2 reviewers: a, b' });
});

count.run();

// ---

const aliases = suite('gitAliases');
aliases.after.each(cleanupTempDirs);

aliases('the configured identity and the last commit\'s author and committer; none outside a repository', async () => {
  const repo = makeGitRepo();
  git(repo, 'commit', '-q', '--allow-empty', '--author', 'Ada Author <ada@example.com>', '-m', 'x');
  assert.equal((await gitAliases(repo)).sort(), ['Ada Author', 'Leap Test', 'ada@example.com', 'leap@test.invalid'].sort());
  const outside = makeTempDir();
  const ident = /^(.*) <(.*)> /.exec(execFileSync('git', ['var', 'GIT_AUTHOR_IDENT'], { cwd: outside, encoding: 'utf8' }));
  assert.equal(await gitAliases(outside), ident === null ? [] : [ident[1], ident[2]], 'outside a repository: the effective identity only');
});

aliases.run();
