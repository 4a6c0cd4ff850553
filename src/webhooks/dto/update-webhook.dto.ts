import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';
import { EVENT_TYPES_SCHEMA, type WebhookEventType } from '../webhook-events.js';
import {
  DESCRIPTION_SCHEMA,
  URL_SCHEMA,
  WebhookDescriptionRules,
  WebhookEventsRules,
  WebhookUrlRules,
} from './webhook-fields.js';

/** updateWebhook's body: any non-empty subset of these, each with createWebhook's rules. */
@ApiSchema({ name: 'WebhookChanges' })
export class UpdateWebhookDto {
  @ApiPropertyOptional({
    ...URL_SCHEMA,
    example: 'https://hooks.example.com/petstore-v2',
    description:
      "createWebhook's rules: absolute http or https, visible ASCII, no user information, no " +
      'private target. Every attempt made after the answer goes to it.',
  })
  @ValidateIf((_, value) => value !== undefined)
  @WebhookUrlRules()
  url?: string;

  @ApiPropertyOptional({
    ...EVENT_TYPES_SCHEMA,
    description:
      'The event types to receive, each at most once: for events recorded after the answer',
  })
  @ValidateIf((_, value) => value !== undefined)
  @WebhookEventsRules()
  events?: WebhookEventType[];

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    ...DESCRIPTION_SCHEMA,
    description: "createWebhook's rules; null removes it",
  })
  @ValidateIf((_, value) => value !== undefined && value !== null)
  @WebhookDescriptionRules()
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
