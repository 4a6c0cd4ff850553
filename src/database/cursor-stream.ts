import { Readable } from 'node:stream';
import type pg from 'pg';
import Cursor from 'pg-cursor';

/**
 * Rows of a query read through a server-side cursor, `batchSize` at a time, as a Readable
 * (object mode, backpressure included). Unlike pg-query-stream, destroying it never waits on a
 * connection that is gone: pg-cursor's close() waits for a reply a dead connection never
 * sends, which would hang the response and never release the connection.
 */
export class CursorStream<Row> extends Readable {
  /** True once the cursor failed or its connection was lost: the connection is not reusable. */
  failed = false;
  private readonly cursor: Cursor<Row>;
  private readonly onConnectionLost = (): void => {
    this.failed = true;
  };

  constructor(
    private readonly client: pg.PoolClient,
    text: string,
    values: unknown[],
    private readonly batchSize = 1000,
  ) {
    super({ objectMode: true, highWaterMark: batchSize });
    this.cursor = client.query(new Cursor<Row>(text, values, { rowMode: 'array' }));
    client.once('error', this.onConnectionLost);
    client.once('end', this.onConnectionLost);
  }

  override _read(): void {
    this.cursor.read(this.batchSize, (error, rows) => {
      if (error) {
        this.failed = true;
        this.destroy(error);
        return;
      }
      for (const row of rows) this.push(row);
      if (rows.length < this.batchSize) this.push(null);
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.client.removeListener('error', this.onConnectionLost);
    this.client.removeListener('end', this.onConnectionLost);
    if (this.failed) {
      callback(error);
      return;
    }
    this.cursor.close((closeError) => callback(closeError ?? error));
  }
}
