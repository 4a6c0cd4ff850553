import { Module } from '@nestjs/common';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

/** Webhooks (contract section 11): the dispatcher; the features write events via outbox.ts. */
@Module({
  providers: [WebhookDeliveryRepository, WebhookDispatcher],
})
export class WebhooksModule {}
