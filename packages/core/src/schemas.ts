// `@leap/core/schemas`: zod and ajv, apart so hot commands never load them.
export { eventSchema } from './events/event-schema.js';
export {
  collapseNullable,
  renderSchemaFile,
  toPublishedSchema,
  writeGenerated,
  writeSchemaFiles,
} from './json-schema.js';
export { compileJsonSchema } from './validate-json.js';
export { renderValidatorModule } from './validator-module.js';
export { PROJECT_CONFIG_FILE, type ProjectConfig, projectConfigJsonSchema } from './project-config.js';
export { projectConfigSchema, readProjectConfig } from './project-config.js';
