/**
 * The raw baseline's renderer of the long order list: the rows of
 * `COPY (SELECT id, pet_id, quantity, ship_date, status …) TO STDOUT`, in COPY's text format, as
 * the JSON array's bytes, written byte by byte into large buffers, with no string, array or
 * object per row or field (the service parses each row into strings and renders a string). The
 * JSON is OrderDto's: `{"id":…,"petId":…,"quantity":…[,"shipDate":"…"],"complete":…,"status":"…"}`,
 * ship dates as UTC ISO text with milliseconds (the list's transaction sets TimeZone to UTC).
 *
 * It renders only what these columns can hold (integers, a timestamptz of years 1000 to 9999 at
 * offset +00 or `\N`, a status word) and throws on anything else rather than send other bytes.
 */

const TAB = 0x09;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const OPEN_BRACKET = 0x5b;
const LETTER_N = 0x4e;
const LETTER_T = 0x54;
const LETTER_Z = 0x5a;
const BACKSLASH = 0x5c;

const ascii = (text: string): Buffer => Buffer.from(text, 'latin1');
const ID = ascii('{"id":');
const PET_ID = ascii(',"petId":');
const QUANTITY = ascii(',"quantity":');
const SHIP_DATE = ascii(',"shipDate":"');
const COMPLETE = ascii(',"complete":true,"status":"');
const NOT_COMPLETE = ascii(',"complete":false,"status":"');
const END = ascii('"}');
const SHIPPED = ascii('shipped');

/** Longer input rows are refused: these columns' text is under 100 bytes. */
const ROW_MAX_BYTES = 256;
/** Most JSON one row can give: four times its input (a row of one-digit numbers), and the comma. */
const ROW_MAX_JSON_BYTES = 4 * ROW_MAX_BYTES + 64;
/** The buffers the JSON is written into: a few per COPY chunk at most. */
const SLAB_BYTES = 256 * 1024;

function put(out: Buffer, at: number, constant: Buffer): number {
  for (let i = 0; i < constant.length; i++) out[at + i] = constant[i];
  return at + constant.length;
}

export class OrderCopyJson {
  private slab = Buffer.allocUnsafe(SLAB_BYTES);
  /** Where the next byte goes in `slab`, and where the bytes not handed out yet begin. */
  private at = 0;
  private from = 0;
  private pieces: Buffer[] = [];
  /** The start of a row whose end has not arrived yet. */
  private carry: Buffer | undefined;
  private rows = 0;
  private opened = false;

  /** The JSON of the rows `chunk` completes, with the array's `[` first: buffers to send in order. */
  render(chunk: Buffer): Buffer[] {
    if (!this.opened) {
      this.slab[this.at++] = OPEN_BRACKET;
      this.opened = true;
    }
    let start = 0;
    if (this.carry !== undefined) {
      const newline = chunk.indexOf(NEWLINE);
      if (newline === -1) {
        this.carry = Buffer.concat([this.carry, chunk]);
        if (this.carry.length > ROW_MAX_BYTES) throw new Error('a COPY row is too long');
        return this.handOut();
      }
      const row = Buffer.concat([this.carry, chunk.subarray(0, newline + 1)]);
      this.carry = undefined;
      if (this.renderRows(row, 0) !== row.length) throw new Error('a COPY row is malformed');
      start = newline + 1;
    }
    const rest = this.renderRows(chunk, start);
    if (rest < chunk.length) this.carry = Buffer.from(chunk.subarray(rest));
    return this.handOut();
  }

  /** The array's end (the whole array when there were no rows). */
  end(): Buffer {
    if (this.carry !== undefined) throw new Error('the COPY ended in the middle of a row');
    return ascii(this.opened ? ']' : '[]');
  }

  /** What the slab holds beyond what was handed out goes with the next pieces. */
  private cut(): void {
    if (this.at > this.from) this.pieces.push(this.slab.subarray(this.from, this.at));
    this.from = this.at;
  }

  private handOut(): Buffer[] {
    this.cut();
    const pieces = this.pieces;
    this.pieces = [];
    return pieces;
  }

  /** Renders the complete rows of `src` from `start`; returns where the incomplete rest begins. */
  private renderRows(src: Buffer, start: number): number {
    const n = src.length;
    let p = start;
    while (p < n) {
      if (this.slab.length - this.at < ROW_MAX_JSON_BYTES) {
        this.cut();
        this.slab = Buffer.allocUnsafe(SLAB_BYTES);
        this.at = 0;
        this.from = 0;
      }
      const out = this.slab;
      const limit = Math.min(n, p + ROW_MAX_BYTES);
      let o = this.at;
      let q = p;
      if (this.rows > 0) out[o++] = COMMA;
      o = put(out, o, ID);
      while (q < limit && src[q] !== TAB) out[o++] = src[q++];
      if (q === limit) return this.incomplete(p, limit, n);
      q++;
      o = put(out, o, PET_ID);
      while (q < limit && src[q] !== TAB) out[o++] = src[q++];
      if (q === limit) return this.incomplete(p, limit, n);
      q++;
      o = put(out, o, QUANTITY);
      while (q < limit && src[q] !== TAB) out[o++] = src[q++];
      if (q === limit) return this.incomplete(p, limit, n);
      q++;
      let t = q;
      while (t < limit && src[t] !== TAB) t++;
      if (t === limit) return this.incomplete(p, limit, n);
      if (src[q] !== BACKSLASH || t - q !== 2 || src[q + 1] !== LETTER_N) {
        // "2026-11-25 05:03:54.571234+00", fraction optional (one to six digits).
        const length = t - q;
        if (
          length < 22 ||
          src[q + 4] !== MINUS ||
          src[q + 10] !== SPACE ||
          src[q + 19] !== (length === 22 ? PLUS : DOT) ||
          src[t - 3] !== PLUS ||
          src[t - 2] !== ZERO ||
          src[t - 1] !== ZERO
        ) {
          throw new Error(`unexpected ship date: ${src.toString('latin1', q, t)}`);
        }
        o = put(out, o, SHIP_DATE);
        for (let k = q; k < q + 10; k++) out[o++] = src[k];
        out[o++] = LETTER_T;
        for (let k = q + 11; k < q + 19; k++) out[o++] = src[k];
        out[o++] = DOT;
        let digit = q + 20;
        for (let k = 0; k < 3; k++) out[o++] = digit < t - 3 ? src[digit++] : ZERO;
        out[o++] = LETTER_Z;
        out[o++] = QUOTE;
      }
      q = t + 1;
      let e = q;
      while (e < limit && src[e] !== NEWLINE) {
        if (src[e] === QUOTE || src[e] === BACKSLASH) throw new Error('a status to escape');
        e++;
      }
      if (e === limit) return this.incomplete(p, limit, n);
      let shipped = e - q === SHIPPED.length;
      for (let k = 0; shipped && k < SHIPPED.length; k++) shipped = src[q + k] === SHIPPED[k];
      o = put(out, o, shipped ? COMPLETE : NOT_COMPLETE);
      for (let k = q; k < e; k++) out[o++] = src[k];
      o = put(out, o, END);
      this.at = o;
      this.rows++;
      p = e + 1;
    }
    return p;
  }

  /** A row cut by the end of `src` is carried to the next chunk; one cut by the limit is refused. */
  private incomplete(rowStart: number, limit: number, n: number): number {
    if (limit < n) throw new Error('a COPY row is too long');
    return rowStart;
  }
}
