import { createHmac, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

const SECRET_PREFIX = 'whsec_';

/**
 * A subscription's signing key. It is used to sign and shown once, on creation; it prints as
 * `[secret]` in logs, JSON and inspection, so an object that holds one cannot leak it.
 */
export class WebhookSecret {
  readonly #bytes: Buffer;

  constructor(bytes: Buffer) {
    this.#bytes = Buffer.from(bytes);
  }

  static generate(): WebhookSecret {
    return new WebhookSecret(randomBytes(32));
  }

  /** The bytes to store; the database is the only place they go. */
  toStorage(): Buffer {
    return Buffer.from(this.#bytes);
  }

  /** `whsec_` + base64 of the bytes (Standard Webhooks): for the one creation answer only. */
  reveal(): string {
    return SECRET_PREFIX + this.#bytes.toString('base64');
  }

  /** `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` (Standard Webhooks). */
  sign(id: string, timestampSeconds: number, body: string): string {
    const mac = createHmac('sha256', this.#bytes)
      .update(`${id}.${timestampSeconds}.${body}`)
      .digest('base64');
    return `v1,${mac}`;
  }

  toString(): string {
    return '[secret]';
  }

  toJSON(): string {
    return '[secret]';
  }

  [inspect.custom](): string {
    return '[secret]';
  }
}

/**
 * The headers of one delivery attempt (Standard Webhooks), signed now with each of `secrets`
 * (the newest first, then the previous one while a rotation overlaps), space-separated.
 */
export function signedHeaders(
  secrets: readonly WebhookSecret[],
  eventId: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => secret.sign(eventId, timestamp, body)).join(' '),
  };
}
