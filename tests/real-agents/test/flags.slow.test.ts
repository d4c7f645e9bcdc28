// The version check: every flag a plugin passes (and every choice it picks) is still offered by the
// installed CLI's own --help. A CLI moved to a version that drops one fails here, naming the flag.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRole } from '@leap/core';
import { CACHE_ROOT, CLI_NAMES, PINNED, installedCli, type CliName } from './clis.js';
import { plugin } from './plugin.js';

const ROLES: AgentRole[] = ['developer', 'builder', 'verifier', 'reviewer', 'planner'];
const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { verdict: { enum: ['PASS', 'REJECT'] } },
};

/** The flags of `args` with the value each takes (null for a switch), as the CLI reads them. */
function flagsOf(args: string[]): { flag: string; value: string | null }[] {
  const flags: { flag: string; value: string | null }[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-') continue;
    const next = args[i + 1];
    const value = next !== undefined && !next.startsWith('-') ? next : null;
    flags.push({ flag: arg, value });
  }
  return flags;
}

/**
 * What `help` does not offer of `args`: each flag must appear as an option of the help text, and a
 * value must be one of the flag's listed choices when the help lists some (`choices: ...`,
 * `[possible values: ...]`).
 */
export function notOffered(help: string, args: string[]): string[] {
  const missing: string[] = [];
  const lines = help.split('\n');
  for (const { flag, value } of flagsOf(args)) {
    const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const at = lines.findIndex(
      (line) =>
        new RegExp(`^\\s*(-\\w, )?${escaped}([\\s,=<\\[]|$)`).test(line) ||
        new RegExp(`^\\s*-\\w,? ${escaped}([\\s,=<\\[]|$)`).test(line),
    );
    if (at === -1) {
      missing.push(flag);
      continue;
    }
    // The flag's entry: its line and the indented lines under it, up to the next option.
    let entry = lines[at]!;
    for (let i = at + 1; i < lines.length && !/^\s*-/.test(lines[i]!); i++) entry += `\n${lines[i]}`;
    const choices = /choices: ([^)]*)\)|\[possible values: ([^\]]*)\]/s.exec(entry);
    if (value !== null && choices !== null) {
      const listed = (choices[1] ?? choices[2] ?? '')
        .split(/[,\s]+/)
        .map((c) => c.replace(/^"|"$/g, ''))
        .filter((c) => c !== '');
      if (!listed.includes(value)) missing.push(`${flag} ${value}`);
    }
  }
  return missing;
}

const helps = new Map<string, string>();
let home: string | null = null;

// The CLI's help, asked once, in a HOME of its own (a CLI may write its settings folder on any start).
function helpOf(cli: CliName, sub: string[]): string {
  const key = [cli, ...sub].join(' ');
  const known = helps.get(key);
  if (known !== undefined) return known;
  mkdirSync(join(CACHE_ROOT, 'homes'), { recursive: true });
  home ??= mkdtempSync(join(CACHE_ROOT, 'homes', 'help-'));
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: home,
    CODEX_HOME: home,
    NO_COLOR: '1',
    FORCE_COLOR: undefined,
  };
  const help = execFileSync(join(installedCli(cli), PINNED[cli].bin), [...sub, '--help'], {
    encoding: 'utf8',
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  helps.set(key, help);
  return help;
}

test.after(() => {
  if (home !== null) rmSync(home, { recursive: true, force: true });
});

for (const cli of CLI_NAMES) {
  test(`${cli} ${PINNED[cli].version}: its --help offers every flag and choice the plugin passes, for every role`, () => {
    const agent = plugin(cli);
    const seen = new Set<string>();
    for (const role of ROLES) {
      // Inside the toolchain's sandbox too, where a CLI's own sandbox is off (codex: danger-full-access).
      for (const sandboxed of [false, true]) {
        const args = agent.buildInvocation('prompt', {
          role,
          cwd: '/repo',
          model: 'some-model',
          answerSchema: SCHEMA,
          sandboxed,
        }).args;
        // Codex's flags belong to its subcommand: `codex exec --help`.
        const sub = cli === 'codex' ? [args[0]!] : [];
        const missing = notOffered(helpOf(cli, sub), args.slice(sub.length));
        assert.equal(
          missing,
          [],
          `${PINNED[cli].pkg}@${PINNED[cli].version}: \`${[PINNED[cli].bin, ...sub].join(' ')} --help\` no longer offers ${missing.join(', ')}, which @leap/agent-${cli} passes for the ${role} role${sandboxed ? ' in the sandbox' : ''}`,
        );
        for (const { flag } of flagsOf(args)) seen.add(flag);
      }
    }
    assert.ok(seen.size >= 3, `the plugin's flags were checked: ${[...seen].join(' ')}`);
    const check = agent.preflight?.({ role: 'developer', cwd: '/repo' }) ?? null;
    if (cli === 'codex') {
      // The readiness check falls back on `codex login status`: that subcommand exists (its --help exits 0).
      assert.ok(
        check?.env?.LEAP_CODEX_READINESS?.includes("['login', 'status']"),
        'the check asks codex login status when the setup does not decide',
      );
      assert.match(helpOf(cli, ['login', 'status']), /Usage: codex login status/);
    } else {
      assert.is(check, null, `${cli} has no readiness check`);
    }
  });
}

test('the check names the flag a CLI no longer offers, and a choice it no longer lists', () => {
  const help = [
    'Options:',
    '  -p, --print            Print',
    '  --permission-mode <mode>  Mode (choices: "acceptEdits", "default")',
    '  --verbose  Verbose',
  ].join('\n');
  assert.equal(notOffered(help, ['-p', '--verbose']), []);
  assert.equal(notOffered(help, ['-p', '--json-schema', '{}', '--verbose']), ['--json-schema']);
  assert.equal(notOffered(help, ['--permission-mode', 'dontAsk']), ['--permission-mode dontAsk']);
  assert.equal(notOffered(help, ['--permission-mode', 'default']), []);
  const clap = [
    'Options:',
    '  -s, --sandbox <SANDBOX_MODE>',
    '          Select the sandbox',
    '          [possible values: read-only, workspace-write]',
    '      --json',
    '          Print events',
  ].join('\n');
  assert.equal(notOffered(clap, ['--json', '--sandbox', 'workspace-write']), []);
  assert.equal(notOffered(clap, ['--sandbox', 'danger-full-access', '--skip-git-repo-check']), [
    '--sandbox danger-full-access',
    '--skip-git-repo-check',
  ]);
});

test.run();
