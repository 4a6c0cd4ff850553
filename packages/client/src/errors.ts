import type { components as V2 } from './generated/v2.js';

/** Every `code` the API documents; `switch (error.code)` over it is checked by the compiler. */
export type ErrorCode = V2['schemas']['ErrorCode'];

/**
 * The code of an answer that is not the API's Error body: a proxy's 502 page, say. The status
 * is still the answer's.
 */
export const UNEXPECTED_RESPONSE = 'UNEXPECTED_RESPONSE';

/** The API's answer to a call that failed: its status, its Error body and its request id. */
export class PetstoreError extends Error {
  override readonly name = 'PetstoreError';

  constructor(
    /** The HTTP status of the answer. */
    readonly status: number,
    /** The Error body's `code`, or UNEXPECTED_RESPONSE when the body was not an Error. */
    readonly code: ErrorCode | typeof UNEXPECTED_RESPONSE,
    message: string,
    /** The answer's `X-Request-Id`: quote it when you report a problem. */
    readonly requestId: string | undefined,
    /** The answer's headers (`Retry-After`, the rate-limit headers). */
    readonly headers: Headers,
  ) {
    super(message);
  }

  /** The error for a failed answer, from its Error body when it has one. */
  static fromResponse(response: Response, body: unknown): PetstoreError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (isErrorBody(body)) {
      return new PetstoreError(
        response.status,
        body.code,
        body.message,
        requestId,
        response.headers,
      );
    }
    return new PetstoreError(
      response.status,
      UNEXPECTED_RESPONSE,
      `HTTP ${response.status} ${response.statusText}`.trim(),
      requestId,
      response.headers,
    );
  }
}

/** No answer came: the connection failed, or the time allowed for the call ran out. */
export class PetstoreConnectionError extends Error {
  override readonly name: string = 'PetstoreConnectionError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer came within the call's `timeoutMs`. */
export class PetstoreTimeoutError extends PetstoreConnectionError {
  override readonly name = 'PetstoreTimeoutError';
}

function isErrorBody(body: unknown): body is { code: ErrorCode; message: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { message?: unknown }).message === 'string'
  );
}
