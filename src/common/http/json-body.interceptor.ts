import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { json, type RequestHandler } from 'express';
import type { Request, Response } from 'express';
import { parse as parseLosslessJson } from 'lossless-json';
import { Observable, from, switchMap } from 'rxjs';
import {
  MalformedJsonError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
} from '../errors/domain-error.js';

export const MAX_BODY_BYTES = 16 * 1024;
const MAX_BODY_DEPTH = 32;

/** The bytes of a body as read, kept until it is known whether they must be parsed again. */
const RAW_BODY = Symbol('rawBody');
type RequestWithRawBody = Request & { [RAW_BODY]?: { bytes: Buffer; encoding: string } };

// strict: false lets `5` or `"x"` parse, so they are answered VALIDATION_FAILED (not an
// object) rather than MALFORMED_JSON (not JSON).
const parseJson = json({
  limit: MAX_BODY_BYTES,
  strict: false,
  type: () => true,
  verify: (request: RequestWithRawBody, _response, bytes, encoding) => {
    // body-parser reads zero bytes as {}; zero bytes are not JSON.
    if (bytes.length === 0) throw Object.assign(new Error('empty body'), { status: 400 });
    request[RAW_BODY] = { bytes, encoding };
  },
}) as RequestHandler;

/**
 * Reads a route's JSON body. Parsing sits in an interceptor, not global middleware, so it
 * runs after the guards: an unauthenticated request is refused before its body is read.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    return from(readJsonObject(http.getRequest<Request>(), http.getResponse<Response>())).pipe(
      switchMap(() => next.handle()),
    );
  }
}

async function readJsonObject(request: Request, response: Response): Promise<void> {
  if (request.is('application/json') !== 'application/json') {
    throw new UnsupportedMediaTypeError();
  }
  await new Promise<void>((resolve, reject) => {
    parseJson(request, response, (error?: unknown) =>
      error ? reject(toBodyError(error)) : resolve(),
    );
  });
  const body: unknown = request.body;
  if (body === undefined) {
    throw new MalformedJsonError();
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationFailedError('The request body must be a JSON object.');
  }
  if (checkShape(body, 1).hasLargeInteger) {
    request.body = parseExactly(request as RequestWithRawBody);
  }
}

/**
 * The body parsed again so that each integer beyond 2^53 keeps its exact value, as a bigint:
 * ids are int64 (docs/api.md), and JSON.parse rounds them. Only bodies that hold such a number
 * pay for this slower parser; checkShape has already refused what it must not walk.
 */
function parseExactly(request: RequestWithRawBody): unknown {
  const raw = request[RAW_BODY];
  if (raw === undefined) throw new MalformedJsonError();
  const text = new TextDecoder(raw.encoding).decode(raw.bytes);
  return parseLosslessJson(text, null, {
    parseNumber: (literal) => {
      const value = Number(literal);
      return Number.isSafeInteger(value) || !/^-?\d+$/.test(literal) ? value : BigInt(literal);
    },
    // The last of duplicate keys counts, as JSON.parse has it.
    onDuplicateKey: ({ newValue }) => newValue,
  });
}

function toBodyError(error: unknown): Error {
  const status = (error as { status?: number }).status;
  if (status === 413) return new PayloadTooLargeError(MAX_BODY_BYTES);
  if (status === 415) return new UnsupportedMediaTypeError();
  return new MalformedJsonError();
}

/**
 * Keys no body may carry. `__proto__` would become a prototype in object-mapping code; the
 * validation pipe and class-transformer drop `constructor`, `prototype` and the names of
 * Object.prototype's members silently, so the unknown-field check would never see them.
 */
const RESERVED_KEYS = new Set(['prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

/**
 * Refuses what the validator should never have to walk: nesting deep enough to exhaust the
 * stack, and reserved keys (see RESERVED_KEYS). Says whether an integer beyond 2^53 (which
 * JSON.parse has rounded) appears anywhere.
 */
function checkShape(value: object, depth: number): { hasLargeInteger: boolean } {
  let hasLargeInteger = false;
  if (depth > MAX_BODY_DEPTH) {
    throw new ValidationFailedError(
      `The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`,
    );
  }
  for (const [key, child] of Object.entries(value)) {
    // Top-level keys are the fields: all reserved names are refused there. Deeper down, a
    // wrong-typed field is reported by the validator under its own name; only `__proto__`,
    // which mapping code would turn into a prototype, is refused at every depth.
    if (depth === 1 ? RESERVED_KEYS.has(key) : key === '__proto__') {
      throw new ValidationFailedError(`property ${key} should not exist`);
    }
    if (typeof child === 'object' && child !== null) {
      hasLargeInteger = checkShape(child as object, depth + 1).hasLargeInteger || hasLargeInteger;
    } else if (
      typeof child === 'number' &&
      Number.isInteger(child) &&
      !Number.isSafeInteger(child)
    ) {
      hasLargeInteger = true;
    }
  }
  return { hasLargeInteger };
}
