import { DomainError } from '../common/errors/domain-error.js';
import { ErrorCode } from '../common/errors/error-code.js';

/** No such subscription for this API key: another key's is answered exactly the same way. */
export class WebhookNotFoundError extends DomainError {
  constructor(webhookId: string) {
    super(ErrorCode.WEBHOOK_NOT_FOUND, `Webhook ${webhookId} does not exist.`);
  }
}

/**
 * A repeat of a creation (same Idempotency-Key) whose subscription has been deleted since: its
 * answer cannot be repeated, as the secret went with the subscription.
 */
export class WebhookDeletedSinceError extends DomainError {
  constructor(webhookId: string) {
    super(
      ErrorCode.WEBHOOK_NOT_FOUND,
      `Webhook ${webhookId}, created under this Idempotency-Key, has been deleted since.`,
    );
  }
}

export class WebhookLimitReachedError extends DomainError {
  constructor(limit: number) {
    super(
      ErrorCode.WEBHOOK_LIMIT_REACHED,
      `This API key already has ${limit} webhook subscriptions; delete one first.`,
    );
  }
}
