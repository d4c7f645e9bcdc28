// @leap/core: the light entry point. Nothing here loads zod, ajv or any other dependency;
// the schemas and the event reader are in `@leap/core/schemas`.
export * from './errors.js';
export * from './cli.js';
export * from './state-dir.js';
export * from './atomic-write.js';
export * from './read-file.js';
export * from './process-identity.js';
export * from './key-value.js';
export * from './lock.js';
export * from './duration.js';
export * from './run-context.js';
export * from './role.js';
export * from './stop-request.js';
export * from './mark.js';
export * from './ledger/index.js';
export * from './events/append-event.js';
export type * from './events/event-schema.js';
export type * from './plugins.js';
