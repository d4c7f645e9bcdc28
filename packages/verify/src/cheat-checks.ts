// The cheating moves a diff shows, refused before any suite run (CONTRACT section 9); PROJECT_CONFIG_FILE is core's.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gitOrNull, gitStdout } from './git.js';
import { hasInlineTests, isTestFile, splitTestItems } from './test-files.js';
import { orElse, splitNul } from '@leap/core';

export const PROJECT_CONFIG_FILE = 'leap.config.json';

const MARKERS: readonly RegExp[] = [
  /\b(?:describe|it|test|suite|context|specify)(?:\.concurrent)?\.(?:skip|only|todo|fails|failing|skipIf|runIf)\b/,
  /\b(?:x(?:it|describe|test|context)|f(?:it|describe))\s*\(/,
  /\b(?:this|t)\.(?:skip|todo)\s*\(/,
  /\bpytest\.mark\.(?:skip|skipif|xfail)\b|\bpytest\.(?:skip|xfail|importorskip)\s*\(/,
  /(?:@|\bunittest\.)(?:skip|skipIf|skipUnless|expectedFailure)\b|\bSkipTest\b|\.skipTest\s*\(/,
  /#\[\s*(?:ignore|should_panic)\b/,
  /\bt\.Skip(?:Now|f)?\s*\(|^\/\/\s*(?:go:build|\+build)\s+ignore\b/,
];

const FRAMEWORK_HOLDS: readonly RegExp[] = [
  /(?:from\s+|require\(\s*|import\s*\(\s*)['"](?:node:test|vitest|@jest\/globals|mocha|ava|uvu|tap)['"]/,
  /^\s*(?:import|from)\s+(?:unittest|pytest|_pytest|nose2?)\b/,
  /^\s*(?:import\s+)?(?:\w+\s+)?"testing"\s*$/,
  /\b(?:assert|expect|unittest|globalThis\.(?:it|test|describe))(?:\.\w+)*\s*=(?!=)/,
];

// The runners' configuration files (paths); `sections`: only the parts of the file that concern the tests.
const RUNNER_CONFIGS: readonly { path: RegExp; sections?: RegExp }[] = [
  { path: /(?:^|\/)(?:vitest|vite|jest|ava|karma|playwright)\.(?:config|workspace)\.[cm]?[jt]s(?:on)?$/ },
  { path: /(?:^|\/)(?:\.mocharc\.(?:[cm]?js|jsonc?|ya?ml)|\.babelrc|babel\.config\.[cm]?js(?:on)?)$/ },
  { path: /(?:^|\/)(?:\.?pytest\.ini|tox\.ini|noxfile\.py|go\.work|\.cargo\/config(?:\.toml)?)$/ },
  { path: /(?:^|\/)setup\.cfg$/, sections: /pytest/ },
  { path: /(?:^|\/)pyproject\.toml$/, sections: /^tool\.(?:pytest|tox|hatch\.envs|poe)/ },
  { path: /(?:^|\/)Cargo\.toml$/, sections: /^(?:features|lib|\[test\]|workspace)$/ },
];
const BUILD_SCRIPTS = /(?:^|\/)(?:GNUmakefile|[Mm]akefile|justfile|Taskfile\.ya?ml)$/;
type Changes = { repo: string; base: string; changed: readonly string[]; testCmd: string; step?: string };
export type PhaseChanges = Changes & { isTest: (path: string) => boolean };

/** Tracked files that differ from `commit` in the work tree, and untracked ones; `commit` HEAD: one `git status`. */
export function changedSince(repo: string, commit: string, paths?: readonly string[], head?: string): string[] {
  const limit = paths === undefined ? [] : ['--', ...paths];
  if (commit === head) {
    const all = ['--untracked-files=all', '--no-renames'];
    const status = gitStdout(repo, ['status', '--porcelain=v1', '-z', ...all, ...limit]);
    return [...new Set(splitNul(status).map((entry) => entry.slice(3)))];
  }
  const tracked = splitNul(gitStdout(repo, ['diff', '--no-renames', '--name-only', '-z', commit, ...limit]));
  const untracked = splitNul(gitStdout(repo, ['ls-files', '-z', '--others', '--exclude-standard', ...limit]));
  return [...new Set([...tracked, ...untracked])];
}

export function testsChanged(repo: string, commit: string, paths: readonly string[]): string[] {
  const items = (text: string) => splitTestItems(text).tests;
  const inline = (path: string) => hasInlineTests(path, isTestFile(path));
  return paths.filter((path) => !inline(path) || items(blobText(repo, commit, path)) !== items(workText(repo, path)));
}

export function configChanged(changes: PhaseChanges): string | null {
  if (!changes.changed.includes(PROJECT_CONFIG_FILE)) return null;
  const whose = "the test command and the run's settings are the user's, never an agent's to change";
  return `${PROJECT_CONFIG_FILE} changed: ${whose}`;
}

export function markersAdded(changes: PhaseChanges, paths: readonly string[]): string[] {
  return addedLines(changes, paths).flatMap(({ path, line, text }) => {
    const marker = MARKERS.map((re) => re.exec(text)?.[0]).find((m) => m !== undefined);
    return marker === undefined ? [] : [`${path}:${line} adds the marker \`${marker.trim()}\``];
  });
}

export function codeMoves(changes: PhaseChanges): string[] {
  const named = (path: string) => changes.step !== undefined && namesFile(changes.step, path);
  const code = changes.changed.filter((path) => !changes.isTest(path) && path !== PROJECT_CONFIG_FILE && !named(path));
  const moves = addedLines(changes, code).flatMap(({ path, line, text }) => {
    const marker = MARKERS.map((re) => re.exec(text)?.[0]).find((m) => m !== undefined);
    if (marker !== undefined) return [`${path}:${line} adds the marker \`${marker.trim()}\``];
    const hold = FRAMEWORK_HOLDS.map((re) => re.exec(text)?.[0]).find((m) => m !== undefined);
    return hold === undefined ? [] : [`${path}:${line} takes hold of the test framework (\`${hold.trim()}\`)`];
  });
  const commandFiles = testCommandFiles(changes);
  const runners = code.map((path) => runnerFileChange(changes, path, commandFiles));
  return [...moves, ...runners.filter((why) => why !== null)];
}

function runnerFileChange(changes: PhaseChanges, path: string, commandFiles: Set<string>): string | null {
  const runs = `${path}, which the test command runs, changed`;
  if (commandFiles.has(path)) return runs;
  if (basename(path) === 'package.json') {
    const before = testParts(blobText(changes.repo, changes.base, path), changes.testCmd);
    const now = testParts(workText(changes.repo, path), changes.testCmd);
    return before === now ? null : `${path}'s test script or runner settings changed`;
  }
  if (BUILD_SCRIPTS.test(path) && /\b(?:make|just|task)\b/.test(changes.testCmd)) return runs;
  const config = RUNNER_CONFIGS.find((c) => c.path.test(path));
  if (config === undefined) return null;
  const part = (text: string) => (config.sections === undefined ? text : sectionsOf(text, config.sections));
  if (part(blobText(changes.repo, changes.base, path)) === part(workText(changes.repo, path))) return null;
  return `the runner's configuration ${path} changed`;
}

export function isRunnerFile(path: string): boolean {
  return basename(path) === 'package.json' || BUILD_SCRIPTS.test(path) || RUNNER_CONFIGS.some((c) => c.path.test(path));
}

// By its name as a word, or without its last extension when a dot is left (`vitest.config`); never inside a word.
function namesFile(step: string, path: string): boolean {
  const name = basename(path).toLowerCase();
  const stem = name.slice(0, name.lastIndexOf('.'));
  const escaped = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const word = (w: string) => new RegExp(`(?:^|[^\\w.-])${escaped(w)}(?![\\w-])`).test(step.toLowerCase());
  return word(name) || (stem.includes('.') && word(stem));
}

function sectionsOf(text: string, wanted: RegExp): string {
  let keep = false;
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const header = /^\s*\[(.+)\]\s*$/.exec(line);
    if (header !== null) keep = wanted.test((header[1] as string).trim());
    if (keep && line.trim() !== '' && !/^\s*[#;]/.test(line)) kept.push(line.trim());
  }
  return kept.join('\n');
}

// A package manager running a script: `npm test`, `npm run test:unit`, `yarn --silent test`.
const NPM_SCRIPT = /\b(?:npm|pnpm|yarn|bun)(?:\s+run(?:-script)?)?\s+(?:--\S+\s+)*([\w:.-]+)/g;

// package.json's parts that decide which tests run: scripts the test command reaches (pre, post, nested), runner keys.
function testParts(text: string, testCmd: string): string {
  const json = orElse(() => JSON.parse(text) as Record<string, unknown> | null, undefined);
  if (json == null || typeof json !== 'object' || Array.isArray(json)) return text;
  const scripts = (json.scripts ?? {}) as Record<string, unknown>;
  const reached = new Map<string, string>();
  const visit = (command: string) => {
    for (const [, name] of command.matchAll(NPM_SCRIPT)) {
      for (const key of [name === 't' ? 'test' : (name as string)].flatMap((n) => [`pre${n}`, n, `post${n}`])) {
        const script = scripts[key];
        if (reached.has(key) || typeof script !== 'string') continue;
        reached.set(key, script);
        visit(script);
      }
    }
  };
  visit(testCmd);
  const keys = ['jest', 'mocha', 'ava', 'vitest', 'c8', 'nyc'].map((k) => [k, json[k]]);
  return JSON.stringify([[...reached].sort(), keys]);
}

function testCommandFiles(changes: PhaseChanges): Set<string> {
  const words = changes.testCmd.split(/[\s;&|()<>=]+/).map((w) => w.replace(/^['"]|['"]$/g, '').replace(/^\.\//, ''));
  return new Set(words.filter((w) => w !== '' && changes.changed.includes(w)));
}

type AddedLine = { path: string; line: number; text: string };
function addedLines(changes: PhaseChanges, paths: readonly string[]): AddedLine[] {
  if (paths.length === 0) return [];
  const plain = ['--no-renames', '--no-color', '--no-ext-diff', '-U0'];
  const diff = gitStdout(changes.repo, ['diff', ...plain, changes.base, '--', ...paths]);
  const found: AddedLine[] = [];
  let path = '';
  let line = 0;
  const seen = new Set<string>();
  for (const text of diff.split('\n')) {
    if (text.startsWith('+++ ')) {
      path = text.startsWith('+++ b/') ? text.slice(6) : '';
      seen.add(path);
    } else if (text.startsWith('@@')) line = Number(/\+(\d+)/.exec(text)?.[1] ?? 0);
    else if (text.startsWith('+') && path !== '') found.push({ path, line: line++, text: text.slice(1) });
  }
  // A path the diff does not show is untracked (new: every line is added), or changed in its mode alone.
  for (const untracked of paths.filter((p) => !seen.has(p) && blobText(changes.repo, changes.base, p) === '')) {
    const lines = workText(changes.repo, untracked).split('\n');
    for (const [i, text] of lines.entries()) found.push({ path: untracked, line: i + 1, text });
  }
  return found;
}

export function blobText(repo: string, commit: string, path: string): string {
  return gitOrNull(repo, ['cat-file', 'blob', `${commit}:${path}`]) ?? '';
}

const workText = (repo: string, path: string) => orElse(() => readFileSync(join(repo, path), 'utf8'), '');
