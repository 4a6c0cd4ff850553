import { HttpStatus } from '@nestjs/common';
import { ERROR_STATUS, ErrorCode } from './error-code.js';

/**
 * A failure the API reports on purpose. Services throw these (never HttpException); the
 * exception filter turns them into the `{code, message, status}` body.
 */
export class DomainError extends Error {
  readonly status: HttpStatus;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { status?: HttpStatus; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.status = options.status ?? ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }

  /** Response headers that belong to the error (WWW-Authenticate, Retry-After). */
  readonly headers: Record<string, string>;
}

export class ValidationFailedError extends DomainError {
  constructor(message: string) {
    super(ErrorCode.VALIDATION_FAILED, message);
  }
}

export class MalformedJsonError extends DomainError {
  constructor(message = 'The request body is not valid JSON.') {
    super(ErrorCode.MALFORMED_JSON, message);
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(limitBytes: number) {
    super(ErrorCode.PAYLOAD_TOO_LARGE, `The request body is larger than ${limitBytes / 1024} KiB.`);
  }
}

export class UnsupportedMediaTypeError extends DomainError {
  constructor(message = 'The request body must be sent as application/json.') {
    super(ErrorCode.UNSUPPORTED_MEDIA_TYPE, message);
  }
}

export class ServiceUnavailableError extends DomainError {
  constructor(
    message = 'The service is temporarily unavailable; retry shortly.',
    retryAfterSeconds = 5,
  ) {
    super(ErrorCode.SERVICE_UNAVAILABLE, message, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}
