import { Logger } from '@nestjs/common';
import pg from 'pg';

type Query = pg.Client['query'];

/**
 * pg's Client, except that a statement (text or config, promise form) with no answer within
 * `deadlineMs` ends its connection: the statement fails with "Connection terminated" (503) and
 * the pool drops the connection instead of handing it out again with a statement still owed.
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
  class ResponseDeadlineClient extends pg.Client {}
  const query = function (this: pg.Client, ...args: unknown[]): unknown {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to this client
    const answer: unknown = Reflect.apply(pg.Client.prototype.query, this, args);
    const [first] = args;
    const submittable = typeof first === 'object' && first !== null && 'submit' in first;
    if (submittable || !(answer instanceof Promise)) return answer;
    const timer = setTimeout(() => {
      logger.warn(
        `no answer from the database within ${deadlineMs} ms (DB_CONNECT_TIMEOUT_MS + ` +
          'DB_STATEMENT_TIMEOUT_MS): the connection is dropped',
      );
      // With a statement under way, end() destroys the socket at once.
      this.end().catch(() => undefined);
    }, deadlineMs);
    return answer.finally(() => clearTimeout(timer));
  };
  ResponseDeadlineClient.prototype.query = query as Query;
  return ResponseDeadlineClient;
}
