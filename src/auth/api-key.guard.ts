import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';
import type { ApiKeyPrincipal } from './api-keys.service.js';
import { RateLimiter } from '../rate-limit/rate-limiter.js';
import { isPublicRoute } from './public.decorator.js';
import type { RequestIdentity } from './request-authenticator.js';

const REALM = 'Bearer realm="petstore"';

export interface AuthenticatedRequest extends Request {
  apiKey?: ApiKeyPrincipal;
}

/**
 * Deny by default: every route needs a valid API key unless marked @Public(). The rate limiter
 * counts the request first and answers who sent it, so that guessing keys is slow (an unknown
 * key is counted against its address before it costs a database lookup); then a request
 * without a valid key is refused. One guard does both: the limiter already knows the caller.
 * Body parsing happens later (in an interceptor), so a refused request's body is never read.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {}

  /** Without waiting when memory knows the key and the limiter counts in memory. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (isPublicRoute(this.reflector, context)) {
      return true;
    }
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const identity = this.limiter.admit(request, http.getResponse<Response>());
    return identity instanceof Promise
      ? identity.then((known) => admitted(request, known))
      : admitted(request, identity);
  }
}

function admitted(request: AuthenticatedRequest, identity: RequestIdentity): true {
  if (identity.principal) {
    request.apiKey = identity.principal;
    return true;
  }
  throw unauthorizedError(identity.keySent);
}

/** The 401 of a request without a valid key: `invalid_token` when a key was sent. */
export function unauthorizedError(keySent: boolean): DomainError {
  return keySent
    ? new DomainError(
        ErrorCode.UNAUTHORIZED,
        'The API key is missing, malformed, unknown or revoked.',
        {
          headers: { 'WWW-Authenticate': `${REALM}, error="invalid_token"` },
        },
      )
    : new DomainError(
        ErrorCode.UNAUTHORIZED,
        'An API key is required: send "Authorization: Bearer <API_KEY>".',
        {
          headers: { 'WWW-Authenticate': REALM },
        },
      );
}
