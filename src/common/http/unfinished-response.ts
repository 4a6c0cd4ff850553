import type { ServerResponse } from 'node:http';

/**
 * The status logged and counted for an answer that did not finish (its connection closed
 * first: the client hung up, or the service cut it): nginx's "client closed request". Never
 * the status the answer would have had: that one was not sent, or not all of it.
 */
export const UNFINISHED_STATUS = 499;

/** The status an answer went out with, or UNFINISHED_STATUS (call it once the answer closed). */
export function statusSent(response: ServerResponse): number {
  return response.writableFinished ? response.statusCode : UNFINISHED_STATUS;
}

/**
 * Why the service cut an unfinished answer itself (`response.destroy(error)`: a listOrders
 * stream past DB_STREAM_TIMEOUT_MS, a stream that broke midway); undefined when the client
 * closed the connection.
 */
export function cutBecause(response: ServerResponse): Error | undefined {
  const error = response.errored;
  return error instanceof Error ? error : undefined;
}

/**
 * An error that says a time limit was reached: named TimeoutError (as AbortSignal.timeout's
 * are, and the listOrders stream's DB_STREAM_TIMEOUT_MS), or Node's ETIMEDOUT and request timeout.
 */
export function isTimeout(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return (
    error.name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'ERR_HTTP_REQUEST_TIMEOUT'
  );
}
