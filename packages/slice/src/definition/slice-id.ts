/** A slice or ball id (CONTRACT section 7), apart from slice-schema.ts so its readers need no zod. */
export const ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The JSON Schema pattern of a non-empty string (slice-schema.ts says why it is not a minLength). */
export const NON_EMPTY_PATTERN = '^[\\s\\S]';
