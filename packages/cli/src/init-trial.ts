// `leap init --try`: scripted agents (no model or network) on its own folder, node-tested; entries named by role.

/** The trial's folders: its agents and moves (ignored by git), and the code it grows (tracked, on the run's branch). */
export const TRIAL_AGENTS_DIR = '.leap-try';
const CODE_DIR = 'leap-try';
/** The trial run's own test command: node's runner over its folder, whatever the project's tests are. */
export const TRIAL_TEST_CMD = `node --test ${CODE_DIR}/`;
const TRIAL_TITLE = 'Try the loop: a greeting';

const TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { greet } from './greet.mjs';

test('greets by name', () => assert.equal(greet('Ada'), 'Hello, Ada!'));
`;
const HEADER =
  "// leap init --try's sample: a greeting grown test-first by scripted agents. Delete leap-try/ when done.\n";
const STUB = `${HEADER}export function greet(name) {\n  return '';\n}\n`;
const GREEN = `${HEADER}export function greet(name) {\n  return 'Hello, ' + name + '!';\n}\n`;
const REFACTOR = `${HEADER}/** "Hello, NAME!" */\nexport function greet(name) {\n  return \`Hello, \${name}!\`;\n}\n`;
const IGNORE = "# leap init --try's scripted agents: never part of the project.\n*\n";
const ISSUE = `# ${TRIAL_TITLE}

Tried with scripted agents that replay prepared moves (leap init --try): the conductor plans one step,
has a failing test written, verified blind, made to pass, verified, refactored and verified, committing each
phase on branch leap/issue-N. Nothing here calls a model. Delete leap-try/ and .leap-try/ when done.

## Acceptance criteria
- [ ] greet(name) says "Hello, NAME!"
`;

export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const move = (to: string, content: string, answer: string) => ({ edits: [{ path: CODE_DIR + to, content }], answer });
const pass = (reason: string) => ({ answer: { verdict: 'PASS', reason } });

export function trialFiles(issue: number, issuePath: string): { path: string; what: string; content: string }[] {
  const developer = {
    family: 'try_developer',
    moves: [
      move('/greet.test.mjs', TEST, 'Wrote a failing test: greet("Ada") is "Hello, Ada!".'),
      move('/greet.mjs', GREEN, 'greet joins the words.'),
      move('/greet.mjs', REFACTOR, 'A template string and a doc comment.'),
    ],
  };
  const verifier = {
    family: 'try_verifier',
    moves: [
      pass('The test pins the greeting and fails on the stub.'),
      pass('The test passes, unchanged.'),
      pass('Behaviour kept; the test untouched.'),
    ],
  };
  const plan = `${TRIAL_TITLE}\ngreet(name) says "Hello, NAME!" (criterion 1)\n`;
  const roles = ['planner', 'developer', 'verifier'];
  const agents = Object.fromEntries(roles.map((role) => [role, { plugin: 'scripted', script: `${role}.json` }]));
  const planner = { family: 'try_developer', moves: [{ answer: plan }] };
  const file = (path: string, what: string, content: string) => ({ path, what, content });
  const dir = TRIAL_AGENTS_DIR;
  return [
    file(`${dir}/.gitignore`, 'trial (ignores its folder)', IGNORE),
    file(`${dir}/agents.json`, 'trial agents file', json({ agents })),
    file(`${dir}/planner.json`, 'trial planner moves', json(planner)),
    file(`${dir}/developer.json`, 'trial developer moves', json(developer)),
    file(`${dir}/verifier.json`, 'trial verifier moves', json(verifier)),
    file(`${CODE_DIR}/greet.mjs`, 'trial code to grow', STUB),
    file(issuePath, `trial issue ${issue}`, ISSUE),
  ];
}
