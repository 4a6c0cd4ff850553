import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '../errors/domain-error.js';

export const INT64_MAX = 9223372036854775807n;

/**
 * Accepts a path id of decimal digits from 1 to 2^63 - 1 and returns it as a string, so ids
 * beyond JavaScript's safe integers are looked up exactly (404 when absent), never rounded.
 */
@Injectable()
export class Int64IdPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (!isInt64Id(value)) {
      throw new ValidationFailedError(
        `${metadata.data ?? 'id'} must be a whole number from 1 to ${INT64_MAX} written in decimal digits`,
      );
    }
    return value;
  }
}

export function isInt64Id(value: unknown): value is string {
  return (
    typeof value === 'string' && /^[1-9][0-9]{0,18}$/.test(value) && BigInt(value) <= INT64_MAX
  );
}
