import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';
import type { WebhookEventType } from '../webhook-events.js';
import { WebhookDescriptionField, WebhookEventsField, WebhookUrlField } from './webhook-fields.js';

/** updateWebhook's body: any non-empty subset of these, each with createWebhook's rules. */
@ApiSchema({ name: 'WebhookChanges' })
export class UpdateWebhookDto {
  @WebhookUrlField('optional', {
    example: 'https://hooks.example.com/petstore-v2',
    description:
      "createWebhook's rules: absolute http or https, visible ASCII, no user information, no " +
      'private target. Every attempt made after the answer goes to it.',
  })
  url?: string;

  @WebhookEventsField(
    'optional',
    'The event types to receive, each at most once: for events recorded after the answer',
  )
  events?: WebhookEventType[];

  @WebhookDescriptionField('nullable', "createWebhook's rules; null removes it")
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
