import { Readable } from 'node:stream';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { JsonBytes } from './json-bytes.js';
import type { RowJson } from './resource-json.js';
import { Ascii } from '../common/ascii.js';

/** A row as PostgreSQL sent it: each column's text, or null (no type parsing in Node). */
export type TextRow = Array<string | null>;

export interface BatchedQueryOptions {
  /** The SELECT, ordered, without parameters or LIMIT. */
  select: string;
  /** Rows up to which the list is read by one statement, in one round trip. */
  singleQueryRows: number;
  /** Each statement's timeout (SET LOCAL: it ends with the transaction). */
  statementTimeoutMs: number;
  /** Longest the whole stream may take, slow clients included. */
  streamTimeoutMs: number;
  /** The rows' JSON: from a row of text (one statement) and from a COPY row's bytes. */
  json: RowJson;
  /**
   * Called when the list turns out longer than one statement carries, before its
   * transaction begins: throws to refuse (the stream fails before its first piece, so the
   * client gets an error answer), or returns what gives the slot back when the stream closes.
   */
  acquireCursorSlot?: () => () => void;
}

/** Columns as text: the renderer writes them out (numbers are already JSON, dates are fixed up). */
const TEXT_TYPES = { getTypeParser: () => (value: string) => value };

/** Named so operators and tests can find the long list's statement in pg_stat_activity. */
const MARKER = '/* batched_query_stream */';

/**
 * The rows of a SELECT as one JSON array, in bytes, rendered in Node piece by piece as the rows
 * arrive, with backpressure: nothing is read from PostgreSQL while the consumer's buffer is full.
 *
 * Up to `singleQueryRows` rows, one statement in one round trip (LIMIT n + 1 tells whether
 * there are more). Beyond that, the whole list is read again, consistently, inside one
 * read-only transaction: BEGIN and SET LOCAL timeouts in one message, then
 * `COPY (SELECT …) TO STDOUT`, whose rows are rendered from their bytes into JSON bytes, then
 * COMMIT. COPY, not a cursor: pg builds a message, an array and a string per field for every
 * row it parses, and those outlive young collections in numbers (see docs/performance.md);
 * COPY's bytes do not, nor does the JSON written from them (JsonBytes). Nothing
 * outlives the transaction, so the connection may be one PgBouncer shares per transaction.
 *
 * The connection goes back to the pool when the stream ends or fails with an SQL error. When
 * it is destroyed (a client that hangs up, the stream's timeout) during the COPY, the
 * connection is dropped instead, so the cancel sent with it cannot reach another request's
 * query (see releaseAfterRollback); so is one that broke or does not come back within a second.
 */
export class BatchedQueryStream extends Readable {
  private client: pg.PoolClient | undefined;
  private copy: Readable | undefined;
  private inTransaction = false;
  private broken = false;
  private rowsSent = 0;
  private released = false;
  private copyJson: JsonBytes | undefined;
  /** The start of a row whose end has not arrived yet. */
  private carry: Buffer | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onClientError = (): void => {
    this.broken = true;
  };

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: BatchedQueryOptions,
  ) {
    // About a megabyte of JSON ahead of a slow client, no more.
    super({ highWaterMark: 1024 * 1024 });
    this.timer = setTimeout(() => {
      // A TimeoutError: the request log tells a time limit (a warning) from a failure (an error).
      const error = new Error(
        `the list took longer than ${options.streamTimeoutMs} ms (DB_STREAM_TIMEOUT_MS)`,
      );
      error.name = 'TimeoutError';
      this.destroy(error);
    }, options.streamTimeoutMs);
    this.timer.unref();
  }

  /**
   * Where the COPY's rows are rendered, made with the first of them: its 256 KB slab, allocated
   * for every list, made the short lists (one statement, no COPY) collect garbage about twice
   * as often (docs/performance.md, The service's pieces).
   */
  private get out(): JsonBytes {
    return (this.copyJson ??= new JsonBytes());
  }

  /**
   * Runs the first statement before anything is sent. Resolves with the whole array, as text,
   * when the list fits in that statement (the stream is then spent: send the text, with its
   * length); else with undefined, the stream holding `[` and the COPY under way, to be piped.
   * Rejects, with the connection given back, when the list cannot be read, so the caller can
   * still answer with an error.
   */
  async open(): Promise<string | undefined> {
    try {
      const whole = await this.start();
      if (whole !== undefined) {
        this.destroy();
        return whole;
      }
      // Cut while it began (DB_STREAM_TIMEOUT_MS): nothing was sent, so it is still an error.
      if (this.destroyed) throw this.errored ?? new Error('the list was cut before it began');
      return undefined;
    } catch (error) {
      this.broken ||= isConnectionError(error);
      this.destroy();
      throw error;
    }
  }

  /** The COPY's rows are read as the consumer asks for them (open() started it). */
  override _read(): void {
    this.copy?.resume();
  }

  /**
   * The whole array when it fits in one statement; else undefined, with the COPY started, which
   * pushes the rows and the closing `]`.
   */
  private async start(): Promise<string | undefined> {
    this.client = await this.pool.connect();
    this.client.on('error', this.onClientError);
    const { singleQueryRows: limit, statementTimeoutMs, streamTimeoutMs } = this.options;
    const rows = await this.query(
      `SET LOCAL TimeZone = 'UTC'; ${this.options.select} LIMIT ${limit + 1}`,
    );
    if (rows.length <= limit) {
      this.release();
      let json = '';
      for (const row of rows) json += this.rendered(row);
      return `[${json}]`;
    }
    // Longer than one statement should carry: read it all again, in one transaction, so the
    // list is one consistent snapshot.
    const releaseSlot = this.options.acquireCursorSlot?.();
    if (releaseSlot) this.once('close', releaseSlot);
    this.inTransaction = true;
    // The COPY is one statement however long the client takes to read it: the stream's
    // timeout bounds it, as it bounds the whole list.
    await this.query(
      `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.max(statementTimeoutMs, streamTimeoutMs)};
       SET LOCAL idle_in_transaction_session_timeout = ${streamTimeoutMs};
       SET LOCAL TimeZone = 'UTC'`,
    );
    if (this.destroyed) return undefined;
    this.push('[');
    const copy = this.client.query(copyTo(`${MARKER} COPY (${this.options.select}) TO STDOUT`));
    this.copy = copy;
    copy.on('data', (chunk: Buffer) => {
      if (!this.pushAll(this.renderCopy(chunk))) copy.pause();
    });
    copy.once('error', (error: Error) => {
      this.copy = undefined;
      this.broken ||= isConnectionError(error);
      this.destroy(error);
    });
    copy.once('end', () => {
      this.copy = undefined;
      this.finish().then(
        () => {
          if (!this.destroyed) this.push(null);
        },
        (error: unknown) => {
          this.broken ||= isConnectionError(error);
          this.destroy(error as Error);
        },
      );
    });
    return undefined;
  }

  /** After the COPY's last row: COMMIT, the connection back, the `]`. */
  private async finish(): Promise<void> {
    if (this.carry !== undefined) throw new Error('the COPY ended in the middle of a row');
    await this.client!.query('COMMIT');
    this.inTransaction = false;
    this.release();
    if (!this.destroyed) this.push(']');
  }

  /** The JSON of the rows `chunk` (COPY's text format, after what came before) completes. */
  private renderCopy(chunk: Buffer): Buffer[] {
    let start = 0;
    if (this.carry !== undefined) {
      const newline = chunk.indexOf(Ascii.NEWLINE);
      if (newline === -1) {
        this.carry = Buffer.concat([this.carry, chunk]);
        return [];
      }
      const row = Buffer.concat([this.carry, chunk.subarray(0, newline)]);
      this.carry = undefined;
      this.renderCopyRow(row, 0, row.length);
      start = newline + 1;
    }
    for (
      let end = chunk.indexOf(Ascii.NEWLINE, start);
      end !== -1;
      end = chunk.indexOf(Ascii.NEWLINE, start)
    ) {
      this.renderCopyRow(chunk, start, end);
      start = end + 1;
    }
    // Copied: a view would keep the whole chunk in memory for one row's end.
    if (start < chunk.length) this.carry = Buffer.from(chunk.subarray(start));
    return this.out.take();
  }

  /** One COPY row, src[start, end), as JSON, after a comma unless it is the array's first. */
  private renderCopyRow(src: Buffer, start: number, end: number): void {
    if (this.rowsSent++ > 0) {
      this.out.reserve(1);
      this.out.byte(Ascii.COMMA);
    }
    this.options.json.fromCopy(src, start, end, this.out);
  }

  /** Pushes each piece; false when the consumer's buffer is full. */
  private pushAll(pieces: Buffer[]): boolean {
    let more = true;
    for (const piece of pieces) more = this.push(piece);
    return more;
  }

  /** One row as JSON, after a comma unless it is the array's first. */
  private rendered(row: TextRow): string {
    const json = this.options.json.fromText(row);
    return this.rowsSent++ === 0 ? json : `,${json}`;
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

  /**
   * Ends an unfinished list. A COPY under way is cut by dropping its connection, never by
   * handing it back: a cancel request names a server session, not a statement, so one that
   * arrives after the COPY has ended would cancel whatever that session ran next, another
   * request's query, which would then fail with "canceling statement due to user request".
   * PostgreSQL aborts the transaction of a client that goes, and the cancel stops a statement
   * that is busy without writing; a late cancel then finds a session nobody uses. A transaction
   * with no COPY under way is rolled back and the connection kept, unless it does not answer
   * within a second.
   */
  private async releaseAfterRollback(): Promise<void> {
    const client = this.client;
    if (!client) return;
    const copy = this.copy;
    if (copy) {
      this.copy = undefined;
      copy.removeAllListeners('data').removeAllListeners('end').removeAllListeners('error');
      copy.on('error', () => undefined);
      if (!this.broken) this.cancel(client);
      this.broken = true;
    } else if (this.inTransaction && !this.broken) {
      // Queued behind a statement still under way; a connection that does not answer is dropped.
      const rolledBack = client.query('ROLLBACK').then(
        () => true,
        () => false,
      );
      const timeout = new Promise<false>((done) => setTimeout(() => done(false), 1000).unref());
      this.broken = !(await Promise.race([rolledBack, timeout]));
    }
    this.release();
  }

  /**
   * Asks the server to cancel the client's running statement: PostgreSQL's cancel request, on a
   * connection of its own (pg's Client.cancel reads a getter pg 9 removes).
   */
  private cancel(client: pg.PoolClient): void {
    const target = client as unknown as CancelTarget;
    const connection = new pg.Connection() as pg.Connection & CancelConnection;
    connection.on('error', () => undefined);
    connection.once('connect', () => connection.cancel(target.processID, target.secretKey));
    if (target.host.startsWith('/')) connection.connect(`${target.host}/.s.PGSQL.${target.port}`);
    else connection.connect(target.port, target.host);
  }

  private release(): void {
    const client = this.client;
    if (!client || this.released) return;
    this.released = true;
    client.removeListener('error', this.onClientError);
    // pg-pool destroys a client released with an error instead of handing it out again.
    client.release(
      this.broken ? new Error('connection dropped: a streamed list was cut or broke') : undefined,
    );
  }
}

/** What a pg client knows of its server session, for a cancel request. */
interface CancelTarget {
  host: string;
  port: number;
  processID: number;
  secretKey: number;
}

/** pg.Connection's methods its types leave out. */
interface CancelConnection {
  connect(port: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
}

/** Errors after which the connection is not worth keeping. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  // Anything but an SQL error from a healthy server (which has a five-character SQLSTATE).
  return !(typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) || code.startsWith('57P');
}
