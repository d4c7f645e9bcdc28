import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { movePromptFile } from '@leap/agent-scripted';
import { readEvents } from '@leap/core/schemas';
import { cleanupTempDirs, git, makeGitRepo, makeTempDir, runBin } from '@leap/test-utils';
import { candidateHash, conveneJury, readCandidate } from '../src/index.js';
import { bashAgent, juryBin, verifyEnv, writeAgents, writeScript } from './helpers.js';

const PASS = { verdict: 'pass', lens: 'defect', findings: [], reasoning: 'checked greet and its test' };

/** A candidate repository and an agents file with one scripted reviewer per family. */
function setup(reviewers: Record<string, unknown[]>, extraAgents: Record<string, unknown> = {}) {
  const repo = makeGitRepo({ files: { 'src/greet.js': 'export const greet = () => "hello";\n', 'test/greet.test.js': 'assert(greet() === "hello");\n' } });
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

const base = { builderFamily: 'anthropic', intent: 'greet says hello', criteria: 'greet() returns "hello"', files: ['src/greet.js'], tests: ['test/greet.test.js'] };

function reviews(repo: string) {
  return readEvents(join(repo, '.tdd', 'events.jsonl')).map((r) => r.event).filter((e) => e.event === 'review');
}

const jury = suite('conveneJury');
jury.after.each(cleanupTempDirs);

jury('three reviewers of other families, in parallel, the same envelope each: a unanimous pass is 1', async () => {
  const { repo, scripts, env } = setup({ f1: [{ answer: PASS, sleep_ms: 300 }], f2: [{ answer: PASS, sleep_ms: 300 }], f3: [{ answer: { ...PASS, findings: ['[minor] src/greet.js:1 name'] }, sleep_ms: 300 }] });
  const result = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2', 'r-f3'], cwd: repo, env });
  const candidate = candidateHash(readCandidate(repo, base.files, base.tests));
  assert.is(result.value, 1, result.reason);
  assert.is(result.candidate, candidate);
  assert.equal(result.seats.map((s) => [s.reviewer, s.family, s.verdict, s.value, s.leaf]), [
    ['r-f1', 'f1', 'pass', 1, `review-${candidate.slice(0, 8)}-f1`],
    ['r-f2', 'f2', 'pass', 1, `review-${candidate.slice(0, 8)}-f2`],
    ['r-f3', 'f3', 'pass', 1, `review-${candidate.slice(0, 8)}-f3`],
  ]);
  const prompts = Object.values(scripts).map((s) => readFileSync(movePromptFile(s, 0), 'utf8'));
  assert.ok(prompts.every((p) => p === prompts[0]), 'every reviewer got the same envelope');
  const prompt = prompts[0] as string;
  assert.ok(prompt.includes(`ENVELOPE candidate sha256:${candidate}`) && prompt.includes('export const greet') && prompt.includes('assert(greet()'));
  for (const alias of ['Builder Person', 'builder@example.com', 'Leap Test', 'leap@test.invalid', 'anthropic']) assert.not.ok(prompt.includes(alias), alias);
  const events = reviews(repo);
  assert.equal(events.map((e) => [e.reviewer, e.family, e.verdict, e.value, e.candidate]).sort((a, b) => (String(a[0] ?? '~') < String(b[0] ?? '~') ? -1 : 1)), [
    ['r-f1', 'f1', 'pass', 1, candidate], ['r-f2', 'f2', 'pass', 1, candidate], ['r-f3', 'f3', 'pass', 1, candidate], [null, null, 'pass', 1, candidate],
  ]);
  assert.equal(events.find((e) => e.reviewer === 'r-f3')?.findings, [{ severity: 'minor', message: 'src/greet.js:1 name' }]);
  assert.is(events.at(-1)?.reviewer, null, 'the jury result comes last');
  const log = readEvents(join(repo, '.tdd', 'events.jsonl')).map((r) => r.event);
  const lastLaunch = log.map((e) => e.event).lastIndexOf('launch');
  const firstExit = log.map((e) => e.event).indexOf('exit');
  assert.ok(lastLaunch < firstExit, 'all three reviewers were running at once');
});

jury('the builder\'s family is refused before dispatch; fewer than two seats is a hold, recorded', async () => {
  const { repo, scripts, env } = setup({ anthropic: [{ answer: PASS }], openai: [{ answer: PASS }] });
  const result = await conveneJury({ ...base, reviewers: ['r-anthropic', 'r-openai'], cwd: repo, env });
  assert.equal([result.value, result.seats], [0, []]);
  assert.match(result.reason, /hold: only 1 reviewer\(s\) of a family other than the builder's \(anthropic\); the jury needs 2/);
  assert.equal(result.refused, [{ reviewer: 'r-anthropic', family: 'anthropic', reason: 'same family as the builder (anthropic)' }]);
  assert.not.ok(existsSync(movePromptFile(scripts.anthropic as string, 0)), 'the builder\'s family never saw the candidate');
  assert.not.ok(existsSync(movePromptFile(scripts.openai as string, 0)), 'a hold dispatches nobody');
  assert.equal(reviews(repo).map((e) => [e.reviewer, e.verdict, e.value]), [[null, 'none', 0]]);
});

jury('a refuse or a garbage answer is -1; a reviewer that never answered is 0', async () => {
  const { repo, env } = setup({ f1: [{ answer: PASS }, { answer: PASS }], f2: [{ answer: { ...PASS, verdict: 'refuse', findings: ['[major] src/greet.js:1 wrong'] } }, { answer: 'looks good to me' }] }, { dead: bashAgent('f9', '', 0), gone: { plugin: 'command', family: 'f8', command: ['no-such-reviewer-cli'] } });
  const refused = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env });
  assert.equal([refused.value, refused.seats.map((s) => s.value)], [-1, [1, -1]]);
  assert.match(refused.reason, /^refuse: r-f2 \(refused\)$/);
  const garbage = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2', 'gone'], cwd: repo, env });
  assert.equal([garbage.value, garbage.seats.map((s) => [s.verdict, s.value])], [-1, [['pass', 1], ['refuse', -1], ['none', 0]]]);
  assert.match(garbage.seats[1]?.note ?? '', /answered garbage/);
  assert.match(garbage.seats[2]?.note ?? '', /never answered: gone could not start/);
});

jury('a silent reviewer holds; an alternate is re-seated in its place and can complete the jury', async () => {
  const { repo, scripts, env } = setup({ f1: [{ answer: PASS }, { answer: PASS }], f3: [{ answer: PASS }] }, { mute: bashAgent('f2', '', 0) });
  const held = await conveneJury({ ...base, reviewers: ['r-f1', 'mute'], cwd: repo, env });
  assert.equal([held.value, held.seats.map((s) => s.value)], [0, [1, 0]]);
  assert.match(held.reason, /^hold: mute never answered: could not read mute's answer/);
  const reseated = await conveneJury({ ...base, reviewers: ['r-f1', 'mute'], alternates: ['r-f1', 'r-f3'], cwd: repo, env });
  assert.is(reseated.value, 1, reseated.reason);
  assert.equal(reseated.seats.map((s) => [s.reviewer, s.value, s.replaced]), [['r-f1', 1, false], ['mute', 0, true], ['r-f3', 1, false]]);
  assert.equal(reseated.refused, [{ reviewer: 'r-f1', family: 'f1', reason: 'family f1 is already seated by (an earlier seat)' }]);
  assert.ok(existsSync(movePromptFile(scripts.f3 as string, 0)));
});

jury('a candidate that changes during the review gets no verdict: a hold', async () => {
  const { repo, env } = setup({ f1: [{ answer: PASS, edits: [{ path: 'src/greet.js', content: 'changed\n' }] }], f2: [{ answer: PASS }] });
  const result = await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env });
  assert.is(result.value, 0);
  assert.match(result.reason, /hold: the candidate changed during the review/);
});

jury('an envelope that names the builder is never sent; bad lenses and reviewers are usage errors', async () => {
  const { repo, scripts, env } = setup({ f1: [{ answer: PASS }], f2: [{ answer: PASS }] });
  writeFileSync(join(repo, 'src', 'greet.js'), '// by Builder Person\nexport const greet = () => "hello";\n');
  await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env }).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /the author "Builder Person" appears in file src\/greet\.js/));
  await conveneJury({ ...base, reviewers: ['r-f1', 'r-f2'], cwd: repo, env, gitAliases: false, modelIds: ['greet'] }).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /model id "greet"/));
  assert.not.ok(existsSync(movePromptFile(scripts.f1 as string, 0)));
  await conveneJury({ ...base, reviewers: ['r-f1'], lens: 'vibes', cwd: repo, env }).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /unknown lens "vibes": expected one of defect, /));
  await conveneJury({ ...base, reviewers: ['nobody'], cwd: repo, env }).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /unknown agent "nobody"/));
  await conveneJury({ ...base, builderFamily: ' ', reviewers: ['r-f1'], cwd: repo, env }).then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /--builder-family/));
});

jury('a builder named by its agent stands for that agent\'s family', async () => {
  const { repo, env } = setup({ openai: [{ answer: PASS }], google: [{ answer: PASS }] });
  const result = await conveneJury({ ...base, builderFamily: 'codex', reviewers: ['r-openai', 'r-google'], cwd: repo, env, lens: 'defect' });
  assert.equal(result.refused.map((r) => r.reason), ['same family as the builder (openai)']);
  assert.is(result.value, 0);
});

jury.run();

// ---

const cli = suite('leap-jury');
cli.after.each(cleanupTempDirs);

cli('prints each seat and the result; exit 0 pass, 1 refuse, 2 hold; --json prints the result', async () => {
  const { repo, env } = setup({ f1: [{ answer: PASS }, { answer: PASS }, { answer: PASS }], f2: [{ answer: PASS }, { answer: { ...PASS, verdict: 'refuse' } }] });
  const args = ['--builder-family', 'anthropic', '--intent', 'greet says hello', '--criteria', 'greet() returns "hello"', '--test', 'test/greet.test.js', 'src/greet.js'];
  const pass = await runBin(juryBin, [...args, '--reviewers', 'r-f1,r-f2'], { cwd: repo, env });
  assert.is(pass.code, 0, pass.stderr);
  assert.match(pass.stdout, /^candidate sha256:[0-9a-f]{64}\nreview r-f1 \(f1\): pass 1: pass \(no findings\)\nreview r-f2 \(f2\): pass 1: pass \(no findings\)\njury: 1: unanimous pass of 2 reviewers: r-f1, r-f2\n$/);
  const refuse = await runBin(juryBin, [...args, '--reviewers', 'r-f1', '--reviewers', 'r-f2', '--json'], { cwd: repo, env });
  assert.is(refuse.code, 1);
  const json = JSON.parse(refuse.stdout);
  assert.equal([json.value, json.seats.length, typeof json.candidate], [-1, 2, 'string']);
  const hold = await runBin(juryBin, [...args, '--reviewers', 'r-f1,claude', '--builder-family', 'claude'], { cwd: repo, env });
  assert.is(hold.code, 2);
  assert.match(hold.stdout, /refused claude \(anthropic\): same family as the builder \(anthropic\)\njury: 0: hold: only 1 reviewer/);
  assert.match(hold.stderr, /leap-jury: refused claude \(anthropic\) before dispatch/);
  assert.match(hold.stderr, /leap-jury: hold: only 1 reviewer/);
});

cli('usage errors exit 2 naming the missing option', async () => {
  const repo = makeGitRepo();
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src', 'a.js'), '');
  for (const [args, message] of [
    [['--reviewers', 'codex,gemini', '--intent', 'i', '--criteria', 'c', 'src/a.js'], /missing --builder-family/],
    [['--builder-family', 'x', '--intent', 'i', '--criteria', 'c', 'src/a.js'], /missing --reviewers/],
    [['--builder-family', 'x', '--reviewers', 'codex', '--criteria', 'c', 'src/a.js'], /missing --intent/],
    [['--builder-family', 'x', '--reviewers', 'codex', '--intent', 'i', '--criteria', 'c'], /at least one candidate FILE/],
    [['--builder-family', 'x', '--reviewers', 'codex', '--intent', 'i', '--criteria', 'c', '--author', 'src', 'src/a.js'], /the author "src" appears in file src\/a\.js/],
  ] as Array<[string[], RegExp]>) {
    const ran = await runBin(juryBin, args, { cwd: repo, env: verifyEnv() });
    assert.is(ran.code, 2, args.join(' '));
    assert.match(ran.stderr, message);
  }
});

cli.run();
