import { Transform, type TransformCallback } from 'node:stream';

/** Flush to the socket in chunks of about this size: fewer, larger writes. */
const CHUNK_CHARS = 64 * 1024;

/** A database row of one column holding JSON text (pg's rowMode 'array'). */
export type JsonRow = [json: string];

/**
 * Frames rows that are already JSON text (one row per chunk, in object mode) as one JSON array:
 * `[`, rows separated by commas, `]`. Backpressure flows through, as for any Transform.
 */
export class JsonArrayStream extends Transform {
  private buffer = '[';
  private first = true;

  constructor() {
    super({ writableObjectMode: true, readableObjectMode: false });
  }

  override _transform(
    [json]: JsonRow,
    _encoding: BufferEncoding,
    callback: TransformCallback,
  ): void {
    this.buffer += this.first ? json : `,${json}`;
    this.first = false;
    if (this.buffer.length >= CHUNK_CHARS) {
      this.push(this.buffer);
      this.buffer = '';
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    this.push(`${this.buffer}]`);
    callback();
  }
}
