// Titles in messages: JSON-quoted (so blanks and quotes show) and cut short (titles run to thousands of characters).

/** A title for a message: JSON-quoted, cut after 77 characters with its length. */
export function quote(title: string): string {
  return title.length <= 80 ? JSON.stringify(title) : `${JSON.stringify(title.slice(0, 77))}… (${title.length} characters)`;
}
