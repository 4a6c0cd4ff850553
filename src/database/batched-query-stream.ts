import { Readable } from 'node:stream';
import type pg from 'pg';

/** A row as PostgreSQL sent it: each column's text, or null (no type parsing in Node). */
export type TextRow = Array<string | null>;

export interface BatchedQueryOptions {
  /** The SELECT, ordered, without parameters or LIMIT. */
  select: string;
  /** Rows up to which the list is read by one statement, in one round trip. */
  singleQueryRows: number;
  /** Rows per FETCH beyond that. */
  batchRows: number;
  /** Each statement's timeout (SET LOCAL: it ends with the transaction). */
  statementTimeoutMs: number;
  /** Longest the whole stream may take, slow clients included. */
  streamTimeoutMs: number;
  /** One row as JSON text. */
  renderRow: (row: TextRow) => string;
  /**
   * Called when the list turns out longer than one statement carries, before its cursor
   * transaction begins: throws to refuse (the stream fails before its first piece, so the
   * client gets an error answer), or returns what gives the slot back when the stream closes.
   */
  acquireCursorSlot?: () => () => void;
}

/** Columns as text: the renderer writes them out (numbers are already JSON, dates are fixed up). */
const TEXT_TYPES = { getTypeParser: () => (value: string) => value };

/** Named so operators and tests can find it in pg_stat_activity. */
const CURSOR = 'batched_query_stream';

/**
 * The rows of a SELECT as one JSON array, in bytes, rendered in Node batch by batch (each batch
 * becomes one string as soon as it arrives, and its rows are dropped), with backpressure:
 * nothing is fetched while the consumer's buffer is full.
 *
 * Up to `singleQueryRows` rows, one statement in one round trip (LIMIT n + 1 tells whether
 * there are more). Beyond that, the whole list is read again, consistently, inside one
 * read-only transaction: BEGIN, SET LOCAL timeouts, DECLARE a cursor and the first FETCH in a
 * single message, then FETCH per batch, then COMMIT. Nothing outlives the transaction, so the
 * connection may be one PgBouncer shares per transaction.
 *
 * The connection goes back to the pool when the stream ends, fails or is destroyed (a client
 * that hangs up); one that failed or does not roll back within a second is dropped instead.
 */
export class BatchedQueryStream extends Readable {
  private client: pg.PoolClient | undefined;
  private inTransaction = false;
  private broken = false;
  private rowsSent = 0;
  private done = false;
  private fetching = false;
  private released = false;
  private readonly timer: NodeJS.Timeout;
  private readonly onClientError = (): void => {
    this.broken = true;
  };

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: BatchedQueryOptions,
  ) {
    // About two batches of JSON ahead of a slow client, no more.
    super({ highWaterMark: 1024 * 1024 });
    this.timer = setTimeout(() => {
      this.destroy(
        new Error(`the list took longer than ${options.streamTimeoutMs} ms (DB_STREAM_TIMEOUT_MS)`),
      );
    }, options.streamTimeoutMs);
    this.timer.unref();
  }

  override _read(): void {
    if (this.fetching || this.done) return;
    this.fetching = true;
    this.next().then(
      (chunk) => {
        this.fetching = false;
        if (this.destroyed) return;
        if (chunk) this.push(chunk);
        if (this.done) this.push(null);
      },
      (error: unknown) => {
        this.fetching = false;
        this.broken ||= isConnectionError(error);
        this.destroy(error as Error);
      },
    );
  }

  /** The next piece of the array; sets `done` with the last one. */
  private async next(): Promise<string> {
    if (!this.client) {
      this.client = await this.pool.connect();
      this.client.on('error', this.onClientError);
      const { singleQueryRows: limit } = this.options;
      const rows = await this.query(
        `SET LOCAL TimeZone = 'UTC'; ${this.options.select} LIMIT ${limit + 1}`,
      );
      if (rows.length <= limit) {
        this.done = true;
        this.release();
        return `[${this.render(rows)}]`;
      }
      // Longer than one statement should carry: read it all again through a cursor, in one
      // transaction, so the list is one consistent snapshot.
      const { statementTimeoutMs, streamTimeoutMs, batchRows } = this.options;
      const releaseSlot = this.options.acquireCursorSlot?.();
      if (releaseSlot) this.once('close', releaseSlot);
      this.inTransaction = true;
      const first = await this.query(
        `BEGIN READ ONLY; SET LOCAL statement_timeout = ${statementTimeoutMs};
         SET LOCAL idle_in_transaction_session_timeout = ${streamTimeoutMs};
         SET LOCAL TimeZone = 'UTC';
         DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${this.options.select};
         FETCH ${batchRows} FROM ${CURSOR}`,
      );
      return `[${await this.batch(first)}`;
    }
    return this.batch(await this.query(`FETCH ${this.options.batchRows} FROM ${CURSOR}`));
  }

  /** A fetched batch as JSON (with its leading comma); after the last, COMMIT and the `]`. */
  private async batch(rows: TextRow[]): Promise<string> {
    const json = this.render(rows);
    if (rows.length < this.options.batchRows) {
      await this.client!.query('COMMIT');
      this.inTransaction = false;
      this.done = true;
      this.release();
      return `${json}]`;
    }
    return json;
  }

  private render(rows: TextRow[]): string {
    const { renderRow } = this.options;
    let json = '';
    for (const row of rows) {
      json += this.rowsSent++ === 0 ? renderRow(row) : `,${renderRow(row)}`;
    }
    return json;
  }

  /** Rows of the last statement of `text` (one message, one round trip). */
  private async query(text: string): Promise<TextRow[]> {
    const result = (await this.client!.query({ text, rowMode: 'array', types: TEXT_TYPES })) as
      pg.QueryArrayResult<TextRow> | Array<pg.QueryArrayResult<TextRow>>;
    return Array.isArray(result) ? result[result.length - 1].rows : result.rows;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.timer);
    void this.releaseAfterRollback();
    callback(error);
  }

  /** Ends an unfinished transaction, then gives the connection back (or drops it). */
  private async releaseAfterRollback(): Promise<void> {
    const client = this.client;
    if (!client) return;
    if (this.inTransaction && !this.broken) {
      // Queued behind a FETCH still under way; a connection that does not answer is dropped.
      const rolledBack = client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      const timeout = new Promise<false>((done) => setTimeout(() => done(false), 1000).unref());
      this.broken = !(await Promise.race([rolledBack, timeout]));
    }
    this.release();
  }

  private release(): void {
    const client = this.client;
    if (!client || this.released) return;
    this.released = true;
    client.removeListener('error', this.onClientError);
    // pg-pool destroys a client released with an error instead of handing it out again.
    client.release(this.broken ? new Error('connection broken during a streamed list') : undefined);
  }
}

/** Errors after which the connection is not worth keeping. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  // Anything but an SQL error from a healthy server (which has a five-character SQLSTATE).
  return !(typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) || code.startsWith('57P');
}
