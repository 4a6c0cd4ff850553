import { applyDecorators } from '@nestjs/common';
import { ApiExtension, ApiParam, ApiProperty, type HeadersObject } from '@nestjs/swagger';
import type { ApiVersion } from '../api-version.js';

/** Marks an operation added beyond the original interface (may still change; docs/api.md). */
export const Experimental = (): MethodDecorator => ApiExtension('x-stability', 'experimental');

/** Marks a v2 operation: v2 may still change until it is declared stable (docs/api.md, Pages). */
export const Beta = (): MethodDecorator => ApiExtension('x-stability', 'beta');

/**
 * An operation's `x-stability` in `version`: every v2 operation is beta; in v1, the ones beyond
 * the original interface are experimental (`inV1`) and the others carry no marker.
 */
export const Stability = (version: ApiVersion, inV1: 'experimental' | 'stable'): MethodDecorator =>
  version === '2' ? Beta() : inV1 === 'experimental' ? Experimental() : applyDecorators();

/**
 * The Location header of a 201: the new resource's path, `pathPrefix` and its id. Ids are
 * assigned up to 2^53 - 1: at most 16 digits.
 */
export function locationHeader(
  description: string,
  pathPrefix: string,
  exampleId: number,
): HeadersObject {
  return {
    Location: {
      description,
      schema: {
        type: 'string',
        format: 'uri-reference',
        maxLength: pathPrefix.length + 16,
        pattern: `^${pathPrefix}[1-9][0-9]{0,15}$`,
        example: `${pathPrefix}${exampleId}`,
      },
    },
  };
}

/** Documents an int64 path id the way Int64IdPipe accepts it. */
export const ApiInt64IdParam = (name: string, description: string): MethodDecorator =>
  applyDecorators(
    ApiParam({
      name,
      description,
      required: true,
      schema: {
        type: 'integer',
        format: 'int64',
        minimum: 1,
        example: 1,
      },
    }),
  );

/** An id field: int64 on the wire (format int64 bounds it at 2^63 - 1). */
export const ApiIdProperty = (example: number, description?: string): PropertyDecorator =>
  ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    example,
    description,
  });
