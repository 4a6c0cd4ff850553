import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  IsString,
  ValidateBy,
  ValidateIf,
  isISO8601,
  type ValidationArguments,
} from 'class-validator';
import { ApiIdProperty } from '../../common/http/api-decorators.js';
import { INT64_MAX } from '../../common/http/int64-id.pipe.js';
import { IntegerField } from '../../common/http/integer-field.validator.js';

/**
 * ISO 8601 date-time with an explicit offset, seconds and up to nine fractional digits
 * optional: a ship date without an offset would be ambiguous.
 */
const SHIP_DATE_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';
const SHIP_DATE = new RegExp(SHIP_DATE_PATTERN);

/** What is wrong with a ship date, or undefined when nothing is. */
function shipDateProblem(text: string): string | undefined {
  if (!SHIP_DATE.test(text)) {
    return 'shipDate must be an ISO 8601 date-time with a time zone, like 2026-11-24T09:00:00Z';
  }
  if (!isISO8601(text, { strict: true })) {
    return 'shipDate must be a real calendar date and time';
  }
  // An offset can push 9999-12-31 into year 10000, which ISO 8601 clients cannot read back.
  const year = new Date(text).getUTCFullYear();
  if (year < 1 || year > 9999) {
    return 'shipDate must fall within the years 0001 to 9999 in UTC';
  }
  return undefined;
}

@ApiSchema({ name: 'NewOrder' })
export class PlaceOrderDto {
  @ApiIdProperty(7)
  @IntegerField(1, INT64_MAX)
  petId: number | bigint;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 1000, example: 2 })
  @IntegerField(1, 1000)
  quantity: number;

  @ApiPropertyOptional({
    type: 'string',
    pattern: SHIP_DATE_PATTERN,
    maxLength: 40,
    example: '2026-11-24T09:00:00Z',
    description:
      'Expected ship date: ISO 8601 with a time zone offset (Z or ±hh:mm); seconds and fractions optional.',
  })
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @ValidateBy({
    name: 'shipDate',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || !shipDateProblem(value),
      defaultMessage: (args?: ValidationArguments) => shipDateProblem(String(args?.value)) ?? '',
    },
  })
  shipDate?: string;
}
