import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { EVENT_TYPES_SCHEMA, type WebhookEventType } from '../webhook-events.js';
import {
  DESCRIPTION_SCHEMA,
  URL_SCHEMA,
  WebhookDescriptionRules,
  WebhookEventsRules,
  WebhookUrlRules,
} from './webhook-fields.js';

@ApiSchema({ name: 'NewWebhook' })
export class CreateWebhookDto {
  @ApiProperty({
    ...URL_SCHEMA,
    example: 'https://hooks.example.com/petstore',
    description:
      'Absolute http or https URL without user information, written as RFC 3986 has it: visible ' +
      'ASCII only (percent-encode other characters; punycode for international names). ' +
      'Loopback, private, link-local, ' +
      'unique-local and unspecified addresses are refused, here and at every delivery.',
  })
  @WebhookUrlRules()
  url: string;

  @ApiProperty({
    ...EVENT_TYPES_SCHEMA,
    description: 'The event types to receive, each at most once',
  })
  @WebhookEventsRules()
  events: WebhookEventType[];

  @ApiPropertyOptional({
    ...DESCRIPTION_SCHEMA,
    description:
      'Normalised to Unicode NFC. Tabs and line breaks are fine; other control characters and ' +
      'bidirectional embeddings, overrides and isolates are not; if not empty, at least one visible character.',
  })
  // Optional, but null is a wrong type rather than "absent".
  @ValidateIf((_, value) => value !== undefined)
  @WebhookDescriptionRules()
  description?: string;
}
