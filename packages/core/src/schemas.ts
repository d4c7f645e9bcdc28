// The heavy entry point `@leap/core/schemas`: zod schemas, the event reader and ajv validation.
// Kept apart from the main entry so hot commands never load zod or ajv.
export * from './events/event-schema.js';
export * from './events/read-events.js';
export * from './json-schema.js';
export * from './validate-json.js';
export * from './validator-module.js';
export * from './project-config.js';
