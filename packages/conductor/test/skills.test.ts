// The skills (skills/*/SKILL.md): Claude Code's format, a page long, and every command they name answers
// --help through the built umbrella bin with every option they name. Build first:
// npm run build -w @leap/conductor && npm run build -w @leap/cli.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, makeGitRepo, repoRoot, runBin } from '@leap/test-utils';

const SKILLS = join(repoRoot, 'skills');
const LEAP = join(repoRoot, 'packages', 'cli', 'dist', 'bin', 'leap.cjs');
// Commands of the umbrella that take an action word (`leap tdd run`, `leap slice new`, `leap ball hash`).
const GROUPS = new Set(['tdd', 'slice', 'ball']);

interface Skill {
  dir: string;
  text: string;
  frontmatter: Record<string, string>;
  body: string;
}

/** Split a SKILL.md into its YAML frontmatter (one `key: value` a line, as these skills write it) and its body. */
function readSkill(dir: string): Skill {
  const text = readFileSync(join(SKILLS, dir, 'SKILL.md'), 'utf8');
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (match === null) throw new Error(`skills/${dir}/SKILL.md: expected a frontmatter between "---" lines first`);
  const frontmatter: Record<string, string> = {};
  for (const line of (match[1] as string).split('\n')) {
    const kv = /^([a-z-]+): (.+)$/.exec(line);
    if (kv === null) throw new Error(`skills/${dir}/SKILL.md: expected "key: value", found ${JSON.stringify(line)}`);
    frontmatter[kv[1] as string] = kv[2] as string;
  }
  return { dir, text, frontmatter, body: match[2] as string };
}

/** Every `leap ...` command line of the skill: lines of its fenced blocks and its inline code spans. */
function commandLines(body: string): string[] {
  const lines: string[] = [];
  for (const block of body.matchAll(/```[a-z]*\n([\s\S]*?)```/g)) lines.push(...(block[1] as string).split('\n'));
  for (const span of body.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)) lines.push(span[1] as string);
  return lines.map((l) => l.replace(/^.*?(?=\bleap )/, '')).filter((l) => /^leap [a-z]/.test(l));
}

/** The command a line names: `leap WORD`, or `leap GROUP ACTION`. */
function commandOf(line: string): string {
  const words = line.split(/\s+/);
  const first = words[1] as string;
  const second = words[2];
  return GROUPS.has(first) && second !== undefined && /^[a-z]+$/.test(second)
    ? `leap ${first} ${second}`
    : `leap ${first}`;
}

const skills = readdirSync(SKILLS, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => readSkill(e.name));

// ---
const format = suite('skill format');

format('both skills exist: tdd (the conductor) and leap (slices)', () => {
  assert.equal(skills.map((s) => s.dir).sort(), ['leap', 'tdd']);
});

format("frontmatter: a name that is the folder's, a description with its trigger words, nothing else", () => {
  const triggers: Record<string, string[]> = {
    tdd: ['leap tdd run --issue N', 'issue', 'test-first', 'resume', 'stop', 'bailed', '/tdd'],
    leap: ['slice', 'ball', 'parallel', 'worktrees', 'jury', 'resume', 'hash'],
  };
  for (const skill of skills) {
    const { name, description } = skill.frontmatter;
    assert.equal(Object.keys(skill.frontmatter).sort(), ['description', 'name'], skill.dir);
    assert.is(name, skill.dir);
    assert.ok(
      /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name as string) && (name as string).length <= 64,
      `a name of lowercase words and dashes: ${name}`,
    );
    assert.ok(
      description !== undefined && description.length > 40 && description.length <= 1024,
      `a description of at most 1024 characters: ${description?.length}`,
    );
    assert.match(description as string, /\bUse when\b/, 'it says when to use it');
    for (const word of triggers[skill.dir] ?? [])
      assert.ok((description as string).includes(word), `${skill.dir}: the description names ${JSON.stringify(word)}`);
    // YAML: a plain scalar must not hold ": " or start with a quote or an indicator.
    assert.not.match(description as string, /: | #|^["'&*!|>%@`]/, 'a plain YAML scalar');
  }
});

format('each skill is a page, not 16 KB, and says when to use it', () => {
  for (const skill of skills) {
    assert.ok(
      Buffer.byteLength(skill.text) <= 5000,
      `skills/${skill.dir}/SKILL.md is ${Buffer.byteLength(skill.text)} bytes`,
    );
    assert.match(skill.body, /^## When to use it$/m);
  }
});

format('the tdd skill says how to read the result: every exit code and every bail cause of CONTRACT section 9', () => {
  const tdd = skills.find((s) => s.dir === 'tdd') as Skill;
  for (const code of ['0', '1', '2', '3']) assert.match(tdd.body, new RegExp(`^\\| ${code} \\|`, 'm'));
  const causes = [
    'needs-user',
    'revision-budget',
    'baseline-red',
    'dirty-tree',
    'commit-refused',
    'cost-budget',
    'killed-external',
    'killed-timeout',
    'killed-stuck',
    'agent-missing',
    'agent-failed',
  ];
  for (const cause of causes) assert.ok(tdd.body.includes(`\`${cause}\``), `names ${cause}`);
  assert.match(tdd.body, /bail: CAUSE \(CLASS\)/);
  for (const mode of ['at-ledger', 'at-leaf', 'now'])
    assert.ok(tdd.body.includes(`\`${mode}\``), `names stop mode ${mode}`);
});

// ---
const commands = suite('the commands the skills name');

commands(
  'every command answers --help through the built leap bin, and knows every option the skill gives it',
  async () => {
    assert.ok(existsSync(LEAP), `${LEAP} is missing: npm run build -w @leap/conductor && npm run build -w @leap/cli`);
    const named = new Map<string, Set<string>>();
    for (const skill of skills) {
      for (const line of commandLines(skill.body)) {
        const command = commandOf(line);
        const options = named.get(command) ?? new Set<string>();
        for (const option of line.matchAll(/(?<=\s)--[a-z][a-z-]*/g)) options.add(option[0]);
        named.set(command, options);
      }
    }
    const expected = [
      'leap ball check',
      'leap ball hash',
      'leap demo',
      'leap slice clean',
      'leap slice new',
      'leap slice plan',
      'leap slice run',
      'leap slice status',
      'leap slice validate',
      'leap tdd',
      'leap tdd run',
      'leap tdd status',
      'leap tdd stop',
    ];
    assert.equal([...named.keys()].sort(), expected);
    const helps = new Map<string, string>();
    for (const [command, options] of named) {
      const ran = await runBin(LEAP, [...command.split(' ').slice(1), '--help']);
      assert.is(ran.code, 0, `${command} --help: ${ran.stderr}`);
      assert.match(ran.stdout, `Usage: ${command}`, `${command} --help prints its usage`);
      for (const option of options)
        assert.ok(ran.stdout.includes(option), `${command} --help names ${option}, as the skill does`);
      helps.set(command, ran.stdout);
    }
    // An option the prose of a skill names belongs to one of the commands that skill names.
    for (const skill of skills) {
      const mine = [...new Set(commandLines(skill.body).map(commandOf))].map((c) => helps.get(c) ?? '').join('\n');
      for (const option of skill.body.matchAll(/`(--[a-z][a-z-]*)/g)) {
        assert.ok(
          mine.includes(option[1] as string),
          `skills/${skill.dir}: ${option[1]} is an option of none of its commands`,
        );
      }
    }
  },
);

commands('the leap skill\'s "Cut and check" block runs as written in a repository', async () => {
  const leap = skills.find((s) => s.dir === 'leap') as Skill;
  const block = /## Cut and check\n```sh\n([\s\S]*?)```/.exec(leap.body)?.[1] ?? '';
  const lines = block.trim().split('\n');
  assert.is(lines.length, 5);
  const repo = makeGitRepo({ files: { 'src/lexer.js': 'export const tokens = (s) => s.split(/\\s+/);\n' } });
  try {
    for (const line of lines) {
      assert.not.match(line, /['"$`\\]/, 'plain words: split on blanks as a shell would');
      const ran = await runBin(LEAP, line.split(/\s+/).slice(1), { cwd: repo });
      assert.is(ran.code, 0, `${line}: ${ran.stdout}${ran.stderr}`);
    }
    assert.match(readFileSync(join(repo, 'slice.json'), 'utf8'), '"id": "split-parser"');
  } finally {
    cleanupTempDirs();
  }
});

format.run();
commands.run();
