import { HttpStatus } from '@nestjs/common';

/** Every machine-readable `code` the API can answer with (docs/api.md, Errors). */
export enum ErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  MALFORMED_JSON = 'MALFORMED_JSON',
  UNAUTHORIZED = 'UNAUTHORIZED',
  NOT_FOUND = 'NOT_FOUND',
  ORDER_NOT_FOUND = 'ORDER_NOT_FOUND',
  PET_NOT_FOUND = 'PET_NOT_FOUND',
  ORDER_ALREADY_SHIPPED = 'ORDER_ALREADY_SHIPPED',
  ORDER_NOT_PENDING = 'ORDER_NOT_PENDING',
  CATEGORY_EXISTS = 'CATEGORY_EXISTS',
  WEBHOOK_NOT_FOUND = 'WEBHOOK_NOT_FOUND',
  WEBHOOK_LIMIT_REACHED = 'WEBHOOK_LIMIT_REACHED',
  WEBHOOK_DISABLED = 'WEBHOOK_DISABLED',
  DELIVERY_NOT_FOUND = 'DELIVERY_NOT_FOUND',
  DELIVERY_PENDING = 'DELIVERY_PENDING',
  IDEMPOTENCY_KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED = 'RATE_LIMITED',
  HEADERS_TOO_LARGE = 'HEADERS_TOO_LARGE',
  REQUEST_TIMEOUT = 'REQUEST_TIMEOUT',
  EXPECTATION_FAILED = 'EXPECTATION_FAILED',
  INTERNAL_ERROR = 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
}

/**
 * The HTTP status of each code. `Record<ErrorCode, …>` makes the compiler reject a code
 * added without a status. PET_NOT_FOUND is the one code with a second status: placing an
 * order for an unknown pet is 422, which `UnknownPetInOrderError` states itself.
 */
export const ERROR_STATUS: Record<ErrorCode, HttpStatus> = {
  [ErrorCode.VALIDATION_FAILED]: HttpStatus.BAD_REQUEST,
  [ErrorCode.MALFORMED_JSON]: HttpStatus.BAD_REQUEST,
  [ErrorCode.UNAUTHORIZED]: HttpStatus.UNAUTHORIZED,
  [ErrorCode.NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.ORDER_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.PET_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.ORDER_ALREADY_SHIPPED]: HttpStatus.CONFLICT,
  [ErrorCode.ORDER_NOT_PENDING]: HttpStatus.CONFLICT,
  [ErrorCode.CATEGORY_EXISTS]: HttpStatus.CONFLICT,
  [ErrorCode.WEBHOOK_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.WEBHOOK_LIMIT_REACHED]: HttpStatus.CONFLICT,
  [ErrorCode.WEBHOOK_DISABLED]: HttpStatus.CONFLICT,
  [ErrorCode.DELIVERY_NOT_FOUND]: HttpStatus.NOT_FOUND,
  [ErrorCode.DELIVERY_PENDING]: HttpStatus.CONFLICT,
  [ErrorCode.IDEMPOTENCY_KEY_IN_USE]: HttpStatus.CONFLICT,
  [ErrorCode.IDEMPOTENCY_KEY_REUSED]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ErrorCode.PAYLOAD_TOO_LARGE]: HttpStatus.PAYLOAD_TOO_LARGE,
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  [ErrorCode.RATE_LIMITED]: HttpStatus.TOO_MANY_REQUESTS,
  // Nest's HttpStatus has no 431 (RFC 6585); only the HTTP server's clientError handler sends it.
  [ErrorCode.HEADERS_TOO_LARGE]: 431 as HttpStatus,
  [ErrorCode.REQUEST_TIMEOUT]: HttpStatus.REQUEST_TIMEOUT,
  [ErrorCode.EXPECTATION_FAILED]: HttpStatus.EXPECTATION_FAILED,
  [ErrorCode.INTERNAL_ERROR]: HttpStatus.INTERNAL_SERVER_ERROR,
  [ErrorCode.SERVICE_UNAVAILABLE]: HttpStatus.SERVICE_UNAVAILABLE,
};

/** The code Nest's own HttpExceptions (router 404, throttler 429, …) are reported with. */
export function codeForHttpStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return ErrorCode.VALIDATION_FAILED;
    case 401:
      return ErrorCode.UNAUTHORIZED;
    case 404:
    case 405:
      return ErrorCode.NOT_FOUND;
    case 413:
      return ErrorCode.PAYLOAD_TOO_LARGE;
    case 415:
      return ErrorCode.UNSUPPORTED_MEDIA_TYPE;
    case 429:
      return ErrorCode.RATE_LIMITED;
    case 503:
      return ErrorCode.SERVICE_UNAVAILABLE;
    default:
      return ErrorCode.INTERNAL_ERROR;
  }
}
