import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { isPublicRoute } from '../auth/public.decorator.js';
import { RequestAuthenticator } from '../auth/request-authenticator.js';
import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { RATE_LIMIT_STORAGE, type RateLimitStorage } from './rate-limit.storage.js';

export const RATE_LIMITED_MESSAGE =
  'Too many requests; retry after the number of seconds in Retry-After.';

/** One-minute windows; a caller over its limit waits for a minute from its last counted hit. */
const WINDOW_MS = 60_000;
const BLOCK_MS = 60_000;

/**
 * Limits requests per API key, and per client address for requests without a valid key (so
 * guessing keys is slow). It runs before the API key guard, on the identity that guard will
 * use, with one budget per caller across every route. The headers are the plain
 * X-RateLimit-Limit, -Remaining, -Reset and, on a 429, Retry-After, that clients know; the 429
 * keeps the X-RateLimit headers, as GitHub and most APIs do.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(RATE_LIMIT_STORAGE) private readonly storage: RateLimitStorage,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (isPublicRoute(this.reflector, context)) {
      return true;
    }
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const identity = await this.authenticator.identify(request);
    const limit = identity.principal
      ? this.config.rateLimit.perKeyPerMinute
      : this.config.rateLimit.unauthenticatedPerMinute;
    if (limit === 0) {
      return true;
    }
    // req.ip honours TRUST_PROXY: behind a trusted balancer it is the real client address.
    const tracker = identity.principal
      ? `key:${identity.principal.fingerprint}`
      : `ip:${request.ip ?? request.socket.remoteAddress}`;
    const counted = await this.storage.hit(`default:${tracker}`, WINDOW_MS, limit, BLOCK_MS);
    const response = http.getResponse<Response>();
    if (counted.isBlocked) {
      response.setHeader('Retry-After', counted.timeToBlockExpire);
      response.setHeader('X-RateLimit-Limit', limit);
      response.setHeader('X-RateLimit-Remaining', 0);
      response.setHeader('X-RateLimit-Reset', counted.timeToBlockExpire);
      throw new DomainError(ErrorCode.RATE_LIMITED, RATE_LIMITED_MESSAGE);
    }
    response.setHeader('X-RateLimit-Limit', limit);
    response.setHeader('X-RateLimit-Remaining', Math.max(0, limit - counted.totalHits));
    response.setHeader('X-RateLimit-Reset', counted.timeToExpire);
    return true;
  }
}
