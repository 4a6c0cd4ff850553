import { Logger } from '@nestjs/common';
import pg from 'pg';

type Query = pg.Client['query'];

/**
 * pg's Client, except that a statement (text or config, in promise or callback form: pg's
 * Pool.query uses the callback) with no answer within `deadlineMs` ends its connection: the
 * statement fails with "Connection terminated" (503) and the pool drops the connection instead
 * of handing it out again with a statement still owed.
 *
 * PostgreSQL's statement_timeout only cuts statements a server runs. One no server runs waits
 * with no bound of the service's own: through PgBouncer, a statement sent while PostgreSQL is
 * down waits in PgBouncer's queue for query_wait_timeout (120 s by default), however quickly
 * PgBouncer learns that it cannot log in; on a dead network, until TCP gives up. Streamed
 * queries (COPY, cursors: anything pg calls a Submittable) are left alone: they bound
 * themselves (DB_STREAM_TIMEOUT_MS).
 */
export function clientWithResponseDeadline(deadlineMs: number): typeof pg.Client {
  const logger = new Logger('Database');
  const dropUnanswered = (client: pg.Client): void => {
    logger.warn(
      `no answer from the database within ${deadlineMs} ms (DB_CONNECT_TIMEOUT_MS + ` +
        'DB_STATEMENT_TIMEOUT_MS): the connection is dropped',
    );
    // With a statement under way, end() destroys the socket at once.
    client.end().catch(() => undefined);
  };
  /**
   * One timer per client, armed when a statement is sent while none is, not one per statement:
   * a timer set and cleared for every statement was a tenth of what reads cost a request on top of
   * the framework (docs/performance.md, "What the features cost where they run"). When it
   * fires, it drops the connection if the oldest unanswered statement is past the deadline, or
   * waits for that one's deadline; with none unanswered, it is armed again by the next statement.
   */
  class ResponseDeadlineClient extends pg.Client {
    /** When each statement still owed an answer was sent, oldest first: pg answers in order. */
    private readonly sentAt: number[] = [];
    private deadline: NodeJS.Timeout | undefined;

    sent(): void {
      this.sentAt.push(Date.now());
      this.deadline ??= this.checkIn(deadlineMs);
    }

    answered(): void {
      this.sentAt.shift();
    }

    override end(): Promise<void>;
    override end(callback: (error: Error) => void): void;
    override end(callback?: (error: Error) => void): Promise<void> | void {
      clearTimeout(this.deadline);
      return callback ? super.end(callback) : super.end();
    }

    private checkIn(ms: number): NodeJS.Timeout {
      // Unreferenced: the socket of an unanswered statement keeps the process alive already.
      return setTimeout(() => this.check(), ms).unref();
    }

    private check(): void {
      this.deadline = undefined;
      const oldest = this.sentAt[0];
      if (oldest === undefined) return;
      const left = oldest + deadlineMs - Date.now();
      if (left > 0) this.deadline = this.checkIn(left);
      else dropUnanswered(this);
    }
  }
  const query = function (this: ResponseDeadlineClient, ...args: unknown[]): unknown {
    const [first] = args;
    const submittable = typeof first === 'object' && first !== null && 'submit' in first;
    const last = args.length - 1;
    const callback = submittable ? undefined : args[last];
    // Marked sent once the statement is (a call that throws sends none); pg answers a callback
    // later, never during the call, so it is marked by then.
    if (typeof callback === 'function') {
      const answered = () => this.answered();
      args[last] = function (this: unknown, ...results: unknown[]): unknown {
        answered();
        return Reflect.apply(callback, this, results) as unknown;
      };
    }
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to this client
    const answer: unknown = Reflect.apply(pg.Client.prototype.query, this, args);
    const promised = answer instanceof Promise;
    if (submittable || (!promised && typeof callback !== 'function')) return answer;
    this.sent();
    return promised ? answer.finally(() => this.answered()) : answer;
  };
  ResponseDeadlineClient.prototype.query = query as Query;
  return ResponseDeadlineClient;
}
