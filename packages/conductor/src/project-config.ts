// leap.config.json's values as run options (core owns its schema and reader); options win over it.
import { resolve } from 'node:path';
import type { ProjectConfig } from '@leap/core/schemas';
import type { RecordedOptions } from './run-options.js';

export {
  PROJECT_CONFIG_FILE,
  projectConfigJsonSchema,
  projectConfigSchema,
  readProjectConfig,
} from '@leap/core/schemas';
export type { ProjectConfig } from '@leap/core/schemas';

/** The config's values as run options (the agents file made absolute, from the repository root). */
export function configOptions(config: ProjectConfig, root: string): RecordedOptions {
  const options: RecordedOptions = {};
  if (config.testCommand !== undefined) options.testCmd = config.testCommand;
  if (config.testFiles !== undefined) options.tests = config.testFiles;
  if (config.agents !== undefined) options.agentsFile = resolve(root, config.agents);
  if (config.developer !== undefined) options.developer = config.developer;
  if (config.verifier !== undefined) options.verifier = config.verifier;
  if (config.planner !== undefined) options.planner = config.planner;
  if (config.timeout !== undefined) options.timeout = String(config.timeout);
  if (config.idleTimeout !== undefined) options.idleTimeout = String(config.idleTimeout);
  if (config.notify !== undefined) options.notify = config.notify;
  return options;
}
