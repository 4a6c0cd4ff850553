import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import { deprecationHeaders } from './pets-deprecation.js';

/**
 * Middleware rather than an interceptor: it runs before the guard, so 401 and 400 answers of
 * the deprecated operation carry the headers too.
 */
@Injectable()
export class PetsDeprecationMiddleware implements NestMiddleware {
  private readonly headers: Record<string, string>;

  constructor(@InjectConfig() config: AppConfig) {
    this.headers = deprecationHeaders(config);
  }

  use(_request: Request, response: Response, next: NextFunction): void {
    response.set(this.headers);
    next();
  }
}
