// `@leap/core/schemas`: zod and ajv, apart so hot commands never load them.
export { eventSchema } from './events/event-schema.js';
export { compileJsonSchema } from './validate-json.js';
export * from './validator-module.js';
export * from './project-config.js';
