#!/usr/bin/env node
// The weight of the tree (issue 41), measured and held: product lines, lines over 120 columns, modules over 300
// lines, functions over 80, Markdown bytes, README and ARCHITECTURE sizes. Each figure has a target and a ceiling
// (tools/weight-budget.json): over its ceiling and its target fails; --write-ceilings lowers each ceiling to the
// figure when a change cuts below it, and never raises one.
//
//   node tools/weight.mjs [--json] [--write-ceilings] [--budget FILE]
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const budgetAt = process.argv.indexOf('--budget');
const budgetFile = budgetAt > 0 ? process.argv[budgetAt + 1] : join(root, 'tools/weight-budget.json');
// The tree as it will be committed: tracked and new files, not ignored ones nor those deleted and not yet committed.
const tracked = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
  .toString('utf8')
  .split('\0')
  .filter((path) => path !== '' && existsSync(join(root, path)));

const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** Product code as issue 41 counts it: sources of packages and plugins, not tests, fixtures, builds or bin shims. */
export const isProduct = (path) =>
  /^(packages|plugins)\//.test(path) &&
  CODE.test(path) &&
  !/(^|\/)(test|tests|fixtures|dist|coverage)\//.test(path) &&
  !/\.test\./.test(path) &&
  !path.startsWith('packages/test-utils/') &&
  !/\/bin\/[^/]*\.cjs$/.test(path);
/** Markdown that counts: every tracked .md but recorded fixtures (an agent's transcript, a test's input). */
const isCountedMarkdown = (path) => path.endsWith('.md') && !/(^|\/)(fixtures|recorded)\//.test(path);

function functionSpans(path, text) {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const from = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const to = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name?.getText(source) ?? ts.SyntaxKind[node.kind];
      out.push({ at: `${path}:${from + 1}`, name, lines: to - from + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

export function measure() {
  const product = tracked.filter(isProduct);
  let lines = 0;
  const wide = [];
  const bigModules = [];
  const bigFunctions = [];
  for (const path of product) {
    const text = readFileSync(join(root, path), 'utf8');
    const rows = text.split('\n');
    if (rows.at(-1) === '') rows.pop();
    lines += rows.length;
    rows.forEach((row, i) => {
      if (row.length > 120) wide.push(`${path}:${i + 1}`);
    });
    if (rows.length > 300) bigModules.push(`${path} (${rows.length})`);
    for (const f of functionSpans(path, text)) if (f.lines > 80) bigFunctions.push(`${f.at} ${f.name} (${f.lines})`);
  }
  const size = (path) => readFileSync(join(root, path)).length;
  const markdown = tracked.filter(isCountedMarkdown);
  const packageReadmes = tracked.filter((p) => /^(packages|plugins)\/[^/]+\/README\.md$/.test(p));
  const biggestReadme = packageReadmes.map((p) => [p, size(p)]).sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  return {
    figures: {
      'product lines': lines,
      'product lines over 120 columns': wide.length,
      'modules over 300 lines': bigModules.length,
      'functions over 80 lines': bigFunctions.length,
      'Markdown bytes': markdown.reduce((n, p) => n + size(p), 0),
      'README.md lines': readFileSync(join(root, 'README.md'), 'utf8').split('\n').length,
      'largest package README bytes': biggestReadme[1],
      'ARCHITECTURE.md bytes': size('ARCHITECTURE.md'),
    },
    where: { wide: wide.slice(0, 20), bigModules, bigFunctions, biggestReadme: biggestReadme[0] },
  };
}

function main(argv) {
  if (argv.includes('-h') || argv.includes('--help')) {
    process.stdout.write(
      'Usage: node tools/weight.mjs [--json] [--write-ceilings] [--budget FILE]\nMeasures the tree against tools/weight-budget.json: exit 1 when a figure is over its ceiling.\n',
    );
    return 0;
  }
  const budget = JSON.parse(readFileSync(budgetFile, 'utf8'));
  const { figures, where } = measure();
  if (argv.includes('--write-ceilings')) {
    for (const [name, value] of Object.entries(figures))
      budget[name].ceiling = Math.min(budget[name].ceiling ?? value, value);
    writeFileSync(budgetFile, `${JSON.stringify(budget, null, 2)}\n`);
  }
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ figures, budget, where }, null, 2)}\n`);
  }
  let over = 0;
  for (const [name, value] of Object.entries(figures)) {
    const { target, ceiling } = budget[name] ?? {};
    if (target === undefined || ceiling === undefined) {
      process.stderr.write(`weight: ${name} has no target and ceiling in tools/weight-budget.json\n`);
      return 2;
    }
    const state = value <= target ? 'on target' : value > ceiling ? 'OVER ITS CEILING' : `ceiling ${ceiling}`;
    if (value > target && value > ceiling) over++;
    if (!argv.includes('--json'))
      process.stdout.write(
        `${name.padEnd(32)} ${String(value).padStart(7)}  target ${String(target).padStart(6)}  ${state}\n`,
      );
  }
  if (over > 0) {
    process.stderr.write(
      `weight: ${over} figure(s) over their ceiling; cut, do not raise (tools/weight-budget.json). Largest:\n`,
    );
    for (const line of [...where.bigModules, ...where.bigFunctions].slice(0, 10)) process.stderr.write(`  ${line}\n`);
  }
  return over === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
