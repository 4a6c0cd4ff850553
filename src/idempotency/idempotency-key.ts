import { createHash } from 'node:crypto';
import { ValidationFailedError } from '../common/errors/domain-error.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** A key: 1 to 255 visible ASCII characters (docs/api.md, Idempotency-Key). */
const KEY = /^[\x21-\x7e]{1,255}$/;
/** The draft's quoted form, an RFC 8941 sf-string: `"` … `"`, with `\"` and `\\` escapes. */
const QUOTED = /^"((?:[^"\\]|\\["\\])*)"$/;

/** What the header must look like, for the 400's message and the OpenAPI schema. */
export const IDEMPOTENCY_KEY_RULE =
  'must be 1 to 255 visible ASCII characters (0x21-0x7E), optionally in double quotes';

/**
 * The key a request sent, from every Idempotency-Key field it carried (Node keeps them apart in
 * `headersDistinct`); undefined when it sent none. Sent twice, empty, too long, or with other
 * characters: 400 VALIDATION_FAILED naming the header. `"abc"` is the key `abc`; a value that
 * does not both start and end with a double quote is taken as it is (`"` alone is a key).
 */
export function parseIdempotencyKey(values: readonly string[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) {
    throw new ValidationFailedError(`${IDEMPOTENCY_KEY_HEADER} must be sent once`);
  }
  const raw = values[0];
  let key = raw;
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    const quoted = QUOTED.exec(raw);
    if (!quoted) {
      throw new ValidationFailedError(`${IDEMPOTENCY_KEY_HEADER} ${IDEMPOTENCY_KEY_RULE}`);
    }
    key = quoted[1].replace(/\\(["\\])/g, '$1');
  }
  if (!KEY.test(key)) {
    throw new ValidationFailedError(`${IDEMPOTENCY_KEY_HEADER} ${IDEMPOTENCY_KEY_RULE}`);
  }
  return key;
}

/**
 * A JSON value as one text whatever its key order and white space: object keys sorted (by
 * UTF-16 code units, as Array.prototype.sort does), no spaces. Values are kept as
 * JSON.stringify writes them, so `1.0` and `1` (one number) are the same, `"1"` is not. A
 * bigint (an integer beyond 2^53, kept exact by the body reader) is written as its digits.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map(
        (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`,
      );
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What "the same request" means (docs/api.md, Idempotency-Key): the SHA-256 of the canonical body. */
export function requestFingerprint(body: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(body)).digest();
}
