import { Injectable } from '@nestjs/common';

/**
 * Whether this instance is shutting down. Once draining, readiness fails (the balancer stops
 * sending new requests) and responses carry `Connection: close` (clients reconnect elsewhere).
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
