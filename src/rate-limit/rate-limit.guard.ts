import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { isPublicRoute } from '../auth/public.decorator.js';
import { RateLimiter } from './rate-limiter.js';

/**
 * Applies the rate limits (RateLimiter) to every route but the @Public() ones. It runs before
 * the API key guard, on the identity that guard will use.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (isPublicRoute(this.reflector, context)) {
      return true;
    }
    const http = context.switchToHttp();
    const admitted = this.limiter.admit(http.getRequest<Request>(), http.getResponse<Response>());
    return admitted instanceof Promise ? admitted.then(() => true) : true;
  }
}
