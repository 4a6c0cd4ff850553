import { Injectable } from '@nestjs/common';

/**
 * Whether this instance is shutting down: once draining, readiness fails and the balancer
 * stops sending new requests (see graceful-shutdown.ts for the rest of the shutdown).
 */
@Injectable()
export class DrainState {
  private drainingSince: number | null = null;

  get draining(): boolean {
    return this.drainingSince !== null;
  }

  begin(): void {
    this.drainingSince ??= Date.now();
  }
}
