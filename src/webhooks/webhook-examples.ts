import type { CreateWebhookDto } from './dto/create-webhook.dto.js';
import type {
  RecoverWebhookDeliveriesDto,
  RequeuedDto,
} from './dto/recover-webhook-deliveries.dto.js';
import type { UpdateWebhookDto } from './dto/update-webhook.dto.js';
import type { WebhookDeliveryDetailDto, WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import type { RotatedWebhookSecretDto, RotateWebhookSecretDto } from './dto/webhook-secret.dto.js';
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
  enabled: true,
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
    enabled: false,
    disabledAt: '2026-11-27T08:30:00.000Z',
    disabledReason: 'gone',
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

/** updateWebhook's request body: a new address and one more event type. */
export const UPDATE_WEBHOOK_EXAMPLE: UpdateWebhookDto = {
  url: 'https://hooks.example.com/petstore/v2',
  events: ['order.placed', 'order.shipped', 'order.cancelled'],
};

/** updateWebhook's answer: the subscription, changed. */
export const UPDATED_WEBHOOK_EXAMPLE: WebhookDto = {
  ...WEBHOOK_EXAMPLE,
  url: 'https://hooks.example.com/petstore/v2',
  events: ['order.placed', 'order.shipped', 'order.cancelled'],
};

/** rotateWebhookSecret's request body: the previous secret keeps signing for an hour. */
export const ROTATE_WEBHOOK_SECRET_EXAMPLE: RotateWebhookSecretDto = {
  previousSecretExpiresInSeconds: 3600,
};

/** rotateWebhookSecret's answer: the new secret, shown only there, and the overlap's end. */
export const ROTATED_WEBHOOK_SECRET_EXAMPLE: RotatedWebhookSecretDto = {
  secret: 'whsec_3q2+7w1F8ZkYb0mC9xV4nR6tL5pH2jD8sA1gE0uK7oI=',
  previousSecretExpiresAt: '2026-11-27T11:00:00.000Z',
};

/** getWebhookDelivery's answer: a failed delivery, its event as sent, and its attempts. */
export const WEBHOOK_DELIVERY_DETAIL_EXAMPLE: WebhookDeliveryDetailDto = {
  eventId: 'evt_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
  type: 'order.cancelled',
  status: 'failed',
  attempts: 2,
  lastResponseStatus: 503,
  lastAttemptAt: '2026-11-26T10:00:35.000Z',
  event: {
    id: 'evt_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
    type: 'order.cancelled',
    createdAt: '2026-11-26T10:00:00.000Z',
    data: { id: 42, petId: 7, quantity: 2, complete: false, status: 'cancelled' },
  },
  attemptLog: [
    { at: '2026-11-26T10:00:00.120Z', responseStatus: null, durationMs: 10000, error: 'timeout' },
    { at: '2026-11-26T10:00:35.000Z', responseStatus: 503, durationMs: 41, error: null },
  ],
};

/** redeliverWebhookDelivery's answer: the same delivery, pending again. */
export const REDELIVERED_WEBHOOK_DELIVERY_EXAMPLE: WebhookDeliveryDetailDto = {
  ...WEBHOOK_DELIVERY_DETAIL_EXAMPLE,
  status: 'pending',
  nextAttemptAt: '2026-11-27T09:00:00.000Z',
};

/** recoverWebhookDeliveries' request body: every failed delivery since an outage began. */
export const RECOVER_WEBHOOK_DELIVERIES_EXAMPLE: RecoverWebhookDeliveriesDto = {
  since: '2026-11-26T09:00:00+01:00',
};

/** recoverWebhookDeliveries' answer: how many deliveries went back to pending. */
export const REQUEUED_EXAMPLE: RequeuedDto = { requeued: 17 };
