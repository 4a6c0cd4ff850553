import { applyDecorators } from '@nestjs/common';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsString } from 'class-validator';
import { CodePointLength } from '../../common/http/code-point-length.validator.js';
import { SAFE_PROSE_PATTERN, SafeText } from '../../common/http/safe-text.validator.js';
import { WEBHOOK_EVENT_TYPES } from '../webhook-events.js';

/*
 * The rules of a subscription's fields, once, for createWebhook and updateWebhook alike. Each
 * list is given in the order the decorators stood stacked, last first: the order they register
 * in, so messages come out as before.
 */

/** The schema of `url`: an absolute URL of at most 2048 characters. */
export const URL_SCHEMA = { format: 'uri', minLength: 1, maxLength: 2048 } as const;

/** The schema of `description`: safe prose of at most 500 characters. */
export const DESCRIPTION_SCHEMA = {
  maxLength: 500,
  pattern: SAFE_PROSE_PATTERN,
  example: 'Order updates for the warehouse',
} as const;

export const WebhookUrlRules = () => applyDecorators(CodePointLength(1, 2048), IsString());

export const WebhookEventsRules = () =>
  applyDecorators(
    IsIn(WEBHOOK_EVENT_TYPES, {
      each: true,
      message: `each value in events must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    }),
    ArrayUnique(),
    ArrayMaxSize(WEBHOOK_EVENT_TYPES.length),
    ArrayNotEmpty(),
    IsArray(),
  );

export const WebhookDescriptionRules = () =>
  applyDecorators(CodePointLength(0, 500), IsString(), SafeText('prose'));
