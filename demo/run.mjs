#!/usr/bin/env node
// `npm run demo`: one issue driven end to end through the drop-in scripts, exactly as a skill
// calls them, with scripted agents standing in for claude: plan -> ledger; for each step
// Red -> blind verdict -> Green (a first attempt rejected by ground truth, then a revision)
// -> blind verdict -> tick with the green commit -> Refactor -> blind verdict -> clear.
// Until the conductor (`leap tdd run`) exists, this is the most complete run the toolchain does.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const S = join(root, 'scripts');
const AGENT = join(root, 'plugins', 'agent-scripted', 'dist', 'bin', 'leap-scripted-agent.cjs');
const args = process.argv.slice(2);
if (args.includes('--help')) {
  process.stdout.write(`Usage: npm run demo [-- --dir DIR]

Drives issue 1 of a fresh demo repository end to end with scripted agents, through scripts/*.sh.
The repository is created in DIR (default: a new temp folder) and kept, so you can inspect
.tdd/issue-1.md, .tdd/events.jsonl, git log and the leaves' .out/.err files.
Exit codes: 0 the issue's steps are all done; 1 a phase did not end as the script expects.
`);
  process.exit(0);
}
const dirAt = args.indexOf('--dir');
const repo = dirAt >= 0 ? resolve(args[dirAt + 1]) : mkdtempSync(join(tmpdir(), 'leap-demo-'));
for (const needed of [join(S, 'supervise.sh'), join(S, 'run-verdict.sh'), join(S, 'tick-ledger.sh'), AGENT]) {
  if (!existsSync(needed) || (needed.endsWith('.js') && !existsSync(needed))) {
    console.error(`demo: ${needed} is missing; run \`npm run build\` first`);
    process.exit(1);
  }
}

const say = (text) => process.stdout.write(`${text}\n`);
const write = (file, text) => {
  mkdirSync(dirname(join(repo, file)), { recursive: true });
  writeFileSync(join(repo, file), text);
};
const git = (...a) => execFileSync('git', a, { cwd: repo, encoding: 'utf8' }).trim();
/** Run one line of bash in the repository, as a skill's harness would; returns the exit code. */
function bash(line, env = {}) {
  const r = spawnSync('bash', ['-c', line], { cwd: repo, env: { ...process.env, S, ...env }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function expect(what, result, code) {
  if (result.code !== code) {
    say(`demo: ${what} exited ${result.code}, expected ${code}\n${result.stdout}${result.stderr}`);
    process.exit(1);
  }
}

// --- the demo project: a slugify function, tested with node's test runner
mkdirSync(repo, { recursive: true });
git('init', '-q', '-b', 'main');
git('config', 'user.name', 'Leap Demo');
git('config', 'user.email', 'demo@leap.invalid');
git('config', 'commit.gpgsign', 'false');
write('package.json', `${JSON.stringify({ name: 'slug-demo', private: true, type: 'module', scripts: { test: 'node --test test/' } }, null, 2)}\n`);
write('src/slug.js', 'export function slugify(title) {\n  return title;\n}\n');
write('test/smoke.test.js', "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../src/slug.js';\n\ntest('slugify is a function', () => assert.equal(typeof slugify, 'function'));\n");
// The state folder is the run's; only the ledger is committed. The local tracker's issues stand in for
// a remote tracker, so they are not committed either.
write('.gitignore', '.tdd/*\n!.tdd/issue-*.md\n');
write('.tdd/issues/1.md', `# Slugify step titles

Step titles become URL slugs for the run's pull request.

## Acceptance criteria

- [ ] slugify lowercases the words and joins them with single dashes
- [ ] slugify drops every character that is neither a letter nor a digit, so "it's $(x)" becomes "its-x"
`);
git('add', '-A');
git('commit', '-q', '-m', 'demo project');
say(`demo repository: ${repo}`);

// --- the plan becomes the ledger (titles hold an apostrophe, $ and backticks: they are data)
const steps = [
  { title: 'Lowercase the words and join them with dashes', criterion: 1 },
  { title: "Drop characters like ' \" $ ` that are not letters or digits", criterion: 2 },
];
write('plan.txt', `Slugify step titles\n${steps.map((s) => `${s.title} (criterion ${s.criterion})`).join('\n')}\n`);
expect('init', bash('"$S/ledger-steps.sh" init 1 --plan plan.txt'), 0);
git('add', '.tdd/issue-1.md');
git('commit', '-q', '-m', 'plan: issue 1');
say(`ledger: .tdd/issue-1.md\n${readFileSync(join(repo, '.tdd/issue-1.md'), 'utf8')}`);

// --- scripted agents: what a developer would write, and a blind verifier that agrees
const redTest = (n, body) => ({ path: `test/step${n}.test.js`, content: `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../src/slug.js';\n\n${body}\n` });
const developer = [
  { edits: [redTest(1, "test('lowercases and joins with dashes', () => assert.equal(slugify('Hello  Big World'), 'hello-big-world'));")], commit: 'red: lowercase and dashes', answer: 'Wrote a failing test.' },
  { edits: [{ path: 'src/slug.js', content: "export function slugify(title) {\n  return title.toLowerCase().split(/\\s+/).filter(Boolean).join('-');\n}\n" }], answer: 'Implemented.' },
  { edits: [{ path: 'src/slug.js', content: "const words = (text) => text.split(/\\s+/).filter(Boolean);\n\nexport function slugify(title) {\n  return words(title.toLowerCase()).join('-');\n}\n" }], answer: 'Extracted words().' },
  { edits: [redTest(2, "test('drops what is not a letter or digit', () => assert.equal(slugify(\"It's $(x) `y`\"), 'its-x-y'));")], commit: 'red: drop punctuation', answer: 'Wrote a failing test.' },
  { edits: [{ path: 'src/slug.js', content: "const words = (text) => text.split(/\\s+/).filter(Boolean);\n\nexport function slugify(title) {\n  return words(title.toLowerCase().replace(/'/g, '')).join('-');\n}\n" }], answer: 'Dropped apostrophes.' },
  { edits: [{ path: 'src/slug.js', content: "const words = (text) => text.split(/[^\\p{L}\\p{N}]+/u).filter(Boolean);\n\nexport function slugify(title) {\n  return words(title.toLowerCase().replace(/'/g, '')).join('-');\n}\n" }], answer: 'Split on everything that is not a letter or digit.' },
  { edits: [{ path: 'src/slug.js', content: "// Letters and digits make words; everything else separates them (apostrophes vanish).\nconst words = (text) => text.replace(/'/g, '').split(/[^\\p{L}\\p{N}]+/u).filter(Boolean);\n\nexport function slugify(title) {\n  return words(title.toLowerCase()).join('-');\n}\n" }], answer: 'Moved apostrophes into words().' },
];
const pass = (reason) => ({ answer: { verdict: 'PASS', reason } });
const verifier = [pass('The test pins criterion 1 and fails for the right reason.'), pass('The suite passes; the step test is unchanged.'), pass('Behaviour kept; tests untouched.'),
  pass('The test pins criterion 2.'), pass('The suite passes.'), pass('Behaviour kept; tests untouched.')];
write('.tdd/agents/developer.json', JSON.stringify({ family: 'replayed', moves: developer }, null, 2));
write('.tdd/agents/verifier.json', JSON.stringify({ family: 'replayed', moves: verifier }, null, 2));
write('.tdd/agents.json', JSON.stringify({ agents: { verifier: { plugin: 'scripted', script: 'agents/verifier.json' } } }, null, 2));
const runEnv = { VERI_TEST_CMD: 'npm test --silent', VERI_ISSUE: '1', VERI_TIMEOUT: '120', VERI_AGENTS: join(repo, '.tdd/agents.json'), VERI_VERIFY_AGENT: 'verifier' };

/** A developer leaf, launched and awaited exactly as the skill's launch lines do. */
function developLeaf(name, query) {
  expect(`stop check before ${name}`, bash('"$S/stop-requested.sh"'), 3);
  const launch = `rm -f .tdd/${name}.exit .tdd/${name}.pid
VERI_STEP="$(cat .tdd/issue-1.md | $S/ledger-steps.sh ${query})" "$S/detach-leaf.sh" "$S/supervise.sh" ${name} node '${AGENT}' .tdd/agents/developer.json < /dev/null > .tdd/${name}.out 2> .tdd/${name}.err
"$S/wait-leaf.sh" ${name}`;
  const r = bash(launch, runEnv);
  expect(name, r, 0);
  say(`  ${name}: ${readFileSync(join(repo, `.tdd/${name}.out`), 'utf8').trim()}`);
}
/** A blind verdict, supervised as the leaf verdict-PHASE; returns the verdict's exit code. */
function verdict(phase, query, extra = '') {
  const launch = `rm -f .tdd/verdict-${phase}.exit .tdd/verdict-${phase}.pid
VERI_STEP="$(cat .tdd/issue-1.md | $S/ledger-steps.sh ${query})" "$S/detach-leaf.sh" "$S/supervise.sh" verdict-${phase} "$S/run-verdict.sh" --step "$(cat .tdd/issue-1.md | $S/ledger-steps.sh ${query})" ${phase} ${extra} > .tdd/verify-${phase}.reason 2> .tdd/verify-${phase}.err
"$S/wait-leaf.sh" verdict-${phase}`;
  const r = bash(launch, runEnv);
  const reason = readFileSync(join(repo, `.tdd/verify-${phase}.reason`), 'utf8').trim();
  say(`  verdict ${phase}: ${['PASS', 'REJECT', 'malformed or killed'][r.code] ?? r.code}: ${reason.split('\n')[0]}`);
  return r.code;
}

for (const [i, step] of steps.entries()) {
  const title = bash('cat .tdd/issue-1.md | "$S/next-unchecked.sh"').stdout.replace(/\n$/, '');
  if (title !== step.title) {
    say(`demo: the ledger's next step is ${JSON.stringify(title)}, expected ${JSON.stringify(step.title)}`);
    process.exit(1);
  }
  say(`\nstep ${i + 1}: ${title}`);
  developLeaf('develop-red', 'current');
  expect('red verdict', { code: verdict('red', 'current') }, 0);
  developLeaf('develop-green', 'current');
  git('add', '-A');
  let code = verdict('green', 'current');
  for (let attempt = 2; code === 1 && attempt <= 3; attempt++) {
    say(`  revision: the green was rejected; developer attempt ${attempt}`);
    developLeaf(`develop-green-${attempt}`, 'current');
    git('add', '-A');
    code = verdict('green', 'current');
  }
  expect('green verdict', { code }, 0);
  expect('tick', bash('"$S/tick-ledger.sh" 1 --step "$(cat .tdd/issue-1.md | "$S/next-unchecked.sh")" -m "green: $(cat .tdd/issue-1.md | "$S/next-unchecked.sh")"', runEnv), 0);
  say(`  ticked with the green commit ${git('rev-parse', '--short', 'HEAD')}`);
  const base = git('rev-parse', 'HEAD');
  developLeaf('develop-refactor', 'next-pending-refactor');
  git('add', '-A');
  expect('refactor verdict', { code: verdict('refactor', 'next-pending-refactor', `--base ${base}`) }, 0);
  expect('clear', bash('"$S/clear-refactor-pending.sh" 1 --step "$(cat .tdd/issue-1.md | "$S/next-pending-refactor.sh")" -m "refactor: $(cat .tdd/issue-1.md | "$S/next-pending-refactor.sh")"', runEnv), 0);
  expect('criterion', bash(`"$S/tick-issue-criterion.sh" 1 ${step.criterion}`, runEnv), 0);
  say(`  refactor committed ${git('rev-parse', '--short', 'HEAD')}; criterion ${step.criterion} ticked in .tdd/issues/1.md`);
}

const left = bash('cat .tdd/issue-1.md | "$S/ledger-steps.sh" current');
expect('nothing left', left, 1);
const events = readFileSync(join(repo, '.tdd/events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const kinds = {};
for (const e of events) kinds[e.event] = (kinds[e.event] ?? 0) + 1;
say(`\nledger:\n${readFileSync(join(repo, '.tdd/issue-1.md'), 'utf8')}`);
say(`git log:\n${git('log', '--oneline')}\n`);
say(`events: ${Object.entries(kinds).map(([k, n]) => `${n} ${k}`).join(', ')}`);
say(`tests: ${bash('npm test --silent 2>&1 | grep -E "^# (pass|fail)"').stdout.trim().replace(/\n/g, ', ')}`);
say(`\ndone: every step of issue 1 is ticked; inspect ${repo}`);
