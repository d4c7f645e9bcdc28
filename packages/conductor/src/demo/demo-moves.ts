// The demo's moves, replayed in order by @leap/agent-scripted; one green special-cases its tests, is rejected, revised.
import { testFile } from './sample-project.js';

export interface DemoMove {
  edits?: { path: string; content: string }[];
  commit?: string;
  answer: string | { verdict: 'PASS' | 'REJECT'; reason: string };
}

/** In `leap-ledger init`'s plan format; step 2's title carries ' " $ ` as data. */
export const DEMO_PLAN = `Slugify step titles
Lowercase the words and join them with dashes (criterion 1)
Drop characters like ' " $ \` that are not letters or digits (criterion 2)
Cut slugs longer than 20 characters at a dash (criterion 3)
`;

const WORDS_V1 = 'const words = (text) => text.split(/\\s+/).filter(Boolean);\n\n';
const WORDS_V2 =
  '// Letters and digits make words; everything else separates them, except apostrophes, which vanish.\n' +
  "const words = (text) => text.replace(/'/g, '').split(/[^\\p{L}\\p{N}]+/u).filter(Boolean);\n\n";

/** Step N's failing test, the red leaf's one edit. */
const red = (n: number, body: string): DemoMove => ({
  edits: [{ path: `test/step${n}.test.js`, content: testFile(body) }],
  answer: `Wrote a failing test for criterion ${n}.`,
});
/** A green or refactor leaf: src/slug.js as `body` makes it. */
const code = (body: string, answer: string): DemoMove => ({
  edits: [{ path: 'src/slug.js', content: `// Step titles to URL slugs.\n${body}` }],
  answer,
});

/** The developer's leaves, in launch order: red, green (twice for step 2), refactor, per step. */
export const DEVELOPER_MOVES: DemoMove[] = [
  red(
    1,
    "test('lowercases and joins with single dashes', () => assert.equal(slugify('Hello  Big World'), " +
      "'hello-big-world'));",
  ),
  code(
    "export function slugify(title) {\n  return title.toLowerCase().split(/\\s+/).filter(Boolean).join('-');\n}\n",
    'Lowercased, split on blanks, joined with dashes.',
  ),
  code(
    `${WORDS_V1}export function slugify(title) {\n  return words(title.toLowerCase()).join('-');\n}\n`,
    'Extracted words().',
  ),
  // step 2: the first green special-cases the test's inputs; the verifier rejects it
  red(
    2,
    "test('drops what is not a letter or digit, keeps accents', () => {\n" +
      "  assert.equal(slugify(\"It's $(x) `y`\"), 'its-x-y');\n" +
      "  assert.equal(slugify('Crème brûlée'), 'crème-brûlée');\n});",
  ),
  code(
    `${WORDS_V1}export function slugify(title) {\n  if (title === "It's $(x) \`y\`") return 'its-x-y';\n` +
      `  return words(title.toLowerCase()).join('-');\n}\n`,
    'Made the test pass.',
  ),
  code(
    `${WORDS_V2}export function slugify(title) {\n  return words(title.toLowerCase()).join('-');\n}\n`,
    'Split on every run of characters that are not letters or digits; apostrophes vanish.',
  ),
  code(
    `${WORDS_V2}/** Lowercase words joined with single dashes. */\nexport function slugify(title) {\n` +
      `  return words(title.toLowerCase()).join('-');\n}\n`,
    'Documented slugify.',
  ),
  red(
    3,
    "test('cuts at the last dash within 20 characters', () => {\n" +
      "  assert.equal(slugify('one two three four five six'), 'one-two-three-four');\n" +
      "  assert.equal(slugify('short title'), 'short-title');\n});",
  ),
  code(
    `${WORDS_V2}/** Lowercase words joined with single dashes. */\nexport function slugify(title) {\n` +
      `  const slug = words(title.toLowerCase()).join('-');\n  if (slug.length <= 20) return slug;\n` +
      `  const cut = slug.slice(0, 21).lastIndexOf('-');\n` +
      `  return cut > 0 ? slug.slice(0, cut) : slug.slice(0, 20);\n}\n`,
    'Cut at the last dash within 20 characters.',
  ),
  code(
    `${WORDS_V2}const MAX = 20;\n\n// At most MAX characters, cut at a dash when there is one.\n` +
      `const cut = (slug) => {\n  if (slug.length <= MAX) return slug;\n` +
      `  const at = slug.slice(0, MAX + 1).lastIndexOf('-');\n` +
      `  return at > 0 ? slug.slice(0, at) : slug.slice(0, MAX);\n};\n\n` +
      `/** Lowercase words joined with single dashes, at most MAX characters. */\n` +
      `export function slugify(title) {\n  return cut(words(title.toLowerCase()).join('-'));\n}\n`,
    'Extracted cut() and named the limit.',
  ),
];

const pass = (reason: string): DemoMove => ({ answer: { verdict: 'PASS', reason } });

/** The reason of the demo's one REJECT: it reaches the revision leaf, never the developer's own words. */
export const DEMO_REJECT_REASON =
  'The green special-cases the test\'s input "It\'s $(x) `y`" instead of dropping what is not a letter or ' +
  'digit: "a.b" still gives "a.b".';

/** The verifier's answers: red, green, refactor per step, with step 2's rejected green and its revision. */
export const VERIFIER_MOVES: DemoMove[] = [
  pass('The test pins criterion 1 and fails only because slugify returns its input.'),
  pass('The suite passes and the step test is unchanged.'),
  pass('Behaviour kept; tests untouched.'),
  pass('The test pins criterion 2, accents included.'),
  { answer: { verdict: 'REJECT', reason: DEMO_REJECT_REASON } },
  pass('Every character that is not a letter or digit separates words now; the test is unchanged.'),
  pass('A comment only; tests untouched.'),
  pass("The test pins criterion 3 with the issue's example and a short title."),
  pass('The suite passes and the step test is unchanged.'),
  pass('Behaviour kept; tests untouched.'),
];
