import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiKeysService, type ApiKeyPrincipal } from './api-keys.service.js';
import { IS_PUBLIC } from './public.decorator.js';

const REALM = 'Bearer realm="petstore"';
/** `Bearer <token>`, scheme word in any case (RFC 7235), one token of visible characters. */
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

export interface AuthenticatedRequest extends Request {
  apiKey?: ApiKeyPrincipal;
}

/**
 * Deny by default: every route needs a valid API key unless marked @Public(). Runs before
 * anything else looks at the request (body parsing happens in an interceptor, after guards).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) {
      return true;
    }
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new DomainError(
        ErrorCode.UNAUTHORIZED,
        'An API key is required: send "Authorization: Bearer <API_KEY>".',
        {
          headers: { 'WWW-Authenticate': REALM },
        },
      );
    }
    const token = BEARER.exec(header)?.[1];
    const principal = token === undefined ? null : await this.apiKeys.verify(token);
    if (!principal) {
      throw new DomainError(
        ErrorCode.UNAUTHORIZED,
        'The API key is missing, malformed, unknown or revoked.',
        {
          headers: { 'WWW-Authenticate': `${REALM}, error="invalid_token"` },
        },
      );
    }
    request.apiKey = principal;
    return true;
  }
}
