import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { errorBody } from '../common/errors/error.dto.js';
import { unauthorizedError } from './api-key.guard.js';
import type { RequestAuthenticator } from './request-authenticator.js';

/**
 * Express decodes path parameters before any guard runs, so a path it cannot decode would be
 * answered 400 before authentication; this middleware keeps such a request a 401 without a
 * valid key, like any other. It must be middleware: no guard runs for it.
 */
export function authenticateUndecodablePaths(authenticator: RequestAuthenticator): RequestHandler {
  return (request: Request, response: Response, next: NextFunction) => {
    if (isDecodable(request.path)) return next();
    authenticator.identify(request).then((identity) => {
      if (identity.principal) return next();
      const error = unauthorizedError(identity.keySent);
      response.status(error.status).set(error.headers).json(errorBody(error));
    }, next);
  };
}

function isDecodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}
