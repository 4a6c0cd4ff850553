import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  ValidateIf,
} from 'class-validator';
import { CodePointLength } from '../../common/http/code-point-length.validator.js';
import { SAFE_PROSE_PATTERN, SafeText } from '../../common/http/safe-text.validator.js';
import {
  EVENT_TYPES_SCHEMA,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from '../webhook-events.js';

/** updateWebhook's body: any non-empty subset of these, each with createWebhook's rules. */
@ApiSchema({ name: 'WebhookChanges' })
export class UpdateWebhookDto {
  @ApiPropertyOptional({
    format: 'uri',
    minLength: 1,
    maxLength: 2048,
    example: 'https://hooks.example.com/petstore-v2',
    description:
      "createWebhook's rules: absolute http or https, visible ASCII, no user information, no " +
      'private target. Every attempt made after the answer goes to it.',
  })
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @CodePointLength(1, 2048)
  url?: string;

  @ApiPropertyOptional({
    ...EVENT_TYPES_SCHEMA,
    description:
      'The event types to receive, each at most once: for events recorded after the answer',
  })
  @ValidateIf((_, value) => value !== undefined)
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each value in events must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  events?: WebhookEventType[];

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: 500,
    pattern: SAFE_PROSE_PATTERN,
    example: 'Order updates for the warehouse',
    description: "createWebhook's rules; null removes it",
  })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @SafeText('prose')
  @IsString()
  @CodePointLength(0, 500)
  description?: string | null;

  @ApiPropertyOptional({
    example: true,
    description:
      'false disables it (disabledReason requested) and fails its pending deliveries; true ' +
      'enables it again, clearing disabledAt and disabledReason',
  })
  @ValidateIf((_, value) => value !== undefined)
  @IsBoolean()
  enabled?: boolean;
}
