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
 * The rows of a SELECT as one JSON array. Up to `singleQueryRows` rows, its text, from one
 * statement in one round trip (LIMIT n + 1 tells whether there are more), as any other read
 * runs: on a connection from `pool`, bounded by the statement timeout. Beyond that, a
 * BatchedQueryStream of its bytes, which reads the list again, whole, in one transaction; the
 * stream's timeout counts from here. Rejects, the connection given back, when the list cannot
 * be read or the stream cannot begin, so the caller can still answer with an error.
 */
export async function selectJsonArray(
  pool: pg.Pool,
  options: BatchedQueryOptions,
): Promise<string | Readable> {
  const startedAt = performance.now();
  const limit = options.singleQueryRows;
  const result = (await pool.query({
    text: `SET LOCAL TimeZone = 'UTC'; ${options.select} LIMIT ${limit + 1}`,
    rowMode: 'array',
    types: TEXT_TYPES,
  })) as unknown as [pg.QueryResult, pg.QueryArrayResult<TextRow>];
  const rows = result[1].rows;
  if (rows.length <= limit) {
    const { fromText } = options.json;
    let json = '';
    for (let index = 0; index < rows.length; index++) {
      json += index === 0 ? fromText(rows[index]) : `,${fromText(rows[index])}`;
    }
    return `[${json}]`;
  }
  const remainingMs = options.streamTimeoutMs - (performance.now() - startedAt);
  const stream = new BatchedQueryStream(pool, options, Math.max(0, Math.round(remainingMs)));
  await stream.open();
  return stream;
}

/**
 * The rows of a SELECT longer than one statement carries, as one JSON array, in bytes, rendered
 * in Node piece by piece as the rows arrive, with backpressure: nothing is read from PostgreSQL
 * while the consumer's buffer is full. The whole list is read, consistently, inside one
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
  /** Where the COPY's rows are rendered. */
  private readonly out = new JsonBytes();
  /** The start of a row whose end has not arrived yet. */
  private carry: Buffer | undefined;
  private readonly timer: NodeJS.Timeout;
  private readonly onClientError = (): void => {
    this.broken = true;
  };

  /** `timeoutMs`: what is left of the stream's timeout (options.streamTimeoutMs). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly options: BatchedQueryOptions,
    timeoutMs = options.streamTimeoutMs,
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
    }, timeoutMs);
    this.timer.unref();
  }

  /**
   * Begins the transaction and the COPY before anything is sent: resolves with the stream
   * holding `[`, to be piped. Rejects, with the connection given back, when the list cannot be
   * read, so the caller can still answer with an error.
   */
  async open(): Promise<void> {
    try {
      await this.start();
      // Cut while it began (DB_STREAM_TIMEOUT_MS): nothing was sent, so it is still an error.
      if (this.destroyed) throw this.errored ?? new Error('the list was cut before it began');
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

  /** Starts the COPY, which pushes the rows and the closing `]`. */
  private async start(): Promise<void> {
    // The list was longer than one statement carries: it is read again, whole, in one
    // transaction, so that it is one consistent snapshot.
    const releaseSlot = this.options.acquireCursorSlot?.();
    if (releaseSlot) this.once('close', releaseSlot);
    this.client = await this.pool.connect();
    this.client.on('error', this.onClientError);
    const { statementTimeoutMs, streamTimeoutMs } = this.options;
    this.inTransaction = true;
    // The COPY is one statement however long the client takes to read it: the stream's
    // timeout bounds it, as it bounds the whole list.
    await this.client.query(
      `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.max(statementTimeoutMs, streamTimeoutMs)};
       SET LOCAL idle_in_transaction_session_timeout = ${streamTimeoutMs};
       SET LOCAL TimeZone = 'UTC'`,
    );
    if (this.destroyed) return;
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
