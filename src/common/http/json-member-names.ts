import { Ascii } from '../ascii.js';
/*
 * Duplicate member names in a JSON body (I-JSON, RFC 7493 2.3, forbids them; JSON.parse keeps
 * the last one silently). JSON.parse has already accepted the text, and the bytes are known to
 * be UTF-8: every byte of a multi-byte character is 0x80 or above, so the bytes of `"`, `\`,
 * `:`, brackets and braces are always those characters, and the scanners below need no decoder.
 */

/** Index of the first byte at or after `i` that is not JSON white space. */
function skipWhitespace(bytes: Uint8Array, i: number): number {
  let byte = bytes[i];
  while (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) byte = bytes[++i];
  return i;
}

/** Index of the closing quote of the string whose contents start at `i` (or the length). */
function endOfString(bytes: Uint8Array, i: number): number {
  const end = bytes.length;
  while (i < end) {
    const byte = bytes[i];
    if (byte === Ascii.QUOTE) return i;
    i += byte === Ascii.BACKSLASH ? 2 : 1;
  }
  return end;
}

/**
 * How many member names the JSON text holds, counting each time a name is written. Without
 * duplicates this equals the number of keys of the objects JSON.parse made of it; the
 * comparison is the cheap test, with no allocation (see findDuplicateMemberName for the name).
 */
export function countMemberNames(bytes: Uint8Array): number {
  const end = bytes.length;
  let names = 0;
  let i = 0;
  while (i < end) {
    if (bytes[i] !== Ascii.QUOTE) {
      i++;
      continue;
    }
    i = skipWhitespace(bytes, endOfString(bytes, i + 1) + 1);
    // A string followed by a colon is a member name; any other is a value.
    if (bytes[i] === Ascii.COLON) names++;
  }
  return names;
}

// ignoreBOM: a name may start with U+FEFF, which the default decoder would drop.
const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The first member name written twice in one object, as JSON.parse reads it (`"a"` and
 * `"\u0061"` are the same name), or undefined. Iterative, so depth costs no stack.
 */
export function findDuplicateMemberName(bytes: Uint8Array): string | undefined {
  // One entry per open container: the names seen so far in an object, undefined for an array.
  const containers: Array<Set<string> | undefined> = [];
  const end = bytes.length;
  let i = 0;
  while (i < end) {
    const byte = bytes[i];
    if (byte === Ascii.OPEN_BRACE) containers.push(new Set());
    else if (byte === Ascii.OPEN_BRACKET) containers.push(undefined);
    else if (byte === Ascii.CLOSE_BRACE || byte === Ascii.CLOSE_BRACKET) containers.pop();
    if (byte !== Ascii.QUOTE) {
      i++;
      continue;
    }
    const start = i + 1;
    const stop = endOfString(bytes, start);
    i = skipWhitespace(bytes, stop + 1);
    if (bytes[i] !== Ascii.COLON) continue;
    const written = bytes.subarray(start, stop);
    const name = written.includes(Ascii.BACKSLASH)
      ? (JSON.parse(`"${UTF8.decode(written)}"`) as string)
      : UTF8.decode(written);
    const names = containers.at(-1);
    if (names === undefined) continue;
    if (names.has(name)) return name;
    names.add(name);
  }
  return undefined;
}
