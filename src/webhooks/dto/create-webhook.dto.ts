import { ApiSchema } from '@nestjs/swagger';
import type { WebhookEventType } from '../webhook-events.js';
import { WebhookDescriptionField, WebhookEventsField, WebhookUrlField } from './webhook-fields.js';

@ApiSchema({ name: 'NewWebhook' })
export class CreateWebhookDto {
  @WebhookUrlField('required', {
    example: 'https://hooks.example.com/petstore',
    description:
      'Absolute http or https URL without user information, written as RFC 3986 has it: visible ' +
      'ASCII only (percent-encode other characters; punycode for international names). ' +
      'Loopback, private, link-local, ' +
      'unique-local and unspecified addresses are refused, here and at every delivery.',
  })
  url: string;

  @WebhookEventsField('required', 'The event types to receive, each at most once')
  events: WebhookEventType[];

  // Optional, but null is a wrong type rather than "absent".
  @WebhookDescriptionField(
    'optional',
    'Normalised to Unicode NFC. Tabs and line breaks are fine; other control characters and ' +
      'bidirectional embeddings, overrides and isolates are not; if not empty, at least one visible character.',
  )
  description?: string;
}
