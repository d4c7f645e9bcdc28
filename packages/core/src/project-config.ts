// leap.config.json (CONTRACT section 9): one reader; its zod schema is the source of the published JSON Schema.
import { join } from 'node:path';
import { z } from 'zod';
import { UsageError, didYouMean } from './errors.js';
import { parseDuration } from './duration.js';
import { toPublishedSchema } from './validator-module.js';
import { isJsonObject, keyLineColumn, parseJsonText, readFileIfExists } from './read-file.js';

const duration = z
  .union([z.string(), z.number().nonnegative()])
  .describe('DURATION: 90, "90s", "15m", "1h" (a number is seconds)');
const name = z.string().min(1);

export const projectConfigSchema = z.strictObject({
  $schema: z.string().optional().describe('The JSON Schema this file follows (editors read it).'),
  testCommand: z.string().min(1).optional().describe('The test command (as --test-cmd), run with bash -c.'),
  testFiles: z
    .array(z.string().min(1))
    .optional()
    .describe('Globs of files that hold tests, beside the built-in conventions (as --tests), e.g. "src/**/*.rs".'),
  agents: z.string().min(1).optional().describe('The agents file, relative to the repository root (as --agents).'),
  developer: name
    .optional()
    .describe(
      'The developer agent (as --developer): a name, or names separated by commas, ' +
        'tried in order when a vendor runs dry.',
    ),
  verifier: name.optional().describe('The verifier agent (as --verifier): a name, or a comma list.'),
  planner: name.optional().describe('The planner agent (as --planner): a name, or a comma list.'),
  timeout: duration.optional().describe("Each leaf's time limit (as --timeout)."),
  idleTimeout: duration
    .optional()
    .describe('A leaf with no output and no CPU progress this long is killed-stuck (as --idle-timeout; 0 is off).'),
  sandbox: z.enum(['on', 'off']).optional().describe('Whether leaves and suite runs are sandboxed (as --sandbox).'),
  testNetwork: z.boolean().optional().describe("Whether the toolchain's suite runs have the network (default false)."),
  notify: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('An argv run on done, bail, stop and cost-budget, the event as JSON on stdin (as --notify).'),
});

export type ProjectConfig = z.infer<typeof projectConfigSchema>;
export const PROJECT_CONFIG_FILE = 'leap.config.json';

/** Null when there is none; bad values and unknown keys are all said at once, each at its key's line and column. */
export function readProjectConfig(root: string): { file: string; config: ProjectConfig } | null {
  const file = join(root, PROJECT_CONFIG_FILE);
  const text = readFileIfExists(file);
  if (text === null) return null;
  const data = parseJsonText(file, text);
  const parsed = projectConfigSchema.safeParse(data);
  const problems: { line: number; column: number; text: string }[] = [];
  const at = (key: string, message: string): void => {
    const { line, column } = keyLineColumn(text, key);
    problems.push({ line, column, text: `${file}:${line}:${column}: ${message}` });
  };
  const keys = Object.keys(projectConfigSchema.shape).filter((k) => k !== '$schema');
  for (const issue of parsed.success ? [] : parsed.error.issues) {
    const key = String(issue.path[0] ?? '');
    if (issue.code !== 'unrecognized_keys')
      at(key, `${key === '' ? 'the file' : `"${issue.path.map(String).join('.')}"`}: ${issue.message}`);
    else
      for (const k of issue.keys)
        at(k, `unknown key ${JSON.stringify(k)}${didYouMean(k, keys)}: expected only ${keys.join(', ')}`);
  }
  for (const key of ['timeout', 'idleTimeout'] as const) {
    const value = isJsonObject(data) ? data[key] : undefined;
    try {
      if (typeof value === 'string') parseDuration(`"${key}"`, value);
    } catch (error) {
      at(key, (error as Error).message);
    }
  }
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  if (problems.length > 0 || !parsed.success) throw new UsageError(problems.map((p) => p.text).join('\n'));
  return { file, config: parsed.data };
}

/** The published JSON Schema of leap.config.json (schemas/leap-config.schema.json, written by the build). */
export const projectConfigJsonSchema = (): Record<string, unknown> =>
  toPublishedSchema(projectConfigSchema, 'https://leap.dev/schemas/leap-config.schema.json', 'leap.config.json');
