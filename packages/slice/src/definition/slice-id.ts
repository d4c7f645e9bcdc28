// The id of a slice or a ball (CONTRACT section 7), apart from the zod schema so readers need no zod.

/** A slice or ball id: 1 to 64 of a-z 0-9 . _ -, starting with a letter or digit. */
export const ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The JSON Schema pattern of a non-empty string (slice-schema.ts says why it is not a minLength). */
export const NON_EMPTY_PATTERN = '^[\\s\\S]';
