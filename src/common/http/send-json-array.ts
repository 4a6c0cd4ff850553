import type { Response } from 'express';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { JsonArrayStream } from './json-array.stream.js';

/**
 * Streams `[json]` rows (JsonArrayStream) to the client as one JSON array, 200, with backpressure.
 * The status is only committed once the first rows (or the end) arrived, so a query that
 * fails at once still gets a proper error answer. After that, a failure can only cut the
 * connection: the client sees a truncated body, never a silent success. A client that hangs up
 * destroys the source, which releases its database connection.
 */
export async function sendJsonArray(response: Response, rows: Readable): Promise<void> {
  await Promise.race([once(rows, 'readable'), once(rows, 'end')]).catch((error: unknown) => {
    rows.destroy();
    throw error;
  });
  response.status(200).type('application/json');
  try {
    await pipeline(rows, new JsonArrayStream(), response);
  } catch (error) {
    // Headers are gone: cut the connection so the truncation shows (the filter does the same
    // for errors thrown after headers were sent). A client that left needs nothing more.
    if (!response.destroyed) response.destroy(error as Error);
  }
}
