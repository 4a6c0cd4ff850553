import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { withoutApiKeys } from '../../auth/api-key.js';
import { mapDatabaseError } from './database-error.mapper.js';
import { DomainError } from './domain-error.js';
import { ERROR_STATUS, ErrorCode, codeForHttpStatus } from './error-code.js';
import { errorBody } from './error.dto.js';

/** The answer for any path no route serves, inside /v1 or outside it. */
export const routeNotFound = (): DomainError =>
  new DomainError(ErrorCode.NOT_FOUND, 'No such route.');

/** Express's last handler: whatever no route answered is a 404 with the Error body. */
export function sendRouteNotFound(_request: Request, response: Response): void {
  const error = routeNotFound();
  response.status(error.status).json(errorBody(error));
}

const INTERNAL_MESSAGE = 'An unexpected error occurred; it has been logged.';

/**
 * The one place errors become responses: a DomainError, Nest's own HttpExceptions (unknown
 * route, throttling), database errors and anything unknown all leave as `{code, message,
 * status}`. Unknown errors are logged with the request id and never described to the client.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const request = context.getRequest<Request>();
    const response = context.getResponse<Response>();
    const error = this.toDomainError(exception, request);

    if (response.headersSent) {
      // A streamed response failed midway: the status is gone, so cut the connection and let
      // the client see a truncated body rather than a silent success. The request log names
      // the error as the reason for the cut.
      response.destroy(exception instanceof Error ? exception : new Error(String(exception)));
      return;
    }
    response.status(error.status).set(error.headers).json(errorBody(error));
  }

  private toDomainError(exception: unknown, request: Request): DomainError {
    if (exception instanceof DomainError) {
      return exception;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code = codeForHttpStatus(status);
      if (code === ErrorCode.NOT_FOUND) {
        return routeNotFound();
      }
      if (code !== ErrorCode.INTERNAL_ERROR) {
        return new DomainError(code, exception.message, { status: ERROR_STATUS[code] });
      }
    }
    const mapped = mapDatabaseError(exception);
    if (mapped) {
      if (mapped.code === ErrorCode.SERVICE_UNAVAILABLE) {
        this.logger.warn(
          `database unavailable (request ${requestId(request)}): ${describe(exception)}`,
        );
      }
      return mapped;
    }
    this.logger.error(
      `unhandled error on ${request.method} ${withoutApiKeys(request.path)} (request ${requestId(request)})`,
      exception instanceof Error ? exception.stack : String(exception),
    );
    return new DomainError(ErrorCode.INTERNAL_ERROR, INTERNAL_MESSAGE);
  }
}

function requestId(request: Request): string {
  const id = request.headers['x-request-id'];
  return typeof id === 'string' ? id : '-';
}

function describe(exception: unknown): string {
  return exception instanceof Error ? exception.message : String(exception);
}
