import { applyDecorators, HttpStatus } from '@nestjs/common';
import { ApiResponse, type HeadersObject } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from './error-code.js';
import { ErrorDto } from './error.dto.js';

/** A sample message per code, shown as the example of each documented error response. */
const EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  [ErrorCode.VALIDATION_FAILED]: 'quantity must not be greater than 1000',
  [ErrorCode.MALFORMED_JSON]: 'The request body is not valid JSON.',
  [ErrorCode.UNAUTHORIZED]: 'The API key is missing, malformed, unknown or revoked.',
  [ErrorCode.NOT_FOUND]: 'No such route.',
  [ErrorCode.ORDER_NOT_FOUND]: 'Order 42 does not exist.',
  [ErrorCode.PET_NOT_FOUND]: 'Pet 7 does not exist.',
  [ErrorCode.ORDER_ALREADY_SHIPPED]: 'Order 42 has shipped and can no longer be cancelled.',
  [ErrorCode.ORDER_NOT_PENDING]: 'Order 42 is cancelled and cannot be shipped.',
  [ErrorCode.CATEGORY_EXISTS]:
    'A category named "dog" already exists (names are compared ignoring case).',
  [ErrorCode.WEBHOOK_NOT_FOUND]: 'Webhook 12 does not exist.',
  [ErrorCode.WEBHOOK_LIMIT_REACHED]: 'This API key already has 20 webhook subscriptions.',
  [ErrorCode.WEBHOOK_DISABLED]: 'Webhook 12 is disabled; enable it (PATCH enabled: true) first.',
  [ErrorCode.DELIVERY_NOT_FOUND]:
    'Webhook 12 has no delivery of event evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10.',
  [ErrorCode.DELIVERY_PENDING]:
    'The delivery of event evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10 is still pending.',
  [ErrorCode.IDEMPOTENCY_KEY_IN_USE]:
    'A request with this Idempotency-Key is still being processed; retry after the time in Retry-After.',
  [ErrorCode.IDEMPOTENCY_KEY_REUSED]:
    'This Idempotency-Key was used for a different request to this operation.',
  [ErrorCode.PAYLOAD_TOO_LARGE]: 'The request body is larger than 16 KiB.',
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: 'The request body must be sent as application/json.',
  [ErrorCode.RATE_LIMITED]: 'Too many requests; retry after the time in Retry-After.',
  [ErrorCode.HEADERS_TOO_LARGE]: 'The request headers are larger than the server accepts (16 KiB).',
  [ErrorCode.REQUEST_TIMEOUT]: 'The request body did not arrive in time.',
  [ErrorCode.EXPECTATION_FAILED]: 'Only "Expect: 100-continue" is supported.',
  [ErrorCode.INTERNAL_ERROR]: 'An unexpected error occurred; it has been logged.',
  [ErrorCode.SERVICE_UNAVAILABLE]: 'The service is temporarily unavailable; retry shortly.',
};

/** The example of an error response with `code`: its sample message, at `status`. */
export function errorExample(
  code: ErrorCode,
  status: number = ERROR_STATUS[code],
): { summary: string; value: ErrorDto } {
  return { summary: code, value: { code, message: EXAMPLE_MESSAGES[code], status } };
}

/** An error an operation documents: a code, at its usual status or at a given one. */
export type DocumentedError = ErrorCode | { code: ErrorCode; status: HttpStatus };

/**
 * Errors every /v1 operation can answer with. Not HEADERS_TOO_LARGE, REQUEST_TIMEOUT or
 * EXPECTATION_FAILED: the HTTP server answers them, or they come before any route is chosen
 * (src/common/http/client-error.ts, http-semantics.middleware.ts), like a request that is not
 * HTTP at all; docs/api.md describes them.
 */
const COMMON_ERRORS: DocumentedError[] = [
  ErrorCode.UNAUTHORIZED,
  ErrorCode.RATE_LIMITED,
  ErrorCode.INTERNAL_ERROR,
  ErrorCode.SERVICE_UNAVAILABLE,
];

/** 429: at most the one-minute rate-limit window. */
const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 60, example: 30 },
  },
};

/**
 * 503: a few seconds (ServiceUnavailableError); for a create with an Idempotency-Key that may
 * still hold its key, until the key's lock is over: IDEMPOTENCY_KEY_LOCK_SECONDS (at most
 * 3600) and a second (IdempotencyService).
 */
const UNAVAILABLE_RETRY_AFTER = {
  'Retry-After': {
    description:
      'Seconds to wait before retrying: a few; for a create sent with an Idempotency-Key, long enough for the key to be free again (11 by default)',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 3601, example: 5 },
  },
};

/**
 * Headers an error status carries of its own. The rate-limit and CORS headers that every answer
 * can carry are added to the whole document in app.setup.ts.
 */
const ERROR_HEADERS: Partial<Record<number, HeadersObject>> = {
  401: {
    'WWW-Authenticate': {
      description:
        'How to authenticate; error="invalid_token" when a key was sent but is not valid',
      schema: {
        type: 'string',
        enum: ['Bearer realm="petstore"', 'Bearer realm="petstore", error="invalid_token"'],
        example: 'Bearer realm="petstore"',
      },
    },
  },
  429: RETRY_AFTER,
  503: UNAVAILABLE_RETRY_AFTER,
};

/** Headers a code brings to its status's response, beside the status's own. */
const CODE_HEADERS: Partial<Record<ErrorCode, HeadersObject>> = {
  [ErrorCode.IDEMPOTENCY_KEY_IN_USE]: {
    'Retry-After': {
      description: 'With IDEMPOTENCY_KEY_IN_USE: seconds to wait before retrying (1)',
      schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 60, example: 1 },
    },
  },
};

/** What an operation that reads a JSON body can answer about the body itself. */
export const JSON_BODY_ERRORS: readonly DocumentedError[] = [
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.MALFORMED_JSON,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
];

/** What an operation that takes an Idempotency-Key can answer about the key. */
const IDEMPOTENCY_KEY_ERRORS: readonly DocumentedError[] = [
  ErrorCode.IDEMPOTENCY_KEY_IN_USE,
  ErrorCode.IDEMPOTENCY_KEY_REUSED,
];

/** Sent on an answer replayed for an Idempotency-Key (docs/api.md, Idempotency-Key). */
export const IDEMPOTENT_REPLAYED_HEADER: HeadersObject = {
  'Idempotent-Replayed': {
    description:
      'true when this is the remembered answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

/**
 * The rejections an idempotent operation remembers and replays: its own, from its statement
 * (docs/api.md, Idempotency-Key). An operation that documents IDEMPOTENCY_KEY_REUSED takes an
 * Idempotency-Key.
 */
const REPLAYED_ERROR_CODES = new Set([
  ErrorCode.CATEGORY_EXISTS,
  ErrorCode.PET_NOT_FOUND,
  ErrorCode.WEBHOOK_LIMIT_REACHED,
]);

/**
 * Documents an operation's error responses: the Error schema plus one example per code,
 * grouped by status, so the OpenAPI document lists exactly what the operation can answer.
 */
export function ApiErrorResponses(...errors: DocumentedError[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const error of [...errors, ...COMMON_ERRORS]) {
    const { code, status } =
      typeof error === 'string' ? { code: error, status: ERROR_STATUS[error] } : error;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const idempotent = errors.includes(ErrorCode.IDEMPOTENCY_KEY_REUSED);
  const decorators = [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]) =>
      ApiResponse({
        status,
        description: codes.join(', '),
        type: ErrorDto,
        headers: headersOf(status, codes, idempotent),
        examples: Object.fromEntries(codes.map((code) => [code, errorExample(code, status)])),
      }),
    );
  return applyDecorators(...decorators);
}

/**
 * The errors of an operation that reads a JSON body and takes an Idempotency-Key (@Idempotent):
 * the body's, `own` (what its statement refuses), then the key's.
 */
export function ApiIdempotentErrorResponses(...own: DocumentedError[]): MethodDecorator {
  return ApiErrorResponses(...JSON_BODY_ERRORS, ...own, ...IDEMPOTENCY_KEY_ERRORS);
}

function headersOf(
  status: number,
  codes: ErrorCode[],
  idempotent: boolean,
): HeadersObject | undefined {
  const headers: HeadersObject = {
    ...ERROR_HEADERS[status],
    ...codes.reduce<HeadersObject>((all, code) => ({ ...all, ...CODE_HEADERS[code] }), {}),
    ...(idempotent && codes.some((code) => REPLAYED_ERROR_CODES.has(code))
      ? IDEMPOTENT_REPLAYED_HEADER
      : {}),
  };
  return Object.keys(headers).length > 0 ? headers : undefined;
}
