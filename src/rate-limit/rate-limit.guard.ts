import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { isPublicRoute } from '../auth/public.decorator.js';
import { RequestAuthenticator } from '../auth/request-authenticator.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';

/**
 * Limits requests per API key, and per client address for requests without a valid key (so
 * guessing keys is slow). It runs before the API key guard, on the identity that guard will
 * use. One `default` throttler, so the headers are the plain X-RateLimit-Limit, -Remaining,
 * -Reset and Retry-After that clients know.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly authenticator: RequestAuthenticator,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    super(options, storage, reflector);
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (isPublicRoute(this.reflector, context)) {
      return true;
    }
    return (await this.limitFor(context.switchToHttp().getRequest<Request>())) === 0;
  }

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const limit = await this.limitFor(request.context.switchToHttp().getRequest<Request>());
    return super.handleRequest({ ...request, limit });
  }

  /** One budget per caller across every route (the throttler's default is per route). */
  protected override generateKey(
    _context: ExecutionContext,
    tracker: string,
    throttlerName: string,
  ): string {
    return `${throttlerName}:${tracker}`;
  }

  /** GitHub and most APIs keep the X-RateLimit headers on the 429 too; the throttler drops them. */
  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const response = context.switchToHttp().getResponse<Response>();
    response.setHeader(`${this.headerPrefix}-Limit`, detail.limit);
    response.setHeader(`${this.headerPrefix}-Remaining`, 0);
    response.setHeader(`${this.headerPrefix}-Reset`, detail.timeToBlockExpire);
    return super.throwThrottlingException(context, detail);
  }

  protected override async getTracker(request: Request): Promise<string> {
    const identity = await this.authenticator.identify(request);
    // req.ip honours TRUST_PROXY: behind a trusted balancer it is the real client address.
    return identity.principal
      ? `key:${identity.principal.fingerprint}`
      : `ip:${request.ip ?? request.socket.remoteAddress}`;
  }

  private async limitFor(request: Request): Promise<number> {
    const identity = await this.authenticator.identify(request);
    return identity.principal
      ? this.config.rateLimit.perKeyPerMinute
      : this.config.rateLimit.unauthenticatedPerMinute;
  }
}
