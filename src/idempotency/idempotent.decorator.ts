import {
  applyDecorators,
  createParamDecorator,
  Injectable,
  SetMetadata,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import type { Response } from 'express';
import { map, type Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { JsonBodyInterceptor } from '../common/http/json-body.interceptor.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_RULE,
  parseIdempotencyKey,
  requestFingerprint,
} from './idempotency-key.js';
import { IdempotentResponse, type IdempotentRequest } from './idempotency.service.js';

export interface IdempotentOptions {
  /** The API version, part of the key's scope: `v1`, `v2`. */
  version: string;
  /** The operationId, part of the key's scope. */
  operation: string;
  /** Location of a created resource is this followed by its id; omitted: no Location. */
  locationPrefix?: string;
}

const IDEMPOTENT = Symbol('idempotent');
const IDEMPOTENT_REQUEST = Symbol('idempotentRequest');

type RequestWithKey = AuthenticatedRequest & { [IDEMPOTENT_REQUEST]?: IdempotentRequest };

function hasId(value: unknown): value is { id: number | string } {
  return typeof value === 'object' && value !== null && 'id' in value;
}

/**
 * Reads a route's Idempotency-Key once JsonBodyInterceptor has read its JSON body (@Idempotent
 * installs both, in that order): a bad header is a 400; a good one, with the caller's API key, the scope and the body's
 * fingerprint, is what `@IdempotencyKey()` hands the handler. The handler's IdempotentResponse is sent as stored:
 * the JSON text, its Location, and `Idempotent-Replayed: true` on a replay; a plain create's
 * resource gets its Location here too, so no handler writes one.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const options = this.reflector.get<IdempotentOptions | undefined>(
      IDEMPOTENT,
      context.getHandler(),
    );
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithKey>();
    const key = parseIdempotencyKey(request.headersDistinct['idempotency-key']);
    if (options && key !== undefined && request.apiKey) {
      request[IDEMPOTENT_REQUEST] = {
        apiKeyId: request.apiKey.keyId,
        version: options.version,
        operation: options.operation,
        key,
        fingerprint: requestFingerprint(request.body),
        locationPrefix: options.locationPrefix ?? null,
      };
    }
    const response = http.getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown) => {
        if (!(result instanceof IdempotentResponse)) {
          // A create without a key: its Location is made as a recorded answer's is.
          if (options?.locationPrefix !== undefined && hasId(result)) {
            response.location(`${options.locationPrefix}${result.id}`);
          }
          return result;
        }
        const { answer, replayed } = result;
        // The status is the route's own (201): only successes are sent from here.
        if (answer.location !== null) response.location(answer.location);
        if (replayed) response.set('Idempotent-Replayed', 'true');
        response.type('application/json');
        return answer.body;
      }),
    );
  }
}

/**
 * The route is a create: it takes a JSON body (read after authentication, see
 * JsonBodyInterceptor) and an Idempotency-Key (docs/api.md), scoped to the caller's API key,
 * `version` and `operation`; documented as an optional header. One decorator installs both
 * interceptors in the order they need, so no order of decorators on a route can be wrong.
 */
export const Idempotent = (options: IdempotentOptions): MethodDecorator =>
  applyDecorators(
    SetMetadata(IDEMPOTENT, options),
    UseInterceptors(JsonBodyInterceptor, IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Makes a retry safe: the first answer (201, or the operation’s own 409/422) is remembered for this API key and operation, and a retry with the same key and the same JSON body gets it again with `Idempotent-Replayed: true`. The same key with another body is 422 IDEMPOTENCY_KEY_REUSED; while the first request runs, 409 IDEMPOTENCY_KEY_IN_USE. The key ' +
        IDEMPOTENCY_KEY_RULE +
        '.',
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: 257,
        pattern: '^[\\x21-\\x7e]{1,257}$',
        example: '0f5d1c52-8a47-4d55-9a37-6f0b2b1e4c11',
      },
    }),
  );

/** The handler's IdempotentRequest, or undefined when the request sent no Idempotency-Key. */
export const IdempotencyKey = createParamDecorator(
  (_data: unknown, context: ExecutionContext): IdempotentRequest | undefined =>
    context.switchToHttp().getRequest<RequestWithKey>()[IDEMPOTENT_REQUEST],
);
