import type { Response } from 'express';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Ends `response` with `text`, a whole JSON document, with its Content-Type and Content-Length. */
export function writeJsonAnswer(response: ServerResponse, text: string): void {
  response.setHeader('Content-Type', JSON_CONTENT_TYPE);
  response.setHeader('Content-Length', Buffer.byteLength(text));
  response.end(text);
}

/**
 * Ends `response` with `text`, a JSON document, as Express's res.send() ends it here: Content-Type
 * application/json with its charset (unless one is set), Content-Length, the body (none for
 * HEAD). res.send() gets there by parsing and formatting the Content-Type twice and looking up
 * its charset, about 10 µs a request (docs/performance.md, "What the features cost where
 * they run"), so the common answer is written straight. What res.send() does besides (a
 * 304 for a conditional request that is fresh, no body for 204, 205 and 304, an ETag where the
 * app computes them; this app does not) is left to it.
 */
export function sendJsonText(response: Response, text: string): void {
  const { headers } = response.req;
  const { statusCode } = response;
  if (
    headers['if-none-match'] !== undefined ||
    headers['if-modified-since'] !== undefined ||
    statusCode === 204 ||
    statusCode === 205 ||
    statusCode === 304 ||
    response.getHeader('Content-Type') !== undefined ||
    response.app.get('etag fn')
  ) {
    if (response.getHeader('Content-Type') === undefined) response.type('application/json');
    response.send(text);
    return;
  }
  writeJsonAnswer(response, text);
}

/**
 * Streams a JSON body that is produced in pieces (bytes), 200, with backpressure. The status is
 * only committed once the first piece (or the end) arrived, so a query that fails at once still
 * gets a proper error answer. After that, a failure can only cut the connection: the client sees
 * a truncated body, never a silent success. Whatever happens, the source is destroyed at the end,
 * which gives its database connection back: a client that hung up before the first piece, or
 * whose response closed while the pipeline was set up, would otherwise leave it open (Node 24's
 * pipeline() does not destroy the source when the destination is already closed).
 */
export async function sendStreamedJson(response: Response, body: Readable): Promise<void> {
  try {
    await Promise.race([once(body, 'readable'), once(body, 'end')]);
    if (response.destroyed || response.writableEnded) return;
    response.statusCode = 200;
    response.setHeader('Content-Type', JSON_CONTENT_TYPE);
    await pipeline(body, response).catch((error: unknown) => {
      // Headers are gone: cut the connection so the truncation shows (the filter does the same
      // for errors thrown after headers were sent). A client that left needs nothing more.
      if (!response.destroyed) response.destroy(error as Error);
    });
  } finally {
    body.destroy();
  }
}

/**
 * A JSON body that is either whole (sent with its Content-Length, in one write) or produced
 * in pieces (streamed, see sendStreamedJson), with 200.
 */
export async function sendJson(response: Response, body: string | Readable): Promise<void> {
  if (typeof body !== 'string') return sendStreamedJson(response, body);
  if (response.destroyed || response.writableEnded) return;
  response.statusCode = 200;
  sendJsonText(response, body);
}
