import { Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeysService, type ApiKeyPrincipal } from './api-keys.service.js';

/** Who sent a request: a valid key's principal, or why there is none. */
export type RequestIdentity =
  { principal: ApiKeyPrincipal } | { principal: null; keySent: boolean };

/** `Bearer <token>`, scheme word in any case (RFC 7235), one token of visible characters. */
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

const NO_KEY: RequestIdentity = { principal: null, keySent: false };
const REFUSED_KEY: RequestIdentity = { principal: null, keySent: true };

/**
 * Who sent a request. Memory answers first (recall); only a key memory does not know costs a
 * database lookup (identify), and the rate limiter, the one caller, counts that request against
 * its address before it asks.
 */
@Injectable()
export class RequestAuthenticator {
  constructor(private readonly apiKeys: ApiKeysService) {}

  /**
   * The request's identity when memory can tell it: no key, a malformed one, a key verified or
   * refused lately. Undefined when only the database can (identify asks it).
   */
  recall(request: Request): RequestIdentity | undefined {
    const token = bearerToken(request.headers.authorization);
    if (typeof token !== 'string') return token;
    const principal = this.apiKeys.recall(token);
    if (principal === undefined) return undefined;
    return principal ? { principal } : REFUSED_KEY;
  }

  /** The request's identity, from memory or else from the database. */
  identify(request: Request): RequestIdentity | Promise<RequestIdentity> {
    return (
      this.recall(request) ??
      this.apiKeys
        .verify(bearerToken(request.headers.authorization) as string)
        .then((principal): RequestIdentity => (principal ? { principal } : REFUSED_KEY))
    );
  }
}

/** The token of an Authorization header, or the identity of a request without a usable one. */
function bearerToken(header: string | undefined): string | RequestIdentity {
  if (header === undefined || header.trim() === '') {
    return NO_KEY;
  }
  return BEARER.exec(header)?.[1] ?? REFUSED_KEY;
}
