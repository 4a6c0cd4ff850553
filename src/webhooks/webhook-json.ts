import {
  boolean,
  integer,
  resourceJson,
  text,
  textArray,
  timestamp,
} from '../database/resource-json.js';
import type { WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import type { WebhookDto } from './dto/webhook.dto.js';
import type { WebhookEventType } from './webhook-events.js';
import type {
  WebhookDeliveryView,
  WebhookSubscription,
} from './webhook-subscription.repository.js';

/*
 * The webhooks' JSON, each defined once (see src/database/resource-json.ts for what each
 * rendering is for): a subscription, a delivery, and the event a delivery sends.
 */

/**
 * A subscription as every answer but the creation shows it (WebhookDto), never with its
 * secret: `{ id, url, events, description?, createdAt, enabled, disabledAt?, disabledReason? }`,
 * the optional keys left out when absent.
 */
export const WEBHOOK_JSON = resourceJson<WebhookSubscription, WebhookDto>(
  {
    id: 'id',
    url: 'url',
    events: 'events',
    description: 'description',
    createdAt: 'created_at',
    enabled: 'enabled',
    disabledAt: 'disabled_at',
    disabledReason: 'disabled_reason',
  },
  [
    { from: 'id', kind: integer },
    { from: 'url', kind: text },
    { from: 'events', kind: textArray },
    { from: 'description', kind: text, optional: true },
    { from: 'createdAt', kind: timestamp },
    { from: 'enabled', kind: boolean },
    { from: 'disabledAt', kind: timestamp, optional: true },
    { from: 'disabledReason', kind: text, optional: true },
  ],
);

/**
 * A subscription as PostgreSQL renders it (json), from the row named `row` of WEBHOOK_JSON's
 * columns: what an Idempotency-Key record keeps of a creation (the secret is added when sent).
 */
export const webhookJson = WEBHOOK_JSON.sql;

/**
 * One event's delivery to one subscription (WebhookDeliveryDto): `{ eventId, type, status,
 * attempts, lastResponseStatus?, lastAttemptAt?, nextAttemptAt? }`. The delivery's own id is
 * selected for paging, and not shown.
 */
export const WEBHOOK_DELIVERY_JSON = resourceJson<WebhookDeliveryView, WebhookDeliveryDto>(
  {
    id: 'id',
    eventId: 'event_id',
    type: 'event_type',
    status: 'status',
    attempts: 'attempts',
    lastResponseStatus: 'last_response_status',
    lastAttemptAt: 'last_attempt_at',
    nextAttemptAt: 'next_attempt_at',
  },
  [
    { from: 'eventId', kind: text },
    { from: 'type', kind: text },
    { from: 'status', kind: text },
    { from: 'attempts', kind: integer },
    { from: 'lastResponseStatus', kind: integer, optional: true },
    { from: 'lastAttemptAt', kind: timestamp, optional: true },
    { from: 'nextAttemptAt', kind: timestamp, optional: true },
  ],
);

/**
 * The body of a `type` event (docs/webhooks.md), as text, from the row named `event` with the
 * event's `id`, `created_at` and `data` (the resource's json as its *_JSON.sql renders it):
 * `{"id" : …, "type" : …, "createdAt" : …, "data" : …}`, with json_build_object's own
 * spacing (the data inside is compact).
 */
export function webhookEventJson(type: WebhookEventType, event: string): string {
  // `type` comes from the closed list of event types, never from a request.
  return `json_build_object('id', ${event}.id, 'type', '${type}',
             'createdAt', ${timestamp.sql(`${event}.created_at`)},
             'data', ${event}.data)::text`;
}
