import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsString, ValidateBy } from 'class-validator';
import {
  DATE_TIME_WITH_OFFSET_PATTERN,
  parseDateTimeWithOffset,
} from '../../common/http/date-time.js';

@ApiSchema({ name: 'DeliveryRecovery' })
export class RecoverWebhookDeliveriesDto {
  @ApiProperty({
    type: 'string',
    pattern: DATE_TIME_WITH_OFFSET_PATTERN,
    maxLength: 40,
    example: '2026-11-25T10:00:00Z',
    description:
      'Every failed delivery whose event was created at or after this instant is sent again ' +
      '(ISO 8601 with an offset, Z or ±hh:mm)',
  })
  @IsString()
  @ValidateBy({
    name: 'since',
    validator: {
      validate: (value: unknown) =>
        typeof value !== 'string' || parseDateTimeWithOffset(value) !== undefined,
      defaultMessage: () =>
        'since must be an ISO 8601 date-time with an offset, like 2026-11-25T10:00:00Z',
    },
  })
  since: string;
}

@ApiSchema({ name: 'DeliveriesRequeued' })
export class RequeuedDto {
  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 2_147_483_647,
    example: 3,
    description: 'How many failed deliveries are pending again',
  })
  requeued: number;
}
