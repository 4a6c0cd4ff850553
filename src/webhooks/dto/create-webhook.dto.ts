import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
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

@ApiSchema({ name: 'NewWebhook' })
export class CreateWebhookDto {
  @ApiProperty({
    format: 'uri',
    minLength: 1,
    maxLength: 2048,
    example: 'https://hooks.example.com/petstore',
    description:
      'Absolute http or https URL without user information, written as RFC 3986 has it: visible ' +
      'ASCII only (percent-encode other characters; punycode for international names). ' +
      'Loopback, private, link-local, ' +
      'unique-local and unspecified addresses are refused, here and at every delivery.',
  })
  @IsString()
  @CodePointLength(1, 2048)
  url: string;

  @ApiProperty({
    ...EVENT_TYPES_SCHEMA,
    description: 'The event types to receive, each at most once',
  })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, {
    each: true,
    message: `each value in events must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  events: WebhookEventType[];

  @ApiPropertyOptional({
    maxLength: 500,
    pattern: SAFE_PROSE_PATTERN,
    example: 'Order updates for the warehouse',
    description:
      'Normalised to Unicode NFC. Tabs and line breaks are fine; other control characters and ' +
      'bidirectional embeddings, overrides and isolates are not; if not empty, at least one visible character.',
  })
  // Optional, but null is a wrong type rather than "absent".
  @ValidateIf((_, value) => value !== undefined)
  @SafeText('prose')
  @IsString()
  @CodePointLength(0, 500)
  description?: string;
}
