import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { petDeprecationHeaders } from './pets-deprecation.js';

/**
 * Middleware rather than an interceptor: it runs before the guard, so 401 and 400 answers of
 * the deprecated operation carry the headers too. Beside the deprecation link, the Link names
 * the pet's successor in v2 (rel="successor-version", RFC 5829) when the path names a pet id
 * (a path id v2 would refuse has no successor to point at).
 */
@Injectable()
export class PetsDeprecationMiddleware implements NestMiddleware {
  private readonly headersFor: ReturnType<typeof petDeprecationHeaders>;

  constructor(@InjectConfig() config: AppConfig) {
    this.headersFor = petDeprecationHeaders(config);
  }

  use(request: Request, response: Response, next: NextFunction): void {
    const petId = (request.params as Record<string, unknown> | undefined)?.petId;
    for (const [name, value] of this.headersFor(petId)) response.setHeader(name, value);
    next();
  }
}
