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
  class ResponseDeadlineClient extends pg.Client {}
  const query = function (this: pg.Client, ...args: unknown[]): unknown {
    const [first] = args;
    const submittable = typeof first === 'object' && first !== null && 'submit' in first;
    const last = args.length - 1;
    const callback = submittable ? undefined : args[last];
    // Set once the statement is sent (a call that throws sends none); pg answers a callback
    // later, never during the call, so the timer is set by then.
    // eslint-disable-next-line prefer-const -- assigned after the callback that clears it
    let timer: NodeJS.Timeout | undefined;
    if (typeof callback === 'function') {
      args[last] = function (this: unknown, ...results: unknown[]): unknown {
        clearTimeout(timer);
        return Reflect.apply(callback, this, results) as unknown;
      };
    }
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to this client
    const answer: unknown = Reflect.apply(pg.Client.prototype.query, this, args);
    const promised = answer instanceof Promise;
    if (submittable || (!promised && typeof callback !== 'function')) return answer;
    timer = setTimeout(dropUnanswered, deadlineMs, this);
    return promised ? answer.finally(() => clearTimeout(timer)) : answer;
  };
  ResponseDeadlineClient.prototype.query = query as Query;
  return ResponseDeadlineClient;
}
