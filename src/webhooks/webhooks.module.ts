import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { WebhookSubscriptionRepository } from './webhook-subscription.repository.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhooks (docs/webhooks.md): the subscriptions API and the dispatcher. The features
 * write their events through outbox.ts, inside their own statements; none calls this module.
 */
@Module({
  imports: [IdempotencyModule],
  controllers: [WebhooksController],
  providers: [
    WebhookSubscriptionRepository,
    WebhooksService,
    WebhookDeliveryRepository,
    WebhookMetrics,
    WebhookDispatcher,
  ],
})
export class WebhooksModule {}
