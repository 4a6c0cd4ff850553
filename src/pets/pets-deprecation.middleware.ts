import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { isInt64Id } from '../common/http/int64-id.pipe.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { deprecationHeaders, successorBase } from './pets-deprecation.js';

/**
 * Middleware rather than an interceptor: it runs before the guard, so 401 and 400 answers of
 * the deprecated operation carry the headers too. Beside the deprecation link, the Link names
 * the pet's successor in v2 (rel="successor-version", RFC 5829) when the path names a pet id
 * (a path id v2 would refuse has no successor to point at).
 */
@Injectable()
export class PetsDeprecationMiddleware implements NestMiddleware {
  private readonly headers: Record<string, string>;
  private readonly deprecationLink: string;
  private readonly successorBase: string;

  constructor(@InjectConfig() config: AppConfig) {
    this.headers = deprecationHeaders(config);
    this.deprecationLink = this.headers.Link;
    this.successorBase = successorBase(config);
  }

  use(request: Request, response: Response, next: NextFunction): void {
    response.set(this.headers);
    const petId = (request.params as Record<string, unknown> | undefined)?.petId;
    if (isInt64Id(petId)) {
      response.set(
        'Link',
        `${this.deprecationLink}, <${this.successorBase}${petId}>; rel="successor-version"`,
      );
    }
    next();
  }
}
