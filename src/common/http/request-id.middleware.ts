import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { mayHoldApiKey } from '../../auth/api-key.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Every request gets an X-Request-Id: the caller's when it is sane, else a new UUID. One that
 * could be an API key is replaced too: the id is echoed and logged, a key must be neither.
 */
export function requestIdMiddleware(
  request: Request,
  response: Response,
  next: NextFunction,
): void {
  const given = request.headers['x-request-id'];
  const id =
    typeof given === 'string' && SANE_REQUEST_ID.test(given) && !mayHoldApiKey(given)
      ? given
      : randomUUID();
  request.headers['x-request-id'] = id;
  response.setHeader('X-Request-Id', id);
  next();
}
