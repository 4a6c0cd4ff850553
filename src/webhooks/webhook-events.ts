/** The event types (docs/webhooks.md): one per change that really happens. */
export const WEBHOOK_EVENT_TYPES = [
  'order.placed',
  'order.shipped',
  'order.cancelled',
  'category.created',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
