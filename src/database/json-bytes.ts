import { Ascii } from '../common/ascii.js';
/**
 * JSON written as bytes into large buffers, handed out as pieces to send in order: the long
 * list renders PostgreSQL's COPY bytes straight into it, with no string, array or object per
 * row or field (see docs/performance.md, "The long list").
 */
export class JsonBytes {
  private slab: Buffer;
  /** Where the next byte goes in `slab`, and where the bytes not handed out yet begin. */
  private at = 0;
  private from = 0;
  private pieces: Buffer[] = [];

  constructor(private readonly slabBytes = 256 * 1024) {
    this.slab = Buffer.allocUnsafe(slabBytes);
  }

  /** Makes room for `bytes` more: what is written next goes into one buffer. */
  reserve(bytes: number): void {
    if (this.slab.length - this.at >= bytes) return;
    this.cut();
    this.slab = Buffer.allocUnsafe(Math.max(this.slabBytes, bytes));
    this.at = 0;
    this.from = 0;
  }

  byte(value: number): void {
    this.slab[this.at++] = value;
  }

  /** Bytes known to be JSON as they are (a constant, digits). */
  bytes(src: Uint8Array, start = 0, end = src.length): void {
    const slab = this.slab;
    let at = this.at;
    for (let i = start; i < end; i++) slab[at++] = src[i];
    this.at = at;
  }

  /** Text known to be JSON, as UTF-8 (rare paths: what is not worth a byte-level writer). */
  text(json: string): void {
    this.at += this.slab.write(json, this.at, 'utf8');
  }

  /**
   * A COPY text-format field, src[start, end), as a JSON string: COPY's backslash escapes
   * undone, then escaped as JSON.stringify escapes (`"`, `\`, and the controls below U+0020,
   * `\b \t \n \f \r` by letter, the others as `\u00xx`). UTF-8 passes through byte for byte.
   * At most 6 bytes out for each byte in, plus 2.
   */
  copyFieldAsString(src: Uint8Array, start: number, end: number): void {
    const slab = this.slab;
    let at = this.at;
    slab[at++] = Ascii.QUOTE;
    // Most text needs no escape: copied as it is up to the first byte that does.
    let i = start;
    while (i < end && PLAIN[src[i]] === 1) slab[at++] = src[i++];
    for (; i < end; i++) {
      let c = src[i];
      if (c === Ascii.BACKSLASH && i + 1 < end) c = COPY_UNESCAPED[src[++i]] ?? src[i];
      const escape = JSON_ESCAPED[c];
      if (escape === undefined) {
        slab[at++] = c;
      } else {
        for (let k = 0; k < escape.length; k++) slab[at++] = escape[k];
      }
    }
    slab[at++] = Ascii.QUOTE;
    this.at = at;
  }

  /** The bytes written since the last call, to send in order. */
  take(): Buffer[] {
    this.cut();
    const pieces = this.pieces;
    this.pieces = [];
    return pieces;
  }

  private cut(): void {
    if (this.at > this.from) this.pieces.push(this.slab.subarray(this.from, this.at));
    this.from = this.at;
  }
}

/** COPY TO's escapes (never octal or hex ones, which are for COPY FROM): the byte each stands for. */
const COPY_UNESCAPED: Record<number, number> = {
  [0x62 /* b */]: 0x08,
  [0x66 /* f */]: 0x0c,
  [0x6e /* n */]: 0x0a,
  [0x72 /* r */]: 0x0d,
  [0x74 /* t */]: 0x09,
  [0x76 /* v */]: 0x0b,
};

/** 1 for each byte that stands for itself both in COPY's text and in a JSON string. */
const PLAIN = Uint8Array.from({ length: 256 }, (_, byte) =>
  byte >= 0x20 && byte !== Ascii.QUOTE && byte !== Ascii.BACKSLASH ? 1 : 0,
);

/** JSON.stringify's escape of each byte it escapes, by byte. */
const JSON_ESCAPED: Array<Buffer | undefined> = Array.from({ length: 256 }, (_, byte) => {
  if (byte >= 0x20 && byte !== Ascii.QUOTE && byte !== Ascii.BACKSLASH) return undefined;
  return Buffer.from(JSON.stringify(String.fromCharCode(byte)).slice(1, -1), 'latin1');
});
