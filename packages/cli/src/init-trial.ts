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

const pass = (reason: string) => ({ answer: { verdict: 'PASS', reason } });

export function trialFiles(issue: number, issuePath: string): { path: string; what: string; content: string }[] {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const scripted = (script: string) => ({ plugin: 'scripted', script });
  const developer = {
    family: 'try_developer',
    moves: [
      {
        edits: [{ path: `${CODE_DIR}/greet.test.mjs`, content: TEST }],
        answer: 'Wrote a failing test: greet("Ada") is "Hello, Ada!".',
      },
      { edits: [{ path: `${CODE_DIR}/greet.mjs`, content: GREEN }], answer: 'greet joins the words.' },
      { edits: [{ path: `${CODE_DIR}/greet.mjs`, content: REFACTOR }], answer: 'A template string and a doc comment.' },
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
  const dir = TRIAL_AGENTS_DIR;
  return [
    {
      path: `${dir}/.gitignore`,
      what: 'trial (ignores its folder)',
      content: "# leap init --try's scripted agents: never part of the project.\n*\n",
    },
    {
      path: `${dir}/agents.json`,
      what: 'trial agents file',
      content: json({
        agents: {
          planner: scripted('planner.json'),
          developer: scripted('developer.json'),
          verifier: scripted('verifier.json'),
        },
      }),
    },
    {
      path: `${dir}/planner.json`,
      what: 'trial planner moves',
      content: json({ family: 'try_developer', moves: [{ answer: plan }] }),
    },
    { path: `${dir}/developer.json`, what: 'trial developer moves', content: json(developer) },
    { path: `${dir}/verifier.json`, what: 'trial verifier moves', content: json(verifier) },
    { path: `${CODE_DIR}/greet.mjs`, what: 'trial code to grow', content: STUB },
    { path: issuePath, what: `trial issue ${issue}`, content: `# ${TRIAL_TITLE}\n\n${trialIssueText()}` },
  ];
}

function trialIssueText(): string {
  return `Tried with scripted agents that replay prepared moves (leap init --try): the conductor plans one step,
has a failing test written, verified blind, made to pass, verified, refactored and verified, committing each
phase on branch leap/issue-N. Nothing here calls a model. Delete leap-try/ and .leap-try/ when done.

## Acceptance criteria
- [ ] greet(name) says "Hello, NAME!"
`;
}
