// Reading a file that may not be there yet: pid, exit, lock, journal and event files.
import { readFileSync } from 'node:fs';

/** The file's text, or null when it does not exist; any other failure is thrown. */
export function readFileIfExists(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
