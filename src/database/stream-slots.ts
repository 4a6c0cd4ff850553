import { Injectable } from '@nestjs/common';
import { ServiceUnavailableError } from '../common/errors/domain-error.js';
import { InjectConfig } from '../config/app-config.provider.js';
import type { AppConfig } from '../config/app-config.js';

/**
 * The connections long lists may hold at once in this instance (DB_MAX_STREAMS): a streamed
 * list keeps its connection for as long as the client reads, so without a bound long lists
 * could take the whole pool. Past the bound, 503 with Retry-After.
 */
@Injectable()
export class StreamSlots {
  private readonly max: number;
  private open = 0;

  constructor(@InjectConfig() config: AppConfig) {
    this.max = config.db.maxStreams;
  }

  /** Takes a slot or throws the 503; the function returned frees it (once, however often called). */
  acquire(): () => void {
    if (this.open >= this.max) {
      throw new ServiceUnavailableError(
        'Too many order lists are being sent right now; retry shortly.',
        1,
      );
    }
    this.open++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open--;
    };
  }
}
