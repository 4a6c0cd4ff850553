import type { CreateWebhookDto } from './dto/create-webhook.dto.js';
import type { WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import type { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';

/*
 * The examples the API reference (/reference) shows on the webhook operations: one
 * subscription created, read and listed, and its deliveries in each state. Each must match its
 * schema (test/openapi-examples.e2e-spec.ts).
 */

/** createWebhook's request body. */
export const NEW_WEBHOOK_EXAMPLE: CreateWebhookDto = {
  url: 'https://hooks.example.com/petstore',
  events: ['order.placed', 'order.cancelled'],
  description: 'Order updates for the warehouse',
};

/** The subscription that body creates, as getWebhook answers it (without its secret). */
export const WEBHOOK_EXAMPLE: WebhookDto = {
  id: 12,
  ...NEW_WEBHOOK_EXAMPLE,
  createdAt: '2026-11-25T10:00:00.000Z',
};

/** createWebhook's answer: the subscription and its signing secret, shown only there. */
export const CREATED_WEBHOOK_EXAMPLE: CreatedWebhookDto = {
  ...WEBHOOK_EXAMPLE,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5ZZwtZkL6xU=',
};

/** Subscriptions by id, as listWebhooks answers them; a description is optional. */
export const WEBHOOK_LIST_EXAMPLE: WebhookDto[] = [
  WEBHOOK_EXAMPLE,
  {
    id: 15,
    url: 'https://crm.example.com/hooks/categories',
    events: ['category.created'],
    createdAt: '2026-11-26T08:30:00.000Z',
  },
];

/** One subscription's deliveries, oldest first: succeeded, failed for good, still pending. */
export const WEBHOOK_DELIVERY_LIST_EXAMPLE: WebhookDeliveryDto[] = [
  {
    eventId: 'evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10',
    type: 'order.placed',
    status: 'succeeded',
    attempts: 1,
    lastResponseStatus: 200,
    lastAttemptAt: '2026-11-25T10:00:02.000Z',
  },
  {
    eventId: 'evt_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    type: 'order.cancelled',
    status: 'failed',
    attempts: 8,
    lastResponseStatus: 503,
    lastAttemptAt: '2026-11-26T10:05:00.000Z',
  },
  {
    eventId: 'evt_9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b',
    type: 'order.placed',
    status: 'pending',
    attempts: 1,
    lastAttemptAt: '2026-11-27T09:00:01.000Z',
    nextAttemptAt: '2026-11-27T09:00:31.000Z',
  },
];
