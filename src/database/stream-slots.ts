import { Injectable } from '@nestjs/common';
import { DomainError, ServiceUnavailableError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { InjectConfig } from '../config/app-config.provider.js';
import type { AppConfig } from '../config/app-config.js';

/**
 * The connections long lists may hold at once in this instance (DB_MAX_STREAMS), and each API
 * key's share of them (DB_MAX_STREAMS_PER_KEY). A streamed list keeps its connection for as
 * long as the client reads: without a bound, long lists could take the whole pool; without a
 * share, one key could take every slot and deny everyone else's lists. A key over its share is
 * 429 (its own doing); an instance whose slots are all taken is 503. Both carry Retry-After, and
 * neither makes the shipped nginx config take the instance out (docs/operating.md).
 */
@Injectable()
export class StreamSlots {
  private readonly max: number;
  private readonly perKey: number;
  private open = 0;
  /** Slots held per key id; a key holding none has no entry. */
  private readonly openByKey = new Map<number, number>();

  constructor(@InjectConfig() config: AppConfig) {
    this.max = config.db.maxStreams;
    this.perKey = config.db.maxStreamsPerKey;
  }

  /**
   * Takes a slot for the key or throws the 429 or 503; the function returned frees it (once,
   * however often called).
   */
  acquire(keyId: number): () => void {
    this.refuseIfTaken(keyId);
    const held = this.openByKey.get(keyId) ?? 0;
    this.open++;
    this.openByKey.set(keyId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
      const left = (this.openByKey.get(keyId) ?? 1) - 1;
      if (left === 0) this.openByKey.delete(keyId);
      else this.openByKey.set(keyId, left);
    };
  }

  /**
   * Throws the 429 or 503 that acquire would, without taking a slot: for a caller that can tell
   * it will need one before it does any work for it.
   */
  refuseIfTaken(keyId: number): void {
    if ((this.openByKey.get(keyId) ?? 0) >= this.perKey) {
      throw new DomainError(
        ErrorCode.RATE_LIMITED,
        `This API key already has its share of order lists being sent at once (${this.perKey}); retry when one has finished.`,
        { headers: { 'Retry-After': '1' } },
      );
    }
    if (this.open >= this.max) {
      throw new ServiceUnavailableError(
        'Too many order lists are being sent right now; retry shortly.',
        1,
      );
    }
  }
}
