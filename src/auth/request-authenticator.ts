import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeysService, type ApiKeyPrincipal } from './api-keys.service.js';

/** Who sent a request: a valid key's principal, or why there is none. */
export type RequestIdentity =
  { principal: ApiKeyPrincipal } | { principal: null; keySent: boolean };

/** `Bearer <token>`, scheme word in any case (RFC 7235), one token of visible characters. */
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

/**
 * Reads the API key of a request once. The rate limiter (which keys its counts on it) and the
 * API key guard (which refuses without it) both ask; the answer is kept per request.
 */
@Injectable()
export class RequestAuthenticator {
  private readonly identities = new WeakMap<Request, Promise<RequestIdentity>>();

  constructor(private readonly apiKeys: ApiKeysService) {}

  identify(request: Request): Promise<RequestIdentity> {
    let identity = this.identities.get(request);
    if (!identity) {
      identity = this.resolve(request.headers.authorization);
      this.identities.set(request, identity);
    }
    return identity;
  }

  private async resolve(header: string | undefined): Promise<RequestIdentity> {
    if (header === undefined || header.trim() === '') {
      return { principal: null, keySent: false };
    }
    const token = BEARER.exec(header)?.[1];
    const principal = token === undefined ? null : await this.apiKeys.verify(token);
    return principal ? { principal } : { principal: null, keySent: true };
  }
}
