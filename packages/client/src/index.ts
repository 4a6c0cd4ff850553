export {
  PetstoreClient,
  PetstoreV1,
  PetstoreV2,
  type ClientOptions,
  type CreateOptions,
  type ListCategoriesQuery,
  type ListOrdersQuery,
  type ListPetsQuery,
  type ListWebhookDeliveriesQuery,
  type ListWebhooksQuery,
} from './client.js';
export {
  PetstoreConnectionError,
  PetstoreError,
  PetstoreTimeoutError,
  UNEXPECTED_RESPONSE,
  type ErrorCode,
} from './errors.js';
export { PageIterator, type Page } from './pages.js';
export type { RequestOptions } from './retry.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
export type { components as V1Components, paths as V1Paths } from './generated/v1.js';
export type { components as V2Components, paths as V2Paths } from './generated/v2.js';

/** Each resource of version 2, as the API answers it. */
import type { components } from './generated/v2.js';
export type Order = components['schemas']['Order'];
export type NewOrder = components['schemas']['NewOrder'];
export type Category = components['schemas']['Category'];
export type Pet = components['schemas']['Pet'];
export type Webhook = components['schemas']['Webhook'];
export type CreatedWebhook = components['schemas']['CreatedWebhook'];
export type WebhookDelivery = components['schemas']['WebhookDelivery'];
export type WebhookDeliveryDetail = components['schemas']['WebhookDeliveryDetail'];
export type WebhookChanges = components['schemas']['WebhookChanges'];
export type RotatedSecret = components['schemas']['RotatedSecret'];
