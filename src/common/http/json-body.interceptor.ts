import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { json, type RequestHandler } from 'express';
import { isUtf8 } from 'node:buffer';
import type { Request, Response } from 'express';
import { parse as parseLosslessJson } from 'lossless-json';
import { Observable, from, switchMap } from 'rxjs';
import { countMemberNames, findDuplicateMemberName } from './json-member-names.js';
import {
  DomainError,
  MalformedJsonError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ValidationFailedError,
} from '../errors/domain-error.js';

export const MAX_BODY_BYTES = 16 * 1024;
const MAX_BODY_DEPTH = 32;

/** The bytes of a body as read, kept until it is known whether they must be parsed again. */
const RAW_BODY = Symbol('rawBody');
type RequestWithRawBody = Request & { [RAW_BODY]?: Buffer };

const UTF8_ONLY = 'The request body must be JSON encoded as UTF-8 (charset=utf-8, or none).';

/**
 * Thrown from body-parser's verify hook, which passes the error on as it is (with its status);
 * toBodyError answers with `answer`.
 */
const refuseBody = (answer: DomainError): Error =>
  Object.assign(new Error(answer.message), { status: answer.status, answer });

// strict: false lets `5` or `"x"` parse, so they are answered VALIDATION_FAILED (not an
// object) rather than MALFORMED_JSON (not JSON).
const parseJson = json({
  limit: MAX_BODY_BYTES,
  strict: false,
  type: () => true,
  verify: (request: RequestWithRawBody, _response, bytes, encoding) => {
    // body-parser reads zero bytes as {}; zero bytes are not JSON.
    if (bytes.length === 0) throw refuseBody(new MalformedJsonError());
    // JSON between systems is UTF-8 (RFC 8259 8.1); body-parser would decode any utf-* charset.
    if (encoding !== 'utf-8') throw refuseBody(new UnsupportedMediaTypeError(UTF8_ONLY));
    // body-parser's decoder would turn bytes that are not UTF-8 into U+FFFD, and store them.
    if (!isUtf8(bytes)) {
      throw refuseBody(new MalformedJsonError('The request body is not valid UTF-8.'));
    }
    request[RAW_BODY] = bytes;
  },
}) as RequestHandler;

/**
 * Reads a route's JSON body. Parsing sits in an interceptor, not global middleware, so it
 * runs after the guard: an unauthenticated request is refused before its body is read.
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

/**
 * The route takes a JSON body but no Idempotency-Key (a create takes both: @Idempotent
 * installs this interceptor itself).
 */
export const JsonBody = (): MethodDecorator => UseInterceptors(JsonBodyInterceptor);

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
  const bytes = (request as RequestWithRawBody)[RAW_BODY];
  if (body === undefined || bytes === undefined) {
    throw new MalformedJsonError();
  }
  if (typeof body !== 'object' || body === null) {
    throw new ValidationFailedError('The request body must be a JSON object.');
  }
  const shape: Shape = { memberNames: 0, hasLargeInteger: false };
  try {
    checkShape(body, 1, shape);
  } catch (error) {
    // A key written twice makes the text unacceptable, whatever else is wrong with it.
    refuseDuplicateMemberName(bytes);
    throw error;
  }
  // JSON.parse keeps one of duplicate keys: the text then writes more keys than were kept.
  if (shape.memberNames !== countMemberNames(bytes)) refuseDuplicateMemberName(bytes);
  if (Array.isArray(body)) {
    throw new ValidationFailedError('The request body must be a JSON object.');
  }
  if (shape.hasLargeInteger) {
    request.body = parseExactly(bytes);
  }
}

/** How much of a duplicated key a message quotes. */
const MAX_KEY_QUOTED = 40;

/** 400 MALFORMED_JSON naming the first key written twice in one object, if there is one. */
function refuseDuplicateMemberName(bytes: Buffer): void {
  const name = findDuplicateMemberName(bytes);
  if (name === undefined) return;
  const characters = Array.from(name);
  const quoted =
    characters.length > MAX_KEY_QUOTED
      ? `${JSON.stringify(characters.slice(0, MAX_KEY_QUOTED).join(''))}…`
      : JSON.stringify(name);
  throw new MalformedJsonError(
    `The request body is not valid JSON: the key ${quoted} appears twice in one object.`,
  );
}

/**
 * The body parsed again so that each integer beyond 2^53 keeps its exact value, as a bigint:
 * ids are int64 (docs/api.md), and JSON.parse rounds them. Only bodies that hold such a number
 * pay for this slower parser; checkShape has already refused what it must not walk.
 */
function parseExactly(bytes: Buffer): unknown {
  // The decoder drops a byte order mark, as body-parser's does; duplicate names were refused.
  const text = new TextDecoder().decode(bytes);
  return parseLosslessJson(text, null, {
    parseNumber: (literal) => {
      const value = Number(literal);
      return Number.isSafeInteger(value) || !/^-?\d+$/.test(literal) ? value : BigInt(literal);
    },
  });
}

function toBodyError(error: unknown): Error {
  const { status, answer, charset } = error as {
    status?: number;
    answer?: unknown;
    charset?: string;
  };
  if (answer instanceof DomainError) return answer;
  if (status === 413) return new PayloadTooLargeError(MAX_BODY_BYTES);
  // body-parser refuses charsets that are not utf-* itself, before reading.
  if (status === 415) {
    return new UnsupportedMediaTypeError(charset === undefined ? undefined : UTF8_ONLY);
  }
  return new MalformedJsonError();
}

/**
 * Keys no body may carry. `__proto__` would become a prototype in object-mapping code; the
 * validation pipe and class-transformer drop `constructor`, `prototype` and the names of
 * Object.prototype's members silently, so the unknown-field check would never see them.
 */
const RESERVED_KEYS = new Set(['prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

/** What checkShape learns of a body on its walk. */
interface Shape {
  /** Keys of all objects, at every depth: fewer than the text writes when names repeat. */
  memberNames: number;
  /** An integer beyond 2^53 (which JSON.parse has rounded) appears somewhere. */
  hasLargeInteger: boolean;
}

/**
 * Refuses what the validator should never have to walk: nesting deep enough to exhaust the
 * stack, and reserved keys (see RESERVED_KEYS). Adds what it sees to `shape`.
 */
function checkShape(value: object, depth: number, shape: Shape): void {
  if (depth > MAX_BODY_DEPTH) {
    throw new ValidationFailedError(
      `The request body is nested more than ${MAX_BODY_DEPTH} levels deep.`,
    );
  }
  const entries = Object.entries(value);
  if (!Array.isArray(value)) shape.memberNames += entries.length;
  for (const [key, child] of entries) {
    // Top-level keys are the fields: all reserved names are refused there. Deeper down, a
    // wrong-typed field is reported by the validator under its own name; only `__proto__`,
    // which mapping code would turn into a prototype, is refused at every depth.
    if (depth === 1 ? RESERVED_KEYS.has(key) : key === '__proto__') {
      throw new ValidationFailedError(`property ${key} should not exist`);
    }
    if (typeof child === 'object' && child !== null) {
      checkShape(child as object, depth + 1, shape);
    } else if (
      typeof child === 'number' &&
      Number.isInteger(child) &&
      !Number.isSafeInteger(child)
    ) {
      shape.hasLargeInteger = true;
    }
  }
}
