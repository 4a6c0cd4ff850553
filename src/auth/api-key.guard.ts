import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';
import type { ApiKeyPrincipal } from './api-keys.service.js';
import { isPublicRoute } from './public.decorator.js';
import { RequestAuthenticator, type RequestIdentity } from './request-authenticator.js';

const REALM = 'Bearer realm="petstore"';

export interface AuthenticatedRequest extends Request {
  apiKey?: ApiKeyPrincipal;
}

/**
 * Deny by default: every route needs a valid API key unless marked @Public(). Body parsing
 * happens later (in an interceptor), so an unauthenticated request is refused before its body
 * is read. Only the rate limiter runs earlier, so that guessing keys is slow (and an unknown
 * key is counted against its address before it costs a database lookup).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
  ) {}

  /** Without waiting when memory knows the key (the rate limiter, before, has asked). */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (isPublicRoute(this.reflector, context)) {
      return true;
    }
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const identity = this.authenticator.identify(request);
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
