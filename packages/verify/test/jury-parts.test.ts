import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCommandAgent } from '@leap/agent-command';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir } from '@leap/test-utils';
import {
  EnvelopeLeakError,
  LENS_PREAMBLES,
  buildEnvelope,
  candidateHash,
  checkEnvelopeLeaks,
  combine,
  gitAliases,
  judgeReview,
  parseFinding,
  readCandidate,
  renderJurorPrompt,
  seatReviewers,
} from '../src/index.js';
import type { AgentLeafResult, CandidateFile } from '../src/index.js';
import { RAW_TAIL_CHARS } from '../src/jury/juror-prompt.js';
import { LENSES, TIER_SENTENCES, tierHeader } from '../src/jury/juror-prompt.js';

const file = (path: string, text: string, kind: CandidateFile['kind'] = 'file'): CandidateFile => ({
  path,
  bytes: Buffer.from(text),
  kind,
});

const read = suite('readCandidate');
read.after.each(cleanupTempDirs);

read('reads files and tests relative to the folder; refuses paths outside, twice-named and missing files', () => {
  const dir = makeTempDir();
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'a.js'), 'a');
  writeFileSync(join(dir, 'a.test.js'), 't');
  assert.equal(readCandidate(dir, ['./src/a.js'], ['a.test.js']), [
    file('src/a.js', 'a'),
    file('a.test.js', 't', 'test'),
  ]);
  assert.throws(() => readCandidate(dir, ['../x'], []), /Expected a candidate file inside .*, got "\.\.\/x"/);
  assert.throws(() => readCandidate(dir, ['/etc/passwd'], []), /Expected a candidate file inside/);
  assert.throws(
    () => readCandidate(dir, ['src/a.js'], ['src/../src/a.js']),
    /candidate file "src\/a\.js" is named twice/,
  );
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
  assert.is.not(
    candidateHash([file('ab', ''), file('c', '')]),
    candidateHash([file('a', 'b'), file('c', '')]),
    'boundaries are unambiguous',
  );
});

hash.run();

// ---

const envelope = suite('buildEnvelope');

envelope('whole files, tests, one-line intent, criteria and the candidate hash', () => {
  const text = buildEnvelope(
    {
      candidate: 'abc',
      intent: ' greet says hello ',
      criteria: 'greet() is "hello"',
      files: [file('src/a.js', 'code ```x```'), file('a.test.js', 'test', 'test')],
    },
    {},
  );
  assert.ok(
    text.startsWith(
      'ENVELOPE candidate sha256:abc\n\nINTENT: greet says hello\n\nPASS CRITERIA:\ngreet() is "hello"\n\nFILES (whole current content):\n=== src/a.js ===\n````\ncode ```x```\n````\n\nTESTS:\n=== a.test.js ===\n```\ntest\n```',
    ),
    text,
  );
  assert.match(
    buildEnvelope({ candidate: 'abc', intent: 'i', criteria: 'c', files: [file('a', '')] }, {}),
    /TESTS:\n\(none\)/,
  );
});

envelope('an intent of more than one line, or empty criteria, is refused', () => {
  assert.throws(
    () => buildEnvelope({ candidate: 'c', intent: 'one\ntwo', criteria: 'c', files: [] }, {}),
    /intent as one non-empty line, got "one\\ntwo"/,
  );
  assert.throws(
    () => buildEnvelope({ candidate: 'c', intent: 'one', criteria: ' ', files: [] }, {}),
    /non-empty pass criteria/,
  );
});

envelope("fails loudly when the builder's name, a model id or an author appears anywhere", () => {
  const input = {
    candidate: 'c',
    intent: 'add greet',
    criteria: 'works',
    files: [file('src/a.js', '// written by Jane Doe <jane@example.com>\n'), file('claude-opus-4.notes', 'x', 'test')],
  };
  assert.throws(
    () => buildEnvelope(input, { authors: ['jane@example.com'] }),
    (e: Error) =>
      e instanceof EnvelopeLeakError && /the author "jane@example\.com" appears in file src\/a\.js/.test(e.message),
  );
  assert.throws(() => buildEnvelope(input, { authors: ['JANE DOE'] }), /author "JANE DOE" appears in file src\/a\.js/);
  assert.throws(
    () => buildEnvelope(input, { modelIds: ['claude-opus-4'] }),
    /model id "claude-opus-4" appears in test claude-opus-4\.notes/,
  );
  assert.throws(
    () => buildEnvelope({ ...input, intent: 'builder-bot adds greet' }, { builderName: 'Builder-Bot' }),
    /builder name "Builder-Bot" appears in the intent/,
  );
  assert.throws(
    () => buildEnvelope({ ...input, criteria: 'as builder-bot said' }, { builderName: 'builder-bot' }),
    /appears in the pass criteria/,
  );
  assert.ok(
    buildEnvelope(input, { authors: ['J', ' ', 'someone else'], modelIds: ['gpt-5'], builderName: 'x' }).includes(
      'Jane Doe',
    ),
    'unrelated and too-short aliases do not block',
  );
});

envelope.run();

// ---

const leaks = suite('checkEnvelopeLeaks');

leaks('names the envelope when the alias is only in the assembled text', () => {
  assert.throws(
    () =>
      checkEnvelopeLeaks(
        'ENVELOPE sha256:abc',
        { candidate: 'abc', intent: 'i', criteria: 'c', files: [] },
        { modelIds: ['sha256:abc'] },
      ),
    /appears in the envelope/,
  );
});

leaks("a session id of the builder's chat is a leak wherever it appears: chat history riding along", () => {
  const transcript = Buffer.from(
    '// from session 7f3c-9a21-b0de: "let me fix the greeting"\nexport const greet = () => "hello";\n',
  );
  const input = {
    candidate: 'abc',
    intent: 'i',
    criteria: 'c',
    files: [{ path: 'src/greet.js', kind: 'file' as const, bytes: transcript }],
  };
  assert.throws(
    () => buildEnvelope(input, { sessionIds: ['7F3C-9A21-B0DE'] }),
    (e: unknown) =>
      e instanceof EnvelopeLeakError &&
      e.message ===
        'the envelope would not be blind: the session id "7F3C-9A21-B0DE" appears in file src/greet.js; remove it before review',
  );
  assert.ok(
    buildEnvelope(input, { sessionIds: ['another-session'] }).includes('from session 7f3c'),
    "another session's id is no leak",
  );
});

leaks.run();

// ---

const prompt = suite('renderJurorPrompt');

// Copied from leap-family.md 3.5 by hand, not imported: the test pins the tribunal's words.
const FOOTER =
  'CRITICAL OUTPUT PROTOCOL: You are a strict deterministic evaluator in an autonomous fail-closed loop. Return exactly ONE valid JSON object as your ENTIRE response, no markdown fences, no preamble, no postscript: {"verdict": "pass" | "refuse", "lens": "<your lens>", "findings": ["[severity] file:line claim"], "reasoning": "<concise>"}. At most 10 findings; cite locations, do not quote code. Judge PRIOR_ADJUDICATIONS honestly. A refuse halts the pipeline.';

// 3.1 gives each lens its tier; 3.2 gives each tier its sentence.
const TIER_OF: Record<string, string> = {
  defect: 'precise findings, no invented context.',
  proportion: 'precise findings, no invented context.',
  operator_consequence: 'think as the human who runs this on their own machine.',
  reversibility: 'trace every state change across the whole workflow before you judge.',
  state_continuity: 'trace every state change across the whole workflow before you judge.',
  resource_economy: 'work fast and literal from the code in front of you.',
  boundary_condition: 'work fast and literal from the code in front of you.',
  telemetry: 'think as the human who runs this on their own machine.',
};

const headerWith = (sentence: string) =>
  `You review a code change as one juror of a blind panel: ${sentence} You cannot see who wrote it. Do not modify any file. A finding's severity is one of blocker, major, minor, info.`;

prompt('header, lens preamble, envelope and footer, in that order, byte for byte', () => {
  assert.is(
    renderJurorPrompt('boundary_condition', 'ENVELOPE x\n'),
    [
      "You review a code change as one juror of a blind panel: work fast and literal from the code in front of you. You cannot see who wrote it. Do not modify any file. A finding's severity is one of blocker, major, minor, info.",
      '',
      'LENS: BOUNDARY CONDITION. Blind juror. Assume the inputs to this function are null, empty, unexpected types, or intentionally malformed. Does it fail gracefully?',
      '',
      'ENVELOPE x',
      '',
      'CRITICAL OUTPUT PROTOCOL: You are a strict deterministic evaluator in an autonomous fail-closed loop. Return exactly ONE valid JSON object as your ENTIRE response, no markdown fences, no preamble, no postscript: {"verdict": "pass" | "refuse", "lens": "boundary_condition", "findings": ["[severity] file:line claim"], "reasoning": "<concise>"}. At most 10 findings; cite locations, do not quote code. Judge PRIOR_ADJUDICATIONS honestly. A refuse halts the pipeline.',
      '',
    ].join('\n'),
  );
  assert.is(
    renderJurorPrompt('defect', 'E'),
    renderJurorPrompt('defect', 'E\n'),
    'an envelope without a final newline is laid out the same',
  );
});

prompt("every lens: its tier's header first, its preamble, and the exact footer with the literal lens last", () => {
  assert.equal(Object.keys(LENSES).sort(), Object.keys(TIER_OF).sort());
  for (const [lens, sentence] of Object.entries(TIER_OF)) {
    const lines = renderJurorPrompt(lens, 'ENVELOPE x\n').split('\n');
    assert.is(lines[0], headerWith(sentence), lens);
    assert.is(lines[2], LENS_PREAMBLES[lens], lens);
    assert.is(lines.at(-2), FOOTER.replace('<your lens>', lens), lens);
    assert.is(lines.at(-1), '');
  }
});

prompt('the footer has no placeholder and nothing the tribunal did not write', () => {
  const footer = renderJurorPrompt('telemetry', 'E').trimEnd().split('\n').at(-1) ?? '';
  assert.ok(footer.includes('"lens": "telemetry"'));
  assert.ok(footer.includes('Judge PRIOR_ADJUDICATIONS honestly.'));
  assert.not.ok(footer.includes('<your lens>'));
  assert.not.ok(footer.includes('Severity is one of'));
  assert.is(footer.length, FOOTER.length - '<your lens>'.length + 'telemetry'.length);
});

prompt('a lens outside the table is a generalist seat; its id is copied verbatim, `$` included', () => {
  const text = renderJurorPrompt('x$&y', 'E');
  assert.ok(
    text.startsWith(`${headerWith('precise findings, no invented context.')}\n\nLENS: X$&Y. Blind juror.\n\nE\n\n`),
    text,
  );
  assert.ok(text.endsWith(`${FOOTER.replace('<your lens>', () => 'x$&y')}\n`));
});

prompt('the tables: eight lenses, preambles derived from them, one sentence per tier', () => {
  assert.is(Object.keys(LENS_PREAMBLES).length, 8);
  for (const [lens, { preamble }] of Object.entries(LENSES)) assert.is(LENS_PREAMBLES[lens], preamble);
  assert.equal(TIER_SENTENCES, {
    deep_state: 'trace every state change across the whole workflow before you judge.',
    fast_structural: 'work fast and literal from the code in front of you.',
    operator_safety: 'think as the human who runs this on their own machine.',
    generalist: 'precise findings, no invented context.',
  });
  assert.is(
    tierHeader('deep_state'),
    headerWith('trace every state change across the whole workflow before you judge.'),
  );
});

prompt.run();

// ---

const judge = suite('judgeReview');

const leafWith = (text: string | null, extra: Partial<AgentLeafResult> = {}): AgentLeafResult => ({
  name: 'review-abc-openai',
  code: 0,
  status: 'exited',
  stdout: text ?? '',
  stderr: '',
  answer: text === null ? null : { text },
  failure: text === null ? 'codex could not start' : null,
  failureKind: text === null ? 'missing' : null,
  dry: null,
  usage: null,
  ...extra,
});
const answer = (fields: Record<string, unknown>) =>
  JSON.stringify({ verdict: 'pass', lens: 'defect', findings: [], reasoning: 'checked greet', ...fields });

judge('a clean pass is 1; a pass with only minor and info findings too', async () => {
  assert.equal(judgeReview(leafWith(answer({})), 'defect'), {
    verdict: 'pass',
    value: 1,
    findings: [],
    reasoning: 'checked greet',
    note: 'pass (no findings)',
  });
  const withMinor = judgeReview(
    leafWith(`Here you go:\n\`\`\`json\n${answer({ findings: ['[minor] a.js:1 name', '[info] a.js:2 ok'] })}\n\`\`\``),
    'defect',
  );
  assert.equal(
    [withMinor.value, withMinor.findings],
    [
      1,
      [
        { severity: 'minor', message: 'a.js:1 name' },
        { severity: 'info', message: 'a.js:2 ok' },
      ],
    ],
  );
});

judge('a refuse is -1 with its findings', async () => {
  const refused = judgeReview(
    leafWith(answer({ verdict: 'refuse', findings: ['[major] a.js:3 off by one'] })),
    'defect',
  );
  assert.equal(
    [refused.verdict, refused.value, refused.note, refused.findings],
    ['refuse', -1, 'refused', [{ severity: 'major', message: 'a.js:3 off by one' }]],
  );
});

judge(
  "fail closed: garbage, a schema miss, another lens, or a pass listing a blocker is -1, with the answer's raw tail",
  async () => {
    const cases: Array<[string, RegExp]> = [
      ['LGTM!', /^answered garbage: no JSON object with a "verdict"$/],
      [answer({ verdict: 'PASS' }), /answered badly: .*\/verdict must be equal to one of the allowed values/],
      [answer({ findings: ['no severity'] }), /answered badly: .*must match pattern/],
      [answer({ extra: true }), /answered badly: .*must NOT have additional properties/],
      [answer({ lens: 'proportion' }), /^answered for lens "proportion", seated for "defect"$/],
      [answer({ findings: ['[blocker] a.js:1 crash'] }), /^a pass that lists a \[blocker\] finding is not a pass$/],
      [answer({ findings: ['[info] ok', '[major] a.js:1 leak'] }), /lists a \[major\] finding/],
    ];
    for (const [text, note] of cases) {
      const verdict = judgeReview(leafWith(text), 'defect');
      assert.is(verdict.value, -1, text);
      assert.is(verdict.verdict, 'refuse');
      assert.match(verdict.note, note);
      assert.is(verdict.rawTail, text, 'the whole answer, when it is short');
    }
    assert.is(
      judgeReview(leafWith(answer({ lens: 'proportion' })), 'defect').reasoning,
      'checked greet',
      'a wrong lens keeps its reasoning',
    );
  },
);

judge('the raw tail is the last RAW_TAIL_CHARS characters, on one line, quotes and newlines escaped', async () => {
  assert.is(RAW_TAIL_CHARS, 300);
  const long = judgeReview(leafWith(`${'a'.repeat(700)}\nsaid "ok"\n${'b'.repeat(290)}`), 'defect');
  assert.is(long.note, 'answered garbage: no JSON object with a "verdict"');
  assert.is(long.rawTail, `said "ok"\n${'b'.repeat(290)}`);
  assert.is(long.rawTail?.length, RAW_TAIL_CHARS);
  const exact = 'z'.repeat(RAW_TAIL_CHARS);
  assert.is(judgeReview(leafWith(exact), 'defect').rawTail, exact);
  assert.is(judgeReview(leafWith(''), 'defect').rawTail, '', 'an empty answer is still an answer');
});

judge('the raw tail never starts on half of a split surrogate pair', async () => {
  // 401 UTF-16 units: the last 300 would start on the low half of an emoji.
  assert.is(judgeReview(leafWith(`${'\u{1F600}'.repeat(200)}y`), 'defect').rawTail, `${'\u{1F600}'.repeat(149)}y`);
});

judge('a rejected structured answer leaves its own JSON as the raw tail, not the prose beside it', async () => {
  const json = { verdict: 'pass', lens: 'proportion', findings: [], reasoning: 'r' };
  const verdict = judgeReview(leafWith('prose', { answer: { text: 'prose', json } }), 'defect');
  assert.equal(
    [verdict.note, verdict.rawTail],
    ['answered for lens "proportion", seated for "defect"', JSON.stringify(json)],
  );
});

judge('a refuse, a pass and a silent seat carry no raw tail', async () => {
  const pass = judgeReview(leafWith(answer({ findings: ['[minor] a.js:1 x'] })), 'defect');
  assert.equal([pass.note, pass.rawTail], ['pass with 1 minor/info finding(s)', undefined]);
  const refused = judgeReview(leafWith(answer({ verdict: 'refuse' })), 'defect');
  assert.equal([refused.note, refused.rawTail], ['refused', undefined]);
  const killed = judgeReview(
    leafWith(null, { stdout: 'half an answer', status: 'killed-timeout', code: 2, failure: 'killed after 600 s' }),
    'defect',
  );
  assert.equal(killed, { verdict: 'none', value: 0, findings: [], note: 'never answered: killed after 600 s' });
});

judge('never answered is 0; structured json from the CLI is used', async () => {
  assert.equal(judgeReview(leafWith(null, { code: 127, status: 'failed-start' }), 'defect'), {
    verdict: 'none',
    value: 0,
    findings: [],
    note: 'never answered: codex could not start',
  });
  assert.equal(judgeReview(leafWith(null, { failure: null }), 'defect').note, 'never answered: no answer');
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

seat("refuses the builder's family (any case) and a second reviewer of a seated family", () => {
  const seating = seatReviewers('Anthropic', [
    agent('claude', 'anthropic'),
    agent('codex', 'openai'),
    agent('codex2', 'openai'),
    agent('gemini', 'google'),
  ]);
  assert.equal(
    seating.seated.map((a) => a.name),
    ['codex', 'gemini'],
  );
  assert.equal(seating.refused, [
    { reviewer: 'claude', family: 'anthropic', reason: 'same family as the builder (Anthropic)' },
    { reviewer: 'codex2', family: 'openai', reason: 'family openai is already seated by codex' },
  ]);
  assert.equal(
    seatReviewers('x', [agent('a', 'openai')], ['openai']).refused[0]?.reason,
    'family openai is already seated by (an earlier seat)',
  );
  assert.equal(seatReviewers('x', [agent('a', 'openai'), agent('b', 'google')], [], ['OpenAI']).refused, [
    { reviewer: 'a', family: 'openai', reason: 'same family as a builder whose work the candidate holds (openai)' },
  ]);
});

seat.run();

// ---

const count = suite('combine');

count('any refuse is -1; any silent seat or fewer than two is 0; else a unanimous 1', () => {
  const s = (reviewer: string, value: -1 | 0 | 1, note = 'n') => ({
    reviewer,
    value,
    note,
    findings: [],
    reasoning: 'checked a.js',
  });
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

aliases("the configured identity and the last commit's author and committer; none outside a repository", async () => {
  const repo = makeGitRepo();
  git(repo, 'commit', '-q', '--allow-empty', '--author', 'Ada Author <ada@example.com>', '-m', 'x');
  assert.equal(
    (await gitAliases(repo)).sort(),
    ['Ada Author', 'Leap Test', 'ada@example.com', 'leap@test.invalid'].sort(),
  );
  const outside = makeTempDir();
  const ident = /^(.*) <(.*)> /.exec(
    execFileSync('git', ['var', 'GIT_AUTHOR_IDENT'], { cwd: outside, encoding: 'utf8' }),
  );
  assert.equal(
    await gitAliases(outside),
    ident === null ? [] : [ident[1], ident[2]],
    'outside a repository: the effective identity only',
  );
});

aliases.run();
