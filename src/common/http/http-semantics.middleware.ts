import type { NextFunction, Request, Response } from 'express';
import { DomainError } from '../errors/domain-error.js';
import { ErrorCode } from '../errors/error-code.js';
import { errorBody } from '../errors/error.dto.js';

/** Node's test for the one expectation it meets itself (it sends `100 Continue`). */
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

const NO_HOST = new DomainError(
  ErrorCode.VALIDATION_FAILED,
  'The request has no Host header (HTTP/1.1 requires one).',
);
const EXPECTATION_FAILED = new DomainError(
  ErrorCode.EXPECTATION_FAILED,
  'Only "Expect: 100-continue" is supported.',
);

/**
 * What HTTP/1.1 says a server must refuse before anything else, and Node would answer bare
 * (configureHttpServer hands both to the app): a request without Host is a 400 (RFC 9112,
 * section 3.2), an Expect other than 100-continue a 417 (RFC 9110, section 10.1.1). Both close
 * the connection: a body may follow that nobody reads. HTTP/1.0 needs no Host, and its Expect
 * is ignored, as RFC 9110 says.
 */
export function refuseUnmetHttpRequirements(
  request: Request,
  response: Response,
  next: NextFunction,
): void {
  if (request.httpVersionMinor === 1 && request.httpVersionMajor === 1) {
    const { host, expect } = request.headers;
    const refused =
      host === undefined
        ? NO_HOST
        : expect !== undefined && !CONTINUE.test(expect)
          ? EXPECTATION_FAILED
          : undefined;
    if (refused !== undefined) {
      response.status(refused.status).set('Connection', 'close').json(errorBody(refused));
      return;
    }
  }
  next();
}
