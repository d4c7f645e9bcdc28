// `@leap/core/schemas`: zod, the event reader and ajv, apart so hot commands never load them.
export * from './events/event-schema.js';
export * from './events/read-events.js';
export * from './json-schema.js';
export * from './validate-json.js';
export * from './validator-module.js';
export * from './project-config.js';
