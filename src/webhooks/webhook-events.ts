/** The event types (contract section 11): one per change that really happens. */
export const WEBHOOK_EVENT_TYPES = [
  'order.placed',
  'order.shipped',
  'order.cancelled',
  'category.created',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
