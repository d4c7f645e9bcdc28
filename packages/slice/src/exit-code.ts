// `leap slice run`'s exit code (CONTRACT section 7), also the notify event's `code`; exits 2 and 1 are thrown earlier.
import type { Receipt } from './definition/slice-schema.js';

export const sliceExitCode = (receipt: Receipt): 0 | 1 | 3 => (receipt === 1 ? 0 : receipt === -1 ? 1 : 3);
