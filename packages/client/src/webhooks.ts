import { Webhook } from 'standardwebhooks';
import type { components } from './generated/v2.js';

/**
 * A delivery that did not verify. The client's own class, not the library's: the library's
 * declarations need Node's types, and the client's must not (browsers).
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

type Schemas = components['schemas'];

/** One event as a delivery's body carries it (docs/webhooks.md): what changed, and how it is now. */
interface EventOf<Type extends string, Data> {
  /** The event id, also the delivery's `webhook-id`: the same on every attempt. */
  id: string;
  type: Type;
  /** When the change happened (RFC 3339). */
  createdAt: string;
  data: Data;
}

/**
 * Every event the service sends. The envelope is not in the OpenAPI document (deliveries are
 * not operations); its `data` is the API's own Order or Category schema.
 */
export type WebhookEvent =
  | EventOf<'order.placed', Schemas['Order']>
  | EventOf<'order.shipped', Schemas['Order']>
  | EventOf<'order.cancelled', Schemas['Order']>
  | EventOf<'category.created', Schemas['Category']>;

/** A delivery's headers: a fetch `Headers`, or a plain object such as Node's `request.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery's signature with the Standard Webhooks library and returns its event.
 * `body` must be the exact bytes received, before any JSON parsing. `secret` is the
 * subscription's `whsec_…`; during a rotation the service signs with both secrets, so either
 * one verifies, and a receiver that holds both may pass both. Throws WebhookVerificationError
 * when no secret verifies or the timestamp is more than five minutes away.
 */
export function verifyWebhook(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  body: string | Uint8Array,
): WebhookEvent {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const plain = plainHeaders(headers);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  let failure: unknown;
  for (const candidate of secrets) {
    try {
      return new Webhook(candidate).verify(payload, plain) as WebhookEvent;
    } catch (error) {
      failure = error;
    }
  }
  const reason = failure instanceof Error ? failure.message : 'No secret to verify with';
  throw new WebhookVerificationError(reason, { cause: failure });
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const plain: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => (plain[name] = value));
    return plain;
  }
  for (const [name, value] of Object.entries(headers)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) plain[name.toLowerCase()] = first;
  }
  return plain;
}
