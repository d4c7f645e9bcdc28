// The options of the built bins, end to end: real child processes on real git repositories.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { movePromptFile } from '@leap/agent-scripted';
import { readEvents } from '@leap/core';
import {
  cleanupTempDirs,
  git,
  hostileTitles,
  makeGitRepo,
  makeTempDir,
  runBin,
  runCommand,
  scriptPath,
} from '@leap/test-utils';
import { juryBin, makeGreen, makeRedRepo, verifyBin, verifyEnv, writeAgents, writeScript } from './helpers.js';

const STEP = 'greet returns hello';
const CRITERION_1 = '- [ ] greet() returns "hello"\n  even on Sundays';
const CRITERION_2 = '- [ ] greet(name) returns "hello NAME"';

/** The prompt's behaviour-spec section around `spec` (fenced with three backticks: none inside). */
const specSection = (spec: string) => `\n## Behaviour spec (from the issue)\n\`\`\`\n${spec}\n\`\`\`\n`;

/** The verdict events of the repository's log. */
function verdictEvents(repo: string) {
  return readEvents(join(repo, '.tdd', 'events.jsonl'))
    .map((r) => r.event)
    .filter((e) => e.event === 'verdict');
}

const link = suite("leap-verify: the step's criterion");
link.after.each(cleanupTempDirs);

link('the prompt of step 2 carries criterion 2 only, the prompt of step 1 criterion 1 only', async () => {
  for (const title of hostileTitles(3, 41)) {
    const repo = makeRedRepo({ title });
    const env = verifyEnv();
    const second = await runBin(verifyBin, ['prompt', '--step', title, 'red'], { cwd: repo, env });
    assert.is(second.code, 0, second.stderr);
    assert.ok(second.stdout.includes(`\nStep: ${title}\n`), title);
    assert.ok(second.stdout.includes(specSection(CRITERION_2)), second.stdout);
    assert.not.ok(second.stdout.includes('greet() returns "hello"'), "criterion 1 stays out of step 2's prompt");
    assert.not.ok(second.stdout.includes('even on Sundays'), "criterion 1's continuation line stays out too");
    const first = await runBin(verifyBin, ['prompt', '--step', STEP, 'red'], { cwd: repo, env });
    assert.is(first.code, 0, first.stderr);
    assert.ok(first.stdout.includes(specSection(CRITERION_1)), first.stdout);
    assert.not.ok(first.stdout.includes('greet(name)'), "criterion 2 stays out of step 1's prompt");
  }
});

link('the verifier agent receives the linked criterion: the prompt it got is the printed one', async () => {
  const title = hostileTitles(5, 5)[4] as string;
  const repo = makeRedRepo({ title });
  const script = writeScript([{ answer: { verdict: 'PASS', reason: 'pins criterion 2' } }]);
  const env = verifyEnv({ VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script } }), VERI_VERIFY_AGENT: 'v' });
  const printed = await runBin(verifyBin, ['prompt', '--step', title, 'red'], { cwd: repo, env });
  const judged = await runBin(verifyBin, ['--step', title, 'red'], { cwd: repo, env });
  assert.equal([judged.code, judged.stdout], [0, 'pins criterion 2\n'], judged.stderr);
  const received = readFileSync(movePromptFile(script, 0), 'utf8');
  assert.is(received, printed.stdout);
  assert.ok(received.includes(specSection(CRITERION_2)));
  assert.not.ok(received.includes('even on Sundays'));
  assert.equal(
    verdictEvents(repo).map((e) => e.step),
    [title],
  );
});

link.run();

// ---

const options = suite('leap-verify options');
options.after.each(cleanupTempDirs);

options("--spec FILE replaces the issue's criterion, its text byte for byte", async () => {
  const repo = makeRedRepo();
  const texts = hostileTitles(6, 29);
  for (const [i, text] of texts.entries()) {
    const spec = join(makeTempDir(), `spec-${i}.md`);
    writeFileSync(spec, `${text}\n`);
    for (const env of [verifyEnv(), verifyEnv({ VERI_ISSUE: '' })]) {
      const args = env.VERI_ISSUE === '' ? ['--ledger', join(repo, '.tdd', 'issue-3.md')] : [];
      const ran = await runBin(verifyBin, ['prompt', '--step', STEP, '--spec', spec, ...args, 'red'], {
        cwd: repo,
        env,
      });
      assert.is(ran.code, 0, ran.stderr);
      const section = /\n## Behaviour spec \(from the issue\)\n(`{3,})\n([\s\S]*)\n\1\n\n## Tests of this step\n/.exec(
        ran.stdout,
      );
      assert.is(section?.[2], text, "the spec section is the file's text, fenced");
      assert.not.ok(ran.stdout.includes('greet() returns "hello"'), "the issue's criterion is replaced");
    }
  }
  const missing = await runBin(verifyBin, ['prompt', '--step', STEP, '--spec', join(repo, 'no-such-spec.md'), 'red'], {
    cwd: repo,
    env: verifyEnv(),
  });
  assert.is(missing.code, 2);
  assert.match(missing.stderr, /^leap-verify: --spec .*no-such-spec\.md: ENOENT/);
  assert.is(missing.stdout, '');
});

options("--tests GLOB names the step's test files in the prompt, repeatable", async () => {
  const title = hostileTitles(2, 61)[1] as string;
  const repo = makeRedRepo({ title });
  mkdirSync(join(repo, 'lib'));
  writeFileSync(join(repo, 'lib', 'name_test.js'), 'process.exit(0); // name test\n');
  const env = verifyEnv();
  const cases: Array<[string[], string[]]> = [
    [['--tests', 'util.test.js'], ['test/util.test.js']],
    [
      ['--tests', 'test/{greet,util}.test.js'],
      ['test/greet.test.js', 'test/util.test.js'],
    ],
    [
      ['--tests', '*_test.js', '--tests=test/g*'],
      ['lib/name_test.js', 'test/greet.test.js'],
    ],
  ];
  for (const [globs, files] of cases) {
    const ran = await runBin(verifyBin, ['prompt', '--json', '--step', title, ...globs, 'red'], { cwd: repo, env });
    assert.is(ran.code, 0, ran.stderr);
    const json = JSON.parse(ran.stdout) as { prompt: string; tests: string[]; testsSource: string };
    assert.equal([[...json.tests].sort(), json.testsSource], [files, 'tests-option'], globs.join(' '));
    const named = [...json.prompt.matchAll(/^### (.+)$/gm)].map((m) => m[1]).sort();
    assert.equal(named, files, globs.join(' '));
    assert.ok(json.prompt.includes(`\nStep: ${title}\n`));
  }
  const text = await runBin(verifyBin, ['prompt', '--step', title, '--tests', 'lib/*', 'red'], { cwd: repo, env });
  assert.ok(text.stdout.includes('### lib/name_test.js\n```\nprocess.exit(0); // name test\n```\n'), text.stdout);
  const none = await runBin(verifyBin, ['prompt', '--step', title, '--tests', 'nothing/*.js', 'red'], {
    cwd: repo,
    env,
  });
  assert.is(none.code, 2);
  assert.match(none.stderr, /^leap-verify: --tests "nothing\/\*\.js" matched no file in /);
});

options('--ledger FILE: the step is found in that ledger, and its criterion marker still picks the spec', async () => {
  const repo = makeRedRepo();
  const titles = hostileTitles(4, 83);
  const dir = join(makeTempDir(), 'ledgers $(id) `x` \'q\' "d" 🦀');
  mkdirSync(dir);
  const ledger = join(dir, 'plan.md');
  writeFileSync(
    ledger,
    `# Elsewhere\n\n## Steps\n\n${titles.map((t, i) => `- [ ] ${t} <!-- criterion: ${(i % 2) + 1} -->\n`).join('')}`,
  );
  const env = verifyEnv();
  for (const [i, title] of titles.entries()) {
    const ran = await runBin(verifyBin, ['prompt', '--ledger', ledger, '--step', title, 'red'], { cwd: repo, env });
    assert.is(ran.code, 0, ran.stderr);
    assert.ok(ran.stdout.includes(`\nStep: ${title}\n`), title);
    assert.ok(ran.stdout.includes(specSection(i % 2 === 0 ? CRITERION_1 : CRITERION_2)), title);
  }
  const notThere = await runBin(verifyBin, ['prompt', '--ledger', ledger, '--step', STEP, 'red'], { cwd: repo, env });
  assert.is(notThere.code, 2, "the issue's own ledger is not read when --ledger is given");
  assert.match(notThere.stderr, /no step titled "greet returns hello"/);
});

options('--base SHA reaches the refactor prompt and the ground truth; bad or misplaced values are a 2', async () => {
  const repo = makeRedRepo();
  makeGreen(repo);
  const base = git(repo, 'rev-parse', 'HEAD').trim();
  writeFileSync(join(repo, 'src', 'greet.js'), 'const word = "hello";\nexport const greet = () => word;\n');
  git(repo, 'commit', '-q', '-am', 'refactor: name the word');
  const script = writeScript([{ answer: { verdict: 'PASS', reason: 'same behaviour' } }]);
  const env = verifyEnv({ VERI_AGENTS: writeAgents({ v: { plugin: 'scripted', script } }), VERI_VERIFY_AGENT: 'v' });
  const printed = await runBin(verifyBin, ['prompt', '--step', STEP, '--base', base, 'refactor'], { cwd: repo, env });
  assert.is(printed.code, 0, printed.stderr);
  assert.ok(printed.stdout.includes(`\nBase commit: ${base}\n`));
  assert.ok(printed.stdout.includes(`(\`git diff ${base}\`)`));
  const judged = await runBin(verifyBin, ['--step', STEP, 'refactor', `--base=${base}`], { cwd: repo, env });
  assert.equal([judged.code, judged.stdout], [0, 'same behaviour\n'], judged.stderr);
  assert.is(readFileSync(movePromptFile(script, 0), 'utf8'), printed.stdout);
  writeFileSync(join(repo, 'test', 'greet.test.js'), 'process.exit(0);\n');
  git(repo, 'commit', '-q', '-am', 'refactor: weaken the test');
  const weakened = await runBin(verifyBin, ['--step', STEP, 'refactor', '--base', base], { cwd: repo, env });
  assert.equal(
    [weakened.code, weakened.stdout],
    [1, `ground truth: test files changed since the base commit ${base}: test/greet.test.js\n`],
    'a test changed since --base',
  );
  assert.not.ok(existsSync(movePromptFile(script, 1)), 'the ground truth decided: the agent was not asked');
  const bad: Array<[string[], string]> = [
    [
      ['--base', '$(whoami)', 'refactor'],
      `leap-verify: --base: expected the hexadecimal sha of a commit of ${repo}, got "$(whoami)"\n`,
    ],
    [
      ['--base', 'deadbeefdeadbeef', 'refactor'],
      `leap-verify: --base: expected the hexadecimal sha of a commit of ${repo}, got "deadbeefdeadbeef"\n`,
    ],
    [['refactor'], 'leap-verify: the refactor phase needs --base SHA (the commit the refactor started from)\n'],
    [['--base', base, 'green'], 'leap-verify: --base belongs to the refactor phase, not green\n'],
  ];
  for (const [args, stderr] of bad) {
    const ran = await runBin(verifyBin, ['prompt', '--step', STEP, ...args], { cwd: repo, env });
    assert.equal([ran.code, ran.stdout, ran.stderr], [2, '', stderr], args.join(' '));
  }
});

options('--agent NAME picks the agents-file agent that answers; its reason is printed byte for byte', async () => {
  const reasons = hostileTitles(3, 97);
  const repo = makeRedRepo();
  const dir = makeTempDir();
  const chosen = writeScript(
    reasons.map((reason, i) => ({ answer: { verdict: i === 1 ? 'REJECT' : 'PASS', reason } })),
    'chosen',
    dir,
  );
  const fallback = writeScript(
    [{ answer: { verdict: 'REJECT', reason: 'the default agent answered' } }],
    'fallback',
    dir,
  );
  const agents = writeAgents(
    { chosen: { plugin: 'scripted', script: chosen }, fallback: { plugin: 'scripted', script: fallback } },
    dir,
  );
  const env = verifyEnv({ VERI_VERIFY_AGENT: 'fallback' });
  const runs = [
    ['--agents', agents, '--agent', 'chosen'],
    [`--agents=${agents}`, '--agent=chosen', '--json'],
    ['--agent', 'chosen'],
  ];
  for (const [i, args] of runs.entries()) {
    const ran = await runBin(verifyBin, ['--step', STEP, ...args, 'red'], {
      cwd: repo,
      env: i === 2 ? { ...env, VERI_AGENTS: agents } : env,
    });
    const reason = reasons[i] as string;
    assert.is(ran.code, i === 1 ? 1 : 0, ran.stderr);
    if (args.includes('--json'))
      assert.equal(JSON.parse(ran.stdout), {
        phase: 'red',
        tests: ['test/greet.test.js'],
        commit: git(repo, 'rev-parse', 'HEAD').trim(),
        agent: 'chosen',
        decidedBy: 'agent',
        code: 1,
        verdict: 'REJECT',
        reason,
      });
    else assert.is(ran.stdout, `${reason}\n`);
  }
  assert.not.ok(existsSync(movePromptFile(fallback, 0)), 'the default agent was never asked');
  assert.equal(
    verdictEvents(repo).map((e) => [e.agent, e.code, e.reason]),
    reasons.map((r, i) => ['chosen', i === 1 ? 1 : 0, r]),
  );
  const unknown = await runBin(verifyBin, ['--step', STEP, '--agents', agents, '--agent', 'no$(id)', 'red'], {
    cwd: repo,
    env,
  });
  assert.equal([unknown.code, unknown.stdout], [2, '']);
  assert.is(
    unknown.stderr,
    'leap-verify: unknown agent "no$(id)": expected one of claude, codex, gemini, chosen, fallback\n',
  );
});

options.run();

// ---

/** A juror's passing answer for `lens`. */
const passAnswer = (lens: string) => ({ verdict: 'pass', lens, findings: [], reasoning: 'checked greet and its test' });

/** A candidate repository (git identity "Leap Test") and two scripted reviewers of other families. */
function juryRepo(moves: unknown[], greet = 'export const greet = () => "hello";\n') {
  const repo = makeGitRepo({
    files: { 'src/greet.js': greet, 'test/greet.test.js': 'assert(greet() === "hello");\n' },
  });
  const dir = makeTempDir();
  const scripts = { f1: writeScript(moves, 'f1', dir), f2: writeScript(moves, 'f2', dir) };
  const env = verifyEnv({
    VERI_AGENTS: writeAgents(
      { 'r-f1': { plugin: 'scripted', script: scripts.f1 }, 'r-f2': { plugin: 'scripted', script: scripts.f2 } },
      dir,
    ),
  });
  delete env.VERI_ISSUE;
  return { repo, scripts, env };
}

const JURY = [
  '--builder-family',
  'anthropic',
  '--reviewers',
  'r-f1,r-f2',
  '--intent',
  'greet says hello',
  '--criteria',
  'greet() returns "hello"',
  '--test',
  'test/greet.test.js',
];

/** The review leaves' files in the state folder (none when no reviewer was launched). */
function reviewLeafFiles(repo: string): string[] {
  const state = join(repo, '.tdd');
  return existsSync(state) ? readdirSync(state).filter((name) => name.startsWith('review-')) : [];
}

const jury = suite('leap-jury options');
jury.after.each(cleanupTempDirs);

jury(
  '--builder-name and --model-id found in a candidate file: exit 2 naming the leak, no reviewer launched',
  async () => {
    for (const name of hostileTitles(3, 13)) {
      const { repo, scripts, env } = juryRepo([{ answer: passAnswer('defect') }]);
      writeFileSync(join(repo, 'src', 'greet.js'), `// written by ${name}\nexport const greet = () => "hello";\n`);
      const ran = await runBin(juryBin, [...JURY, '--builder-name', name, 'src/greet.js'], { cwd: repo, env });
      assert.equal([ran.code, ran.stdout], [2, ''], ran.stderr);
      assert.is(
        ran.stderr,
        `leap-jury: the envelope would not be blind: the builder name ${JSON.stringify(name.trim())} appears in file src/greet.js; remove it before review\n`,
      );
      assert.equal(reviewLeafFiles(repo), []);
      assert.not.ok(
        existsSync(movePromptFile(scripts.f1, 0)) || existsSync(movePromptFile(scripts.f2, 0)),
        'no reviewer saw the envelope',
      );
    }
    const { repo, scripts, env } = juryRepo([{ answer: passAnswer('defect') }]);
    writeFileSync(
      join(repo, 'test', 'greet.test.js'),
      '// generated by claude-opus-4-1\nassert(greet() === "hello");\n',
    );
    const ran = await runBin(
      juryBin,
      [...JURY, '--model-id', 'gpt-5', '--model-id', 'Claude-Opus-4-1', 'src/greet.js'],
      { cwd: repo, env },
    );
    assert.equal([ran.code, ran.stdout], [2, '']);
    assert.is(
      ran.stderr,
      'leap-jury: the envelope would not be blind: the model id "Claude-Opus-4-1" appears in test test/greet.test.js; remove it before review\n',
    );
    assert.equal(reviewLeafFiles(repo), []);
    assert.not.ok(existsSync(movePromptFile(scripts.f1, 0)));
  },
);

jury(
  '--lens proportion reaches the prompt every reviewer receives and is the lens their answers are judged by',
  async () => {
    const { repo, scripts, env } = juryRepo([{ answer: passAnswer('proportion') }, { answer: passAnswer('defect') }]);
    const ran = await runBin(juryBin, [...JURY, '--lens', 'proportion', 'src/greet.js'], { cwd: repo, env });
    assert.is(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /\njury: 1: unanimous pass of 2 reviewers: r-f1, r-f2\n$/);
    const prompts = [scripts.f1, scripts.f2].map((s) => readFileSync(movePromptFile(s, 0), 'utf8'));
    assert.is(prompts[0], prompts[1]);
    const prompt = prompts[0] as string;
    assert.ok(
      prompt.includes(
        '\n\nLENS: PROPORTION. Blind juror. Evaluate if this solution is over-engineered or appropriately scaled for the intent.\n\n',
      ),
      prompt,
    );
    assert.ok(prompt.includes('"lens": "proportion"'));
    assert.not.ok(prompt.includes('LENS: DEFECT'));
    const defaultLens = await runBin(juryBin, [...JURY, 'src/greet.js'], { cwd: repo, env });
    assert.is(defaultLens.code, 0, defaultLens.stderr);
    assert.ok(
      readFileSync(movePromptFile(scripts.f1, 1), 'utf8').includes('\n\nLENS: DEFECT. Blind juror.'),
      'without --lens: defect',
    );
    const vibes = await runBin(juryBin, [...JURY, '--lens', 'vibes', 'src/greet.js'], { cwd: repo, env });
    assert.equal([vibes.code, vibes.stdout], [2, '']);
    assert.match(vibes.stderr, /^leap-jury: unknown lens "vibes": expected one of defect, proportion, /);
  },
);

jury('a reviewer answering for another lens than --lens is -1: exit 1', async () => {
  const { repo, env } = juryRepo([{ answer: passAnswer('defect') }]);
  const ran = await runBin(juryBin, [...JURY, '--lens', 'proportion', 'src/greet.js'], { cwd: repo, env });
  const note = 'answered for lens "defect", seated for "proportion"';
  assert.is(ran.code, 1, ran.stderr);
  assert.match(ran.stdout, /^candidate sha256:[0-9a-f]{64}\n/);
  assert.is(
    ran.stdout.slice(ran.stdout.indexOf('\n') + 1),
    `review r-f1 (f1): refuse -1: ${note}\nreview r-f2 (f2): refuse -1: ${note}\njury: -1: refuse: r-f1 (${note}); r-f2 (${note})\n`,
  );
});

jury(
  "the repository's git user.name in a candidate fails the envelope by default; --no-git-aliases lets it through",
  async () => {
    const { repo, scripts, env } = juryRepo(
      [{ answer: passAnswer('defect') }],
      '// maintained by leap test\nexport const greet = () => "hello";\n',
    );
    // The last commit is someone else's: "Leap Test" is known only as the folder's git user.name.
    git(
      repo,
      '-c',
      'user.name=Other Person',
      '-c',
      'user.email=other@example.com',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'by another',
    );
    const strict = await runBin(juryBin, [...JURY, 'src/greet.js'], { cwd: repo, env });
    assert.equal([strict.code, strict.stdout], [2, '']);
    assert.is(
      strict.stderr,
      'leap-jury: the envelope would not be blind: the author "Leap Test" appears in file src/greet.js; remove it before review\n',
    );
    assert.equal(reviewLeafFiles(repo), []);
    const lax = await runBin(juryBin, [...JURY, '--no-git-aliases', 'src/greet.js'], { cwd: repo, env });
    assert.is(lax.code, 0, lax.stderr);
    assert.match(lax.stdout, /\njury: 1: unanimous pass of 2 reviewers: r-f1, r-f2\n$/);
    assert.ok(
      readFileSync(movePromptFile(scripts.f1, 0), 'utf8').includes('// maintained by leap test\n'),
      'the reviewer read the file as it is',
    );
    assert.ok(reviewLeafFiles(repo).length > 0, 'the reviewers ran as leaves review-*');
    const explicit = await runBin(juryBin, [...JURY, '--no-git-aliases', '--author', 'LEAP TEST', 'src/greet.js'], {
      cwd: repo,
      env,
    });
    assert.is(explicit.code, 2, '--author still applies under --no-git-aliases');
    assert.match(explicit.stderr, /the author "LEAP TEST" appears in file src\/greet\.js/);
  },
);

jury.run();

// ---

const dropIn = suite('drop-in scripts: bad input');
dropIn.after.each(cleanupTempDirs);

dropIn(
  'verify.sh and build-verify-prompt.sh exit 2 on an unknown phase or a missing --step, like the bin',
  async () => {
    const repo = makeRedRepo();
    const env = verifyEnv();
    const cases: Array<[string[], string]> = [
      [['--step', STEP, 'blue'], 'leap-verify: Expected PHASE to be one of red, green, refactor, got "blue"\n'],
      [['--step', STEP], 'leap-verify: Expected PHASE to be one of red, green, refactor, got "(missing)"\n'],
      [['red'], 'leap-verify: missing --step TITLE (the ledger step to verify)\n'],
    ];
    for (const [args, stderr] of cases) {
      const viaBin = await runBin(verifyBin, args, { cwd: repo, env });
      for (const [script, prefix] of [
        ['verify.sh', []],
        ['build-verify-prompt.sh', ['prompt']],
      ] as const) {
        const ran = await runCommand(scriptPath(script), args, { cwd: repo, env });
        assert.equal([ran.code, ran.stdout], [2, ''], `${script} ${args.join(' ')}`);
        assert.is(ran.stderr, stderr, `${script} ${args.join(' ')}`);
        const direct = await runBin(verifyBin, [...prefix, ...args], { cwd: repo, env });
        assert.equal([ran.code, ran.stdout, ran.stderr], [direct.code, direct.stdout, direct.stderr], script);
      }
      assert.equal([viaBin.code, viaBin.stderr], [2, stderr]);
    }
    // verify.sh writes the ERROR verdict event of a missing --step, as the bin does; prompt mode and an unknown phase write none.
    const missing = ['ERROR', 2, 'missing --step TITLE (the ledger step to verify)'];
    assert.equal(
      verdictEvents(repo).map((e) => [e.verdict, e.code, e.reason]),
      [missing, missing, missing],
    );
  },
);

dropIn.run();
