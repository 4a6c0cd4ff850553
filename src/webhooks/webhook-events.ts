import type { ApiPropertyOptions } from '@nestjs/swagger';

/** The event types (docs/webhooks.md): one per change that really happens. */
export const WEBHOOK_EVENT_TYPES = [
  'order.placed',
  'order.shipped',
  'order.cancelled',
  'category.created',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The OpenAPI schema of a subscription's `events`: each type at most once. */
export const EVENT_TYPES_SCHEMA: ApiPropertyOptions = {
  type: 'array',
  items: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  example: ['order.placed', 'order.cancelled'],
};
