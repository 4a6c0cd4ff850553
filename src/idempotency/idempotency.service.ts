import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Counter } from 'prom-client';
import { errorBody } from '../common/errors/error.dto.js';
import { mapDatabaseError } from '../common/errors/database-error.mapper.js';
import { DomainError, ServiceUnavailableError } from '../common/errors/domain-error.js';
import type { ErrorCode } from '../common/errors/error-code.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import type { AttachedWrite } from '../database/attached-writes.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError } from './idempotency.errors.js';
import {
  IdempotencyRepository,
  type Claim,
  type IdempotencyScope,
  type StoredResponse,
} from './idempotency.repository.js';

/** A request that sent an Idempotency-Key, as the interceptor read it. */
export interface IdempotentRequest extends IdempotencyScope {
  /** SHA-256 of the canonical JSON body (what "the same request" means). */
  fingerprint: Buffer;
  /** Location of a created resource is this followed by its id; null: no Location. */
  locationPrefix: string | null;
}

/**
 * A create that can remember its answer in its own statement: what a create route of any
 * version hands IdempotencyService.create().
 */
export interface IdempotentCreate<Row, Body> {
  /**
   * The created resource as the API shows it: SQL (json) over the statement's RETURNING row
   * `main`, its resource's *_JSON.sql (src/store/order-json.ts and the like).
   */
  bodySql: string;
  /** The operation's own rejection when its statement creates nothing (under a key, remembered). */
  rejection(): DomainError;
  /** Runs the operation's statement with these attached writes: the new row (null: refused), their outputs. */
  insert(
    attachedWrites: AttachedWrite[],
  ): Promise<{ created: Row | null; outputs: Record<string, unknown> }>;
  /** The new row as the response body, when no Idempotency-Key was sent (bodySql's twin). */
  render(row: Row): Body;
}

/** The success answer of an idempotent create, first or replayed; rejections are thrown. */
export class IdempotentResponse {
  constructor(
    readonly answer: StoredResponse,
    readonly replayed: boolean,
  ) {}
}

/** Reading the record again after a lost race: a few tries, then it is in use. */
const MAX_CLAIM_ATTEMPTS = 3;

/**
 * Idempotency-Key (docs/api.md, Idempotency-Key): claims a key, runs the create with an attached write that
 * records its answer in the same statement (one transaction, no extra round trip), and replays
 * remembered answers. An idempotent create costs one round trip more than a plain one: the claim.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger('Idempotency');
  private readonly settings: AppConfig['idempotency'];
  private readonly replays: Counter<'operation' | 'version'>;

  constructor(
    private readonly repository: IdempotencyRepository,
    @InjectConfig() config: AppConfig,
    metrics: MetricsService,
  ) {
    this.settings = config.idempotency;
    this.replays = metrics.counter({
      name: 'petstore_idempotency_replays_total',
      help: 'Remembered answers repeated to an Idempotency-Key retry (201s and remembered rejections), by operationId and API version',
      labelNames: ['operation', 'version'],
    });
  }

  /**
   * A create route's answer, in every version: the one place that tells a plain create from an
   * idempotent one. Without an Idempotency-Key, the new resource as `show` renders it (or the
   * rejection, thrown); with one, the answer recorded with it, or the remembered one.
   */
  async create<Row, Body>(
    request: IdempotentRequest | undefined,
    create: IdempotentCreate<Row, Body>,
  ): Promise<Body | IdempotentResponse> {
    if (request) return this.execute(request, create);
    const { created } = await create.insert([]);
    if (created === null) throw create.rejection();
    return create.render(created);
  }

  /**
   * The answer to `request`: the remembered one (replayed), or the create's, remembered. A
   * rejection (the operation's own, remembered or replayed; 409 in use; 422 reused) is thrown.
   * Any other failure frees the key, so a retry runs again; when the key cannot be freed (the
   * database is unreachable), the answer is a 503 whose Retry-After outlasts the key's lock,
   * so that a client that waits as told finds the key free (docs/api.md, Idempotency-Key).
   */
  private async execute<Row>(
    request: IdempotentRequest,
    create: IdempotentCreate<Row, unknown>,
  ): Promise<IdempotentResponse> {
    const claim = await this.claim(request);
    if (claim instanceof IdempotentResponse) return claim;
    // The lock runs from the claim statement's start, which was before this moment.
    const claimedAt = performance.now();
    let recorded: StoredResponse | null;
    try {
      const rejection = create.rejection();
      const attachedWrite = this.repository.recordingAttachedWrite(claim, {
        bodySql: create.bodySql,
        locationPrefix: request.locationPrefix,
        rejection: { status: rejection.status, body: JSON.stringify(errorBody(rejection)) },
        retentionSeconds: this.settings.retentionSeconds,
      });
      recorded = IdempotencyRepository.recorded(
        (await create.insert([attachedWrite])).outputs[attachedWrite.name],
      );
    } catch (error) {
      const released = await this.repository.release(claim).then(
        () => true,
        (releaseError: unknown) => {
          // The lock's expiry frees it instead.
          this.logger.warn(`could not free an Idempotency-Key: ${String(releaseError)}`);
          return false;
        },
      );
      if (released) throw error;
      throw this.keyStaysHeld(performance.now() - claimedAt);
    }
    // Held past its lock and taken over by a retry: this request wrote nothing; that one runs.
    if (!recorded) throw new IdempotencyKeyInUseError();
    return responseOf(recorded, false);
  }

  private async claim(request: IdempotentRequest): Promise<Claim | IdempotentResponse> {
    const { lockSeconds, retentionSeconds } = this.settings;
    for (let attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt++) {
      const terms = {
        fingerprint: request.fingerprint,
        token: randomUUID(),
        lockSeconds,
        retentionSeconds,
      };
      const result = await this.mayTakeKey(this.repository.claim(request, terms));
      if ('claimed' in result) return result.claimed;
      if ('raced' in result) continue;
      const record = result.existing;
      if (record.expired || record.abandoned) {
        // Nothing is remembered under the key any more: it is free, whatever the body.
        const taken = await this.mayTakeKey(this.repository.takeOver(record.id, terms));
        if (taken) return taken;
        continue;
      }
      if (!record.fingerprint.equals(request.fingerprint)) throw new IdempotencyKeyReusedError();
      if (record.running || !record.answer) throw new IdempotencyKeyInUseError();
      this.replays.inc({ operation: request.operation, version: request.version });
      return responseOf(record.answer, true);
    }
    throw new IdempotencyKeyInUseError();
  }

  /**
   * A statement that takes the key: when the database fails it (unreachable, too slow), it may
   * have taken the key all the same (a connection lost after the commit), so the 503 says to
   * retry once a lock taken now would be over.
   */
  private async mayTakeKey<T>(statement: Promise<T>): Promise<T> {
    try {
      return await statement;
    } catch (error) {
      if (!(mapDatabaseError(error) instanceof ServiceUnavailableError)) throw error;
      throw this.keyStaysHeld(0);
    }
  }

  /**
   * The answer when the key stays held by a request that did not complete: 503, with a
   * Retry-After past the lock (taken `heldMs` ago at most) by a second, so that the retry
   * finds the key free and runs.
   */
  private keyStaysHeld(heldMs: number): ServiceUnavailableError {
    const lockLeftMs = Math.max(0, this.settings.lockSeconds * 1000 - heldMs);
    return new ServiceUnavailableError(
      'The request did not complete and its Idempotency-Key is held until its lock expires; retry after the time in Retry-After.',
      Math.ceil(lockLeftMs / 1000) + 1,
    );
  }

  /** Deletes expired records in batches; answers how many. */
  async purgeExpired(batchSize = 1000, maxBatches = 100): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < maxBatches; batch++) {
      const deleted = await this.repository.purgeExpired(batchSize);
      total += deleted;
      if (deleted < batchSize) break;
    }
    return total;
  }
}

/** A remembered answer: a success to send, or a rejection to throw as the filter renders it. */
function responseOf(stored: StoredResponse, replayed: boolean): IdempotentResponse {
  if (stored.status < 400) return new IdempotentResponse(stored, replayed);
  const body = JSON.parse(stored.body) as { code: ErrorCode; message: string; status: number };
  throw new DomainError(body.code, body.message, {
    status: stored.status,
    headers: replayed ? { 'Idempotent-Replayed': 'true' } : {},
  });
}
