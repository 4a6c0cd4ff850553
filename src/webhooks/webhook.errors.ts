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

/**
 * A repeat of a rotation (same Idempotency-Key) whose secret no longer signs: rotated again
 * and past the overlap, or the subscription deleted. Its answer cannot be repeated.
 */
export class WebhookSecretReplacedError extends DomainError {
  constructor(webhookId: string) {
    super(
      ErrorCode.WEBHOOK_NOT_FOUND,
      `The secret of webhook ${webhookId} rotated under this Idempotency-Key no longer signs (rotated again, or deleted); rotate again with a new key.`,
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

/** redeliver and recover on a disabled subscription: enable it first. */
export class WebhookDisabledError extends DomainError {
  constructor(webhookId: string) {
    super(
      ErrorCode.WEBHOOK_DISABLED,
      `Webhook ${webhookId} is disabled; enable it (PATCH enabled: true) first.`,
    );
  }
}

/** No delivery of this event to this subscription (or not any more: past the retention). */
export class DeliveryNotFoundError extends DomainError {
  constructor(webhookId: string, eventId: string) {
    super(
      ErrorCode.DELIVERY_NOT_FOUND,
      `Webhook ${webhookId} has no delivery of event ${eventId}.`,
    );
  }
}

/** redeliver of a delivery that has not finished yet: it is still being sent. */
export class DeliveryPendingError extends DomainError {
  constructor(eventId: string) {
    super(ErrorCode.DELIVERY_PENDING, `The delivery of event ${eventId} is still pending.`);
  }
}
