/** Printable ASCII but for the quote and the backslash: such text is its own JSON string. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `text` as a JSON string, as JSON.stringify writes it. Most text needs no escape and skips
 * JSON.stringify's cost, about 0.2 µs a call (docs/performance.md, "The short order list").
 */
export function jsonString(text: string): string {
  return PLAIN_TEXT.test(text) ? `"${text}"` : JSON.stringify(text);
}
