// @leap/core: the light entry point, loading no dependency; zod and ajv are behind `@leap/core/schemas`.
// `export *`, not names: esbuild puts every module named here in a bin's start chunk (cli's main.test.ts).
export * from './errors.js';
export * from './cli.js';
export * from './subcommand.js';
export * from './dispatch.js';
export * from './state-dir.js';
export * from './slice-paths.js';
export * from './atomic-write.js';
export * from './read-file.js';
export * from './process-identity.js';
export * from './git.js';
export * from './serial.js';
export * from './lock.js';
export * from './duration.js';
export * from './run-context.js';
export * from './role.js';
export * from './runner-plugin.js';
export * from './ledger/index.js';
export * from './events/event-log.js';
export * from './events/usage-log.js';
export type * from './events/event-schema.js';
export type * from './plugins.js';
