import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { errorBody } from '../common/errors/error.dto.js';
import { unauthorizedError } from './api-key.guard.js';
import { isUnderPath } from '../common/http/path-prefix.js';
import type { RequestIdentity } from './request-authenticator.js';

/**
 * Express decodes path parameters before any guard runs, so a path it cannot decode would be
 * answered 400 before authentication; this middleware keeps such a request a 401 without a
 * valid key, like any other. It must be middleware: no guard runs for it. `admit` is the rate
 * limiter's (RateLimiter.admit): such a request is counted like any other, and an unknown key
 * costs its address's budget before it costs a lookup. Only paths under `prefixes` (the API
 * versions) are its concern; it tests them itself rather than being mounted on them, so that
 * the common request, whose URL has no `%`, costs one string search.
 */
export function authenticateUndecodablePaths(
  prefixes: readonly string[],
  admit: (request: Request, response: Response) => RequestIdentity | Promise<RequestIdentity>,
): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    // Only a percent sign can make a path undecodable.
    if (!request.url.includes('%')) return next();
    const path = request.path;
    if (!prefixes.some((prefix) => isUnderPath(path, prefix)) || isDecodable(path)) return next();
    // A promise either way: admit answers at once when it can, and may throw a 429.
    new Promise<RequestIdentity>((resolve) => resolve(admit(request, response))).then(
      (identity) => {
        if (identity.principal) return next();
        refuse(response, unauthorizedError(identity.keySent));
      },
      (error: unknown) => (error instanceof DomainError ? refuse(response, error) : next(error)),
    );
  };
}

function refuse(response: Response, error: DomainError): void {
  response.status(error.status).set(error.headers).json(errorBody(error));
}

function isDecodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
