import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsISO8601, IsInt, Matches, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import { ApiIdProperty } from '../../common/http/api-decorators.js';
import { INT64_MAX } from '../../common/http/int64-id.pipe.js';

/** ISO 8601 date-time with an explicit offset: a ship date without one would be ambiguous. */
const DATE_TIME_WITH_OFFSET =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

@ApiSchema({ name: 'NewOrder' })
export class PlaceOrderDto {
  @ApiIdProperty(7)
  @IsInt()
  @Min(1)
  @Max(Number(INT64_MAX))
  petId: number;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 1000, example: 2 })
  @IsInt()
  @Min(1)
  @Max(1000)
  quantity: number;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    maxLength: 40,
    example: '2026-11-24T09:00:00Z',
    description: 'Expected ship date, with a time zone offset.',
  })
  @ValidateIf((_, value) => value !== undefined)
  @Matches(DATE_TIME_WITH_OFFSET, {
    message: 'shipDate must be an ISO 8601 date-time with a time zone, like 2026-11-24T09:00:00Z',
  })
  @IsISO8601({ strict: true }, { message: 'shipDate must be a real calendar date and time' })
  @ValidateBy({
    name: 'shipDateYear',
    validator: {
      // An offset can push 9999-12-31 into year 10000, which ISO 8601 clients cannot read back.
      validate: (value: unknown) => {
        const year = new Date(String(value)).getUTCFullYear();
        return year >= 1 && year <= 9999;
      },
      defaultMessage: () => 'shipDate must fall within the years 0001 to 9999 in UTC',
    },
  })
  shipDate?: string;
}
