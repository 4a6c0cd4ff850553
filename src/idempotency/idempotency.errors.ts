import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency-key.js';

/** The first request with this key is still running: retry in a second (docs/api.md, Idempotency-Key). */
export class IdempotencyKeyInUseError extends DomainError {
  constructor() {
    super(
      ErrorCode.IDEMPOTENCY_KEY_IN_USE,
      `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry after the time in Retry-After.`,
      { headers: { 'Retry-After': '1' } },
    );
  }
}

/** The key was used with another body: a client bug that no retry can fix. */
export class IdempotencyKeyReusedError extends DomainError {
  constructor() {
    super(
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
      `This ${IDEMPOTENCY_KEY_HEADER} was used for a different request to this operation.`,
    );
  }
}
