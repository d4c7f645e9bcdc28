import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createCommandAgent } from '@leap/agent-command';
import { movePromptFile } from '@leap/agent-scripted';
import { readEvents } from '@leap/core';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir, runBin } from '@leap/test-utils';
import { candidateHash, conveneJury, readCandidate } from '../src/index.js';
import { bashAgent, juryBin, verifyEnv, writeAgents, writeScript } from './helpers.js';

const PASS = { verdict: 'pass', lens: 'defect', findings: [], reasoning: 'checked greet and its test' };

/** A candidate repository and an agents file with one scripted reviewer per family. */
function setup(reviewers: Record<string, unknown[]>, extraAgents: Record<string, unknown> = {}) {
  const repo = makeGitRepo({
    files: {
      'src/greet.js': 'export const greet = () => "hello";\n',
      'test/greet.test.js': 'assert(greet() === "hello");\n',
    },
  });
  git(repo, 'commit', '-q', '--allow-empty', '--author', 'Builder Person <builder@example.com>', '-m', 'candidate');
  const dir = makeTempDir();
  const scripts: Record<string, string> = {};
  const agents: Record<string, unknown> = { ...extraAgents };
  for (const [family, moves] of Object.entries(reviewers)) {
    scripts[family] = writeScript(moves, family, dir);
    agents[`r-${family}`] = { plugin: 'scripted', script: scripts[family] };
  }
  const env = verifyEnv({ VERI_AGENTS: writeAgents(agents, dir) });
  delete env.VERI_ISSUE;
  return { repo, scripts, env };
}

const base = {
  builderFamily: 'anthropic',
  intent: 'greet says hello',
  criteria: 'greet() returns "hello"',
  files: ['src/greet.js'],
  tests: ['test/greet.test.js'],
};

function reviews(repo: string) {
  return readEvents(join(repo, '.tdd', 'events.jsonl'))
    .map((r) => r.event)
    .filter((e) => e.event === 'review');
}

const jury = suite('conveneJury');
jury.after.each(cleanupTempDirs);

jury('three reviewers of other families, in parallel, the same envelope each: a unanimous pass is 1', async () => {
  const { repo, scripts, env } = setup({
    f1: [{ answer: PASS, sleep_ms: 300 }],
    f2: [{ answer: PASS, sleep_ms: 300 }],
    f3: [{ answer: { ...PASS, findings: ['[minor] src/greet.js:1 name'] }, sleep_ms: 300 }],
  });
  const result = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2', 'r-f3'], cwd: repo, env });
  const candidate = candidateHash(readCandidate(repo, base.files, base.tests));
  assert.is(result.value, 1, result.reason);
  assert.is(result.candidate, candidate);
  assert.equal(
    result.seats.map((s) => [s.reviewer, s.family, s.verdict, s.value, s.leaf]),
    [
      ['r-f1', 'f1', 'pass', 1, `review-${candidate.slice(0, 8)}-f1`],
      ['r-f2', 'f2', 'pass', 1, `review-${candidate.slice(0, 8)}-f2`],
      ['r-f3', 'f3', 'pass', 1, `review-${candidate.slice(0, 8)}-f3`],
    ],
  );
  const prompts = Object.values(scripts).map((s) => readFileSync(movePromptFile(s, 0), 'utf8'));
  assert.ok(
    prompts.every((p) => p === prompts[0]),
    'every reviewer got the same envelope',
  );
  const prompt = prompts[0] as string;
  assert.ok(
    prompt.includes(`ENVELOPE candidate sha256:${candidate}`) &&
      prompt.includes('export const greet') &&
      prompt.includes('assert(greet()'),
  );
  for (const alias of ['Builder Person', 'builder@example.com', 'Leap Test', 'leap@test.invalid', 'anthropic'])
    assert.not.ok(prompt.includes(alias), alias);
  const events = reviews(repo);
  assert.equal(
    events
      .map((e) => [e.reviewer, e.family, e.verdict, e.value, e.candidate])
      .sort((a, b) => (String(a[0] ?? '~') < String(b[0] ?? '~') ? -1 : 1)),
    [
      ['r-f1', 'f1', 'pass', 1, candidate],
      ['r-f2', 'f2', 'pass', 1, candidate],
      ['r-f3', 'f3', 'pass', 1, candidate],
      [null, null, 'pass', 1, candidate],
    ],
  );
  assert.equal(events.find((e) => e.reviewer === 'r-f3')?.findings, [
    { severity: 'minor', message: 'src/greet.js:1 name' },
  ]);
  assert.is(events.at(-1)?.reviewer, null, 'the jury result comes last');
  const log = readEvents(join(repo, '.tdd', 'events.jsonl')).map((r) => r.event);
  const lastLaunch = log.map((e) => e.event).lastIndexOf('launch');
  const firstExit = log.map((e) => e.event).indexOf('exit');
  assert.ok(lastLaunch < firstExit, 'all three reviewers were running at once');
});

jury("the builder's family is refused before dispatch; fewer than two seats is a hold, recorded", async () => {
  const { repo, scripts, env } = setup({ anthropic: [{ answer: PASS }], openai: [{ answer: PASS }] });
  const result = await conveneJury({ ...base, reviewers: ['r-anthropic', 'r-openai'], cwd: repo, env });
  assert.equal([result.value, result.seats], [0, []]);
  assert.match(
    result.reason,
    /hold: only 1 reviewer\(s\) of a family other than the builder's \(anthropic\); the jury needs 2/,
  );
  assert.equal(result.refused, [
    { reviewer: 'r-anthropic', family: 'anthropic', reason: 'same family as the builder (anthropic)' },
  ]);
  assert.not.ok(
    existsSync(movePromptFile(scripts.anthropic as string, 0)),
    "the builder's family never saw the candidate",
  );
  assert.not.ok(existsSync(movePromptFile(scripts.openai as string, 0)), 'a hold dispatches nobody');
  assert.equal(
    reviews(repo).map((e) => [e.reviewer, e.verdict, e.value]),
    [[null, 'none', 0]],
  );
});

jury('a refuse or a garbage answer is -1; a reviewer that never answered is 0', async () => {
  const { repo, env } = setup(
    {
      f1: [{ answer: PASS }, { answer: PASS }],
      f2: [
        { answer: { ...PASS, verdict: 'refuse', findings: ['[major] src/greet.js:1 wrong'] } },
        { answer: 'looks good to me' },
      ],
    },
    { dead: bashAgent('f9', '', 0), gone: { plugin: 'command', family: 'f8', command: ['no-such-reviewer-cli'] } },
  );
  const refused = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env });
  assert.equal([refused.value, refused.seats.map((s) => s.value)], [-1, [1, -1]]);
  assert.match(refused.reason, /^refuse: r-f2 \(refused\)$/);
  const garbage = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2', 'gone'], cwd: repo, env });
  assert.equal(
    [garbage.value, garbage.seats.map((s) => [s.verdict, s.value])],
    [
      -1,
      [
        ['pass', 1],
        ['refuse', -1],
        ['none', 0],
      ],
    ],
  );
  assert.match(garbage.seats[1]?.note ?? '', /answered garbage/);
  assert.match(garbage.seats[2]?.note ?? '', /never answered: gone could not start/);
});

jury('a silent reviewer holds; an alternate is re-seated in its place and can complete the jury', async () => {
  const { repo, scripts, env } = setup(
    { f1: [{ answer: PASS }, { answer: PASS }], f3: [{ answer: PASS }] },
    { mute: bashAgent('f2', '', 0) },
  );
  const held = await conveneJury({ ...base, reviewers: ['r-f1', 'mute'], cwd: repo, env });
  assert.equal([held.value, held.seats.map((s) => s.value)], [0, [1, 0]]);
  assert.match(held.reason, /^hold: mute never answered: could not read mute's answer/);
  const reseated = await conveneJury({
    ...base,
    reviewers: ['r-f1', 'mute'],
    alternates: ['r-f1', 'r-f3'],
    cwd: repo,
    env,
  });
  assert.is(reseated.value, 1, reseated.reason);
  assert.equal(
    reseated.seats.map((s) => [s.reviewer, s.value, s.replaced]),
    [
      ['r-f1', 1, false],
      ['mute', 0, true],
      ['r-f3', 1, false],
    ],
  );
  assert.equal(reseated.refused, [
    { reviewer: 'r-f1', family: 'f1', reason: 'family f1 is already seated by (an earlier seat)' },
  ]);
  assert.ok(existsSync(movePromptFile(scripts.f3 as string, 0)));
});

jury(
  'a juror whose vendor ran dry: an alternate takes its seat and a fallover event says so; none left: a fallover to nobody; skipped ones are passed over before dispatch',
  async () => {
    const { repo, scripts, env } = setup({
      f1: [{ answer: PASS }, { answer: PASS }, { answer: PASS }],
      f2: [
        { dry: 'rate-limit', stderr: 'API Error: 429 rate_limit_error\n' },
        { dry: 'overload', stderr: '529 overloaded\n' },
      ],
      f3: [{ answer: PASS }, { answer: PASS }],
    });
    const events = () =>
      readEvents(join(repo, '.tdd', 'events.jsonl'))
        .map((r) => r.event)
        .filter((e) => e.event === 'fallover')
        .map((e) => [e.role, e.agent, e.family, e.cause, e.message, e.next, e.ball]);
    const taken = await conveneJury({
      ...base,
      reviewers: ['r-f1', 'r-f2'],
      alternates: ['r-f3'],
      cwd: repo,
      env,
      eventFields: { slice: 's', ball: 'b' },
    });
    assert.is(taken.value, 1, taken.reason);
    assert.equal(taken.seats.find((s) => s.reviewer === 'r-f2')?.dry, {
      kind: 'rate-limit',
      message: 'API Error: 429 rate_limit_error',
    });
    assert.equal(events(), [['reviewer', 'r-f2', 'f2', 'rate-limit', 'API Error: 429 rate_limit_error', 'r-f3', 'b']]);
    // No alternate left: the seat stays silent, the jury holds, and the fall-over names nobody.
    const held = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env });
    assert.is(held.value, 0);
    assert.equal(events().at(-1), ['reviewer', 'r-f2', 'f2', 'overload', '529 overloaded', null, undefined]);
    // A juror that ran dry earlier in the run is skipped: never launched, its alternate sits from the start.
    const skipped = await conveneJury({
      ...base,
      reviewers: ['r-f1', 'r-f2'],
      alternates: ['r-f3'],
      skip: ['r-f2'],
      cwd: repo,
      env,
    });
    assert.is(skipped.value, 1, skipped.reason);
    assert.equal(
      skipped.seats.map((s) => s.reviewer),
      ['r-f1', 'r-f3'],
    );
    assert.not.ok(existsSync(movePromptFile(scripts.f2 as string, 2)), 'the skipped juror was never launched');
    assert.equal(skipped.refused, [
      { reviewer: 'r-f2', family: 'f2', reason: 'not ready: its vendor ran dry earlier in this run' },
    ]);
  },
);

jury(
  'the fleet ladder: a reviewer whose readiness check fails is passed over before the jury starts, and a ready alternate sits in its place',
  async () => {
    const { repo, scripts, env } = setup({ f1: [{ answer: PASS }], f3: [{ answer: PASS }] });
    const marker = join(makeTempDir(), 'dead-ran');
    // A real CLI whose own check (here: exit 3, "not logged in") fails; its review command would leave a marker.
    const dead = {
      ...createCommandAgent({
        name: 'dead',
        family: 'f2',
        command: ['bash', '-c', 'touch "$0"; cat > /dev/null', marker],
      }),
      preflight: () => ({ command: 'bash', args: ['-c', 'echo "not logged in" >&2; exit 3'] }),
    };
    const result = await conveneJury({ ...base, reviewers: ['r-f1', dead], alternates: ['r-f3'], cwd: repo, env });
    assert.is(result.value, 1, result.reason);
    assert.equal(
      result.seats.map((s) => [s.reviewer, s.value, s.replaced]),
      [
        ['r-f1', 1, false],
        ['r-f3', 1, false],
      ],
    );
    assert.equal(
      result.refused.map((r) => r.reviewer),
      ['dead'],
    );
    assert.match(
      result.refused[0]?.reason ?? '',
      /^not ready: dead is not ready: `bash -c .*` exited with code 3: not logged in/,
    );
    assert.not.ok(existsSync(marker), 'the dead reviewer was dispatched');
    assert.ok(existsSync(movePromptFile(scripts.f3 as string, 0)));
    // No ready alternate: the jury cannot sit, a hold that names why.
    const held = await conveneJury({ ...base, reviewers: ['r-f1', dead], cwd: repo, env });
    assert.is(held.value, 0);
    assert.match(held.reason, /^hold: only 1 reviewer\(s\)/);
  },
);

jury(
  'a reviewer that printed a verdict and then exited non-zero has answered; one that exited non-zero with no verdict is silence',
  async () => {
    const { repo, env } = setup({ f1: [{ answer: PASS }, { answer: PASS }] });
    const loud = createCommandAgent({
      name: 'loud',
      family: 'f2',
      command: [
        'bash',
        '-c',
        'cat > /dev/null; printf "%s\n" "$0"; exit 1',
        JSON.stringify({ ...PASS, reasoning: 'read greet; "quoted" $x' }),
      ],
    });
    const passed = await conveneJury({ ...base, reviewers: ['r-f1', loud], cwd: repo, env });
    assert.is(passed.value, 1, passed.reason);
    assert.equal(
      passed.seats.map((s) => [s.reviewer, s.value]),
      [
        ['r-f1', 1],
        ['loud', 1],
      ],
    );
    const crash = createCommandAgent({
      name: 'crash',
      family: 'f2',
      command: ['bash', '-c', 'cat > /dev/null; echo "Segmentation fault {not json}"; exit 139'],
    });
    const held = await conveneJury({ ...base, reviewers: ['r-f1', crash], cwd: repo, env });
    assert.is(held.value, 0);
    assert.match(held.reason, /^hold: crash never answered: crash exited with code 139/);
  },
);

jury('a candidate that changes during the review gets no verdict: a hold', async () => {
  const { repo, env } = setup({
    f1: [{ answer: PASS, edits: [{ path: 'src/greet.js', content: 'changed\n' }] }],
    f2: [{ answer: PASS }],
  });
  // Unsandboxed: this is the check that guards a jury run with --sandbox off (sandboxed, a juror's write never reaches the repository: jury-sandbox.test.ts).
  const result = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env, sandbox: 'off' });
  assert.is(result.value, 0);
  assert.match(result.reason, /hold: the candidate changed during the review/);
});

jury('an envelope that names the builder is never sent; bad lenses and reviewers are usage errors', async () => {
  const { repo, scripts, env } = setup({ f1: [{ answer: PASS }], f2: [{ answer: PASS }] });
  writeFileSync(join(repo, 'src', 'greet.js'), '// by Builder Person\nexport const greet = () => "hello";\n');
  await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /the author "Builder Person" appears in file src\/greet\.js/),
  );
  await conveneJury({
    ...base,
    reviewers: ['r-f1', 'r-f2'],
    cwd: repo,
    env,
    gitAliases: false,
    modelIds: ['greet'],
  }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /model id "greet"/),
  );
  assert.not.ok(existsSync(movePromptFile(scripts.f1 as string, 0)));
  await conveneJury({ ...base, reviewers: ['r-f1'], lens: 'vibes', cwd: repo, env }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /unknown lens "vibes": expected one of defect, /),
  );
  await conveneJury({ ...base, reviewers: ['nobody'], cwd: repo, env }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /unknown agent "nobody"/),
  );
  await conveneJury({ ...base, builderFamily: ' ', reviewers: ['r-f1'], cwd: repo, env }).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /--builder-family/),
  );
});

jury(
  'redactAuthors: every builder identity is replaced by the placeholder in what jurors are shown; the hash is of the real bytes',
  async () => {
    const { repo, scripts, env } = setup({ f1: [{ answer: PASS }], f2: [{ answer: PASS }] });
    const real =
      '// by Builder Person <builder@example.com>, made with CLAUDE-opus-4 (a.k.a. builder person)\nexport const greet = () => "hello";\n';
    writeFileSync(join(repo, 'src', 'greet.js'), real);
    const result = await conveneJury({
      ...base,
      intent: 'greet says hello, as Builder Person wants',
      reviewers: ['r-f1', 'r-f2'],
      cwd: repo,
      env,
      modelIds: ['claude-opus-4'],
      redactAuthors: true,
    });
    assert.is(result.value, 1, result.reason);
    assert.is(result.candidate, candidateHash(readCandidate(repo, ['src/greet.js'], ['test/greet.test.js'])));
    assert.is(readFileSync(join(repo, 'src', 'greet.js'), 'utf8'), real, 'the file itself is untouched');
    for (const script of Object.values(scripts)) {
      const prompt = readFileSync(movePromptFile(script, 0), 'utf8');
      assert.match(
        prompt,
        /\/\/ by \[the author\] <\[the author\]>, made with \[the author\] \(a\.k\.a\. \[the author\]\)/,
      );
      assert.match(prompt, /INTENT: greet says hello, as \[the author\] wants/);
      assert.match(prompt, new RegExp(`ENVELOPE candidate sha256:${result.candidate}`));
      assert.not.match(prompt, /builder person|builder@example\.com|claude-opus-4/i);
    }
  },
);

jury(
  "otherBuilderFamilies: a candidate holding another builder's work seats no reviewer of its family, and redacts it as a model id",
  async () => {
    const { repo, scripts, env } = setup({ f1: [{ answer: PASS }], f2: [{ answer: PASS }], f3: [{ answer: PASS }] });
    writeFileSync(join(repo, 'src', 'greet.js'), '// round 1 by Mistral, kept\nexport const greet = () => "hello";\n');
    const result = await conveneJury({
      ...base,
      otherBuilderFamilies: ['F2', 'mistral'],
      reviewers: ['r-f1', 'r-f2', 'r-f3'],
      cwd: repo,
      env,
      redactAuthors: true,
    });
    assert.is(result.value, 1, result.reason);
    assert.equal(
      result.seats.map((s) => s.reviewer),
      ['r-f1', 'r-f3'],
    );
    assert.equal(result.refused, [
      { reviewer: 'r-f2', family: 'f2', reason: 'same family as a builder whose work the candidate holds (f2)' },
    ]);
    assert.not.ok(existsSync(movePromptFile(scripts.f2 as string, 0)), 'the refused reviewer never ran');
    const prompt = readFileSync(movePromptFile(scripts.f1 as string, 0), 'utf8');
    assert.match(prompt, '// round 1 by [the author], kept');
  },
);

jury("a builder named by its agent stands for that agent's family", async () => {
  const { repo, env } = setup({ openai: [{ answer: PASS }], google: [{ answer: PASS }] });
  const result = await conveneJury({
    ...base,
    builderFamily: 'codex',
    reviewers: ['r-openai', 'r-google'],
    cwd: repo,
    env,
    lens: 'defect',
  });
  assert.equal(
    result.refused.map((r) => r.reason),
    ['same family as the builder (openai)'],
  );
  assert.is(result.value, 0);
});

jury(
  "a builder named by a model id excludes its whole vendor; a reviewer declared by a vendor's alias is that vendor",
  async () => {
    const { repo, scripts, env } = setup({
      gemma: [{ answer: PASS }],
      anthropic: [{ answer: PASS }],
      f3: [{ answer: PASS }],
    });
    const google = await conveneJury({
      ...base,
      builderFamily: 'gemini-2.5-pro',
      reviewers: ['r-gemma', 'r-anthropic', 'r-f3'],
      cwd: repo,
      env,
    });
    assert.equal(google.refused, [
      { reviewer: 'r-gemma', family: 'google', reason: 'same family as the builder (google)' },
    ]);
    assert.not.ok(
      existsSync(movePromptFile(scripts.gemma as string, 0)),
      'a gemma reviewer never reviews a gemini build',
    );
    assert.is(google.value, 1, google.reason);
    const anthropic = await conveneJury({
      ...base,
      builderFamily: 'claude-opus-4-1',
      reviewers: ['r-anthropic', 'r-f3'],
      cwd: repo,
      env,
    });
    assert.equal(
      [anthropic.value, anthropic.refused.map((r) => [r.reviewer, r.reason])],
      [0, [['r-anthropic', 'same family as the builder (anthropic)']]],
    );
  },
);

jury(
  'a review that changed the repository is void, naming the paths: a new file, a write into an already dirty file, a commit',
  async () => {
    const { repo, env } = setup({
      f1: [
        { answer: PASS, edits: [{ path: 'notes/other file.txt', content: 'mine\n' }] },
        { answer: PASS },
        { answer: PASS, edits: [{ path: 'README.md', content: 'dirtier\n' }] },
        { answer: PASS, edits: [{ path: 'n.txt', content: 'x\n' }], commit: 'reviewer commit' },
      ],
      f2: [{ answer: PASS }, { answer: PASS }, { answer: PASS }, { answer: PASS }],
    });
    // Unsandboxed throughout: these are the checks that guard a jury run with --sandbox off (sandboxed, a juror's
    // writes never reach the repository: jury-sandbox.test.ts).
    // The state folder is ignored, as a project ignores it: the reviewer's `git add -A` must not race the supervisors' files.
    writeFileSync(join(repo, '.gitignore'), '.tdd/\n');
    git(repo, 'add', '.gitignore');
    git(repo, 'commit', '-q', '-m', 'ignore the state folder');
    const newFile = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env, sandbox: 'off' });
    assert.equal(
      [newFile.value, newFile.reason],
      [
        0,
        'hold: the repository changed during the review ("notes/other file.txt"); the verdicts of the reviewers that ran are void',
      ],
    );
    assert.equal(
      newFile.seats.map((s) => s.value),
      [1, 1],
      'each seat keeps its own verdict on the record',
    );

    // A dirty file the reviewers leave alone is no change; writing into it is one (a content fingerprint, not a set of dirty paths).
    writeFileSync(join(repo, 'README.md'), 'dirty before the review\n');
    const untouched = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env, sandbox: 'off' });
    assert.is(untouched.value, 1, untouched.reason);
    const dirtier = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env, sandbox: 'off' });
    assert.match(dirtier.reason, /^hold: the repository changed during the review \("README\.md"\)/);

    const committed = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env, sandbox: 'off' });
    assert.is(committed.value, 0);
    assert.equal([committed.value, committed.seats.map((s) => s.value)], [0, [1, 1]], committed.reason);
    assert.match(committed.reason, /the repository changed during the review \("HEAD"/);
    assert.equal(reviews(repo).at(-1)?.reasoning, committed.reason, 'the hold is recorded');
  },
);

jury('a refusal stands when the repository changed too; a repository git can no longer read holds', async () => {
  const refuse = { ...PASS, verdict: 'refuse', findings: ['[major] src/greet.js:1 wrong'] };
  // Unsandboxed: the checks that guard a jury run with --sandbox off (sandboxed, see jury-sandbox.test.ts).
  const { repo, env } = setup({
    f1: [
      { answer: refuse, edits: [{ path: 'scratch.txt', content: 'x\n' }] },
      { answer: PASS, edits: [{ path: '.git/HEAD', delete: true }] },
    ],
    f2: [{ answer: PASS }, { answer: PASS }],
  });
  const refused = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env, sandbox: 'off' });
  assert.equal(
    [refused.value, refused.reason],
    [
      -1,
      'refuse: r-f1 (refused); and the repository changed during the review ("scratch.txt"); the verdicts of the reviewers that ran are void',
    ],
  );
  const broken = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env, sandbox: 'off' });
  assert.is(broken.value, 0);
  assert.match(broken.reason, /^hold: the repository could not be read after the review \(git status failed in /);
});

jury('bare passes alone hold; one pass that says what it checked makes them count', async () => {
  const BARE = { verdict: 'pass', lens: 'defect', findings: [], reasoning: ' ' };
  const { repo, env } = setup({ f1: [{ answer: BARE }, { answer: BARE }], f2: [{ answer: BARE }, { answer: PASS }] });
  const bare = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env });
  assert.equal(
    [bare.value, bare.reason],
    [
      0,
      'hold: only bare passes (no finding, no reasoning) from r-f1, r-f2: a low-information vote is never the only proof',
    ],
  );
  const backed = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env });
  assert.is(backed.value, 1, backed.reason);
});

jury(
  "a refusal is never re-seated; an alternate of the builder's family is refused; every seat's verdict is a review event",
  async () => {
    const refuse = { ...PASS, verdict: 'refuse', findings: ['[major] src/greet.js:1 wrong'] };
    const { repo, scripts, env } = setup({
      f1: [{ answer: PASS }, { answer: PASS }],
      f2: [{ answer: refuse }, { answer: 'not json' }],
      f3: [{ answer: PASS }],
      anthropic: [{ answer: PASS }],
    });
    const refused = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], alternates: ['r-f3'], cwd: repo, env });
    assert.equal(
      [refused.value, refused.seats.map((s) => [s.reviewer, s.value, s.replaced])],
      [
        -1,
        [
          ['r-f1', 1, false],
          ['r-f2', -1, false],
        ],
      ],
    );
    assert.not.ok(existsSync(movePromptFile(scripts.f3 as string, 0)), 'no alternate launders a refusal');
    const candidate = refused.candidate;
    const byReviewer = (a: unknown[], b: unknown[]) => (String(a[0] ?? '~') < String(b[0] ?? '~') ? -1 : 1);
    assert.equal(
      reviews(repo)
        .map((e) => [e.reviewer, e.family, e.verdict, e.value, e.candidate, e.findings])
        .sort(byReviewer),
      [
        ['r-f1', 'f1', 'pass', 1, candidate, []],
        ['r-f2', 'f2', 'refuse', -1, candidate, [{ severity: 'major', message: 'src/greet.js:1 wrong' }]],
        [null, null, 'refuse', -1, candidate, undefined],
      ],
    );

    const gone = { plugin: 'command', family: 'f9', command: ['no-such-reviewer-cli'] };
    const agents = JSON.parse(readFileSync(env.VERI_AGENTS as string, 'utf8')) as { agents: Record<string, unknown> };
    writeFileSync(env.VERI_AGENTS as string, JSON.stringify({ agents: { ...agents.agents, gone } }));
    const reseated = await conveneJury({
      ...base,
      reviewers: ['r-f1', 'r-f2', 'gone'],
      alternates: ['r-anthropic', 'r-f3'],
      cwd: repo,
      env,
    });
    assert.equal(reseated.refused, [
      { reviewer: 'r-anthropic', family: 'anthropic', reason: 'same family as the builder (anthropic)' },
    ]);
    // The reviewer that never answered is re-seated (a transport failure); the refusal stands, and so does the -1.
    assert.equal(
      [reseated.value, reseated.seats.map((s) => [s.reviewer, s.verdict, s.value, s.replaced])],
      [
        -1,
        [
          ['r-f1', 'pass', 1, false],
          ['r-f2', 'refuse', -1, false],
          ['gone', 'none', 0, true],
          ['r-f3', 'pass', 1, false],
        ],
      ],
    );
    assert.not.ok(existsSync(movePromptFile(scripts.anthropic as string, 0)));
    const last = reviews(repo).slice(-5);
    assert.equal(last.map((e) => [e.reviewer, e.verdict, e.value]).sort(byReviewer), [
      ['gone', 'none', 0],
      ['r-f1', 'pass', 1],
      ['r-f2', 'refuse', -1],
      ['r-f3', 'pass', 1],
      [null, 'refuse', -1],
    ]);
    assert.is(
      last.find((e) => e.reviewer === 'r-f2')?.reasoning,
      'answered garbage: no JSON object with a "verdict"; raw tail: "not json"',
      'a rejected answer leaves its words on the record',
    );
    assert.match(last.find((e) => e.reviewer === 'gone')?.reasoning ?? '', /never answered: gone could not start/);
  },
);

jury.run();

// ---

const cli = suite('leap-jury');
cli.after.each(cleanupTempDirs);

cli('prints each seat and the result; exit 0 pass, 1 refuse, 2 hold; --json prints the result', async () => {
  const { repo, env } = setup({
    f1: [{ answer: PASS }, { answer: PASS }, { answer: PASS }],
    f2: [{ answer: PASS }, { answer: { ...PASS, verdict: 'refuse' } }],
  });
  const args = [
    '--builder-family',
    'anthropic',
    '--intent',
    'greet says hello',
    '--criteria',
    'greet() returns "hello"',
    '--test',
    'test/greet.test.js',
    'src/greet.js',
  ];
  const pass = await runBin(juryBin, [...args, '--reviewers', 'r-f1,r-f2'], { cwd: repo, env });
  assert.is(pass.code, 0, pass.stderr);
  assert.match(
    pass.stdout,
    /^candidate sha256:[0-9a-f]{64}\nreview r-f1 \(f1\): pass 1: pass \(no findings\)\nreview r-f2 \(f2\): pass 1: pass \(no findings\)\njury: 1: unanimous pass of 2 reviewers: r-f1, r-f2\n$/,
  );
  const refuse = await runBin(juryBin, [...args, '--reviewers', 'r-f1', '--reviewers', 'r-f2', '--json'], {
    cwd: repo,
    env,
  });
  assert.is(refuse.code, 1);
  const json = JSON.parse(refuse.stdout);
  assert.equal([json.value, json.seats.length, typeof json.candidate], [-1, 2, 'string']);
  const hold = await runBin(juryBin, [...args, '--reviewers', 'r-f1,claude', '--builder-family', 'claude'], {
    cwd: repo,
    env,
  });
  assert.is(hold.code, 2);
  assert.match(
    hold.stdout,
    /refused claude \(anthropic\): same family as the builder \(anthropic\)\njury: 0: hold: only 1 reviewer/,
  );
  assert.match(hold.stderr, /leap-jury: refused claude \(anthropic\) before dispatch/);
  assert.match(hold.stderr, /leap-jury: hold: only 1 reviewer/);
});

cli(
  "--alternates through the bin: a silent seat re-seated, an alternate of the builder's family refused out loud",
  async () => {
    const { repo, env } = setup(
      { f1: [{ answer: PASS }], f3: [{ answer: PASS }], anthropic: [{ answer: PASS }] },
      { mute: bashAgent('f2', '', 0) },
    );
    const args = [
      '--builder-family',
      'anthropic',
      '--intent',
      'greet says hello',
      '--criteria',
      'greet() returns "hello"',
      '--reviewers',
      'r-f1,mute',
      '--alternates',
      'r-anthropic,r-f3',
      'src/greet.js',
    ];
    const ran = await runBin(juryBin, args, { cwd: repo, env });
    assert.is(ran.code, 0, ran.stderr);
    assert.match(
      ran.stderr,
      /^leap-jury: refused alternate r-anthropic \(anthropic\) before dispatch: same family as the builder \(anthropic\)$/m,
    );
    assert.match(ran.stderr, /^leap-jury: mute \(f2\) never answered; re-seating with r-f3 \(f3\)$/m);
    assert.match(ran.stdout, /review mute \(f2\): none 0 \(re-seated\): never answered/);
    assert.match(
      ran.stdout,
      /refused r-anthropic \(anthropic\): same family as the builder \(anthropic\)\njury: 1: unanimous pass of 2 reviewers: r-f1, r-f3\n$/,
    );
  },
);

cli('usage errors exit 2 naming the missing option', async () => {
  const repo = makeGitRepo();
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src', 'a.js'), '');
  for (const [args, message] of [
    [['--reviewers', 'codex,gemini', '--intent', 'i', '--criteria', 'c', 'src/a.js'], /missing --builder-family/],
    [['--builder-family', 'x', '--intent', 'i', '--criteria', 'c', 'src/a.js'], /missing --reviewers/],
    [['--builder-family', 'x', '--reviewers', 'codex', '--criteria', 'c', 'src/a.js'], /missing --intent/],
    [
      ['--builder-family', 'x', '--reviewers', 'codex', '--intent', 'i', '--criteria', 'c'],
      /at least one candidate FILE/,
    ],
    [
      [
        '--builder-family',
        'x',
        '--reviewers',
        'codex',
        '--intent',
        'i',
        '--criteria',
        'c',
        '--author',
        'src',
        'src/a.js',
      ],
      /the author "src" appears in file src\/a\.js/,
    ],
    [
      [
        '--builder-family',
        'x',
        '--reviewers',
        'codex',
        '--intent',
        'i',
        '--criteria',
        'c',
        '--session-id',
        'src',
        'src/a.js',
      ],
      /the session id "src" appears in file src\/a\.js/,
    ],
  ] as Array<[string[], RegExp]>) {
    const ran = await runBin(juryBin, args, { cwd: repo, env: verifyEnv() });
    assert.is(ran.code, 2, args.join(' '));
    assert.match(ran.stderr, message);
  }
  const unknown = await runBin(
    juryBin,
    [
      '--builder-family',
      'Mystery Model 9',
      '--reviewers',
      'codex',
      '--intent',
      'i',
      '--criteria',
      'c',
      '--author',
      'src',
      'src/a.js',
    ],
    {
      cwd: repo,
      env: verifyEnv(),
    },
  );
  assert.match(
    unknown.stderr,
    /^leap-jury: the builder "Mystery Model 9" is not a vendor or model the family table knows \(src\/family\.ts\): only reviewers of family "mystery model 9" are refused$/m,
  );
});

cli.run();
