import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { RequestAuthenticator, type RequestIdentity } from '../auth/request-authenticator.js';
import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import {
  RATE_LIMIT_STORAGE,
  type RateLimitResult,
  type RateLimitStorage,
} from './rate-limit.storage.js';
import {
  RATE_LIMIT_BLOCK_MS,
  RATE_LIMIT_WINDOW_MS,
  setBlockedHeaders,
  setCountedHeaders,
} from './rate-limit-headers.js';

export const RATE_LIMITED_MESSAGE =
  'Too many requests; retry after the number of seconds in Retry-After.';

/**
 * Counts requests per API key, and per client address for requests without a valid key (so
 * guessing keys is slow), with one budget per caller across every route. The headers are the
 * plain X-RateLimit-Limit, -Remaining, -Reset and, on a 429, Retry-After, that clients know;
 * the 429 keeps the X-RateLimit headers, as GitHub and most APIs do.
 *
 * A key that memory does not know (neither verified nor refused within API_KEY_CACHE_TTL_MS)
 * costs a database lookup, so such a request is looked up only while its address has not had
 * its budget of refused keys, and an address's lookups run one at a time on each instance,
 * each refused one counted before the next is asked: a flood of random keys from one address
 * costs at most its budget of lookups (plus one per instance) until its block ends, in the same storage
 * as every count (Redis: across instances). A valid key is never counted against its
 * address (docs/operating.md, Unknown API keys).
 */
@Injectable()
export class RateLimiter {
  /** Per address, the end of its queue of lookups (this instance; see lookUpInTurn). */
  private readonly lookupQueues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly authenticator: RequestAuthenticator,
    @InjectConfig() private readonly config: AppConfig,
    @Inject(RATE_LIMIT_STORAGE) private readonly storage: RateLimitStorage,
  ) {}

  /**
   * Counts `request` against its caller's budget (429 past it); answers who the caller is.
   * Without waiting when memory knows the caller and the storage counts in memory: the common
   * request then takes no trip through the microtask queue here (docs/performance.md).
   */
  admit(request: Request, response: Response): RequestIdentity | Promise<RequestIdentity> {
    const { unauthenticatedPerMinute } = this.config.rateLimit;
    const identity = this.authenticator.recall(request);
    if (identity === undefined) {
      const looked =
        unauthenticatedPerMinute === 0
          ? this.authenticator.identify(request)
          : this.lookUpInTurn(addressOf(request), (address) =>
              this.lookUp(request, response, address, unauthenticatedPerMinute),
            );
      return Promise.resolve(looked).then((known) => this.countKey(known, response));
    }
    if (!identity.principal && unauthenticatedPerMinute > 0) {
      return after(this.count(addressOf(request), unauthenticatedPerMinute, response), identity);
    }
    return this.countKey(identity, response);
  }

  /** Counts a request of a valid key against that key's budget. */
  private countKey(
    identity: RequestIdentity,
    response: Response,
  ): RequestIdentity | Promise<RequestIdentity> {
    const { perKeyPerMinute } = this.config.rateLimit;
    if (!identity.principal || perKeyPerMinute === 0) return identity;
    return after(
      this.count(`key:${identity.principal.fingerprint}`, perKeyPerMinute, response),
      identity,
    );
  }

  /** A lookup for a request from `address`: none while it is blocked; a rejection counted. */
  private async lookUp(
    request: Request,
    response: Response,
    address: string,
    limit: number,
  ): Promise<RequestIdentity> {
    // Only keys refused by the database block the lookups: requests without a key from the same
    // address (a NAT, a balancer) must not lock its valid keys out.
    const rejections = `default:refused-keys:${address}`;
    const blockedFor = await this.storage.blockedFor(rejections);
    if (blockedFor > 0) {
      throw rateLimited(response, limit, blockedFor);
    }
    const identity = await this.authenticator.identify(request);
    if (!identity.principal) {
      await this.storage.hit(rejections, RATE_LIMIT_WINDOW_MS, limit, RATE_LIMIT_BLOCK_MS);
      await this.count(address, limit, response);
    }
    return identity;
  }

  /** Runs `lookUp` after the lookups of `address` already queued on this instance. */
  private lookUpInTurn<T>(address: string, lookUp: (address: string) => Promise<T>): Promise<T> {
    const previous = this.lookupQueues.get(address);
    const result = previous ? previous.then(() => lookUp(address)) : lookUp(address);
    const done = result.then(noop, noop);
    this.lookupQueues.set(address, done);
    void done.then(() => {
      if (this.lookupQueues.get(address) === done) this.lookupQueues.delete(address);
    });
    return result;
  }

  /** Counts one hit of `tracker`: its headers set, or the 429 thrown (or rejected). */
  private count(tracker: string, limit: number, response: Response): void | Promise<void> {
    const counted = this.storage.hit(
      `default:${tracker}`,
      RATE_LIMIT_WINDOW_MS,
      limit,
      RATE_LIMIT_BLOCK_MS,
    );
    return counted instanceof Promise
      ? counted.then((result) => setCountHeaders(result, limit, response))
      : setCountHeaders(counted, limit, response);
  }
}

function setCountHeaders(counted: RateLimitResult, limit: number, response: Response): void {
  if (counted.isBlocked) {
    throw rateLimited(response, limit, counted.timeToBlockExpire);
  }
  setCountedHeaders(response, limit, counted);
}

/** `value` once `done` is (at once when `done` is not a promise). */
function after<T>(done: void | Promise<void>, value: T): T | Promise<T> {
  return done instanceof Promise ? done.then(() => value) : value;
}

/** The 429, its headers set on `response`: blocked for `seconds` more. */
function rateLimited(response: Response, limit: number, seconds: number): DomainError {
  setBlockedHeaders(response, limit, seconds);
  return new DomainError(ErrorCode.RATE_LIMITED, RATE_LIMITED_MESSAGE);
}

function noop(): void {}

/** req.ip honours TRUST_PROXY: behind a trusted balancer it is the real client address. */
function addressOf(request: Request): string {
  return `ip:${request.ip ?? request.socket.remoteAddress}`;
}
