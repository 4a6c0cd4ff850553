import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
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
import { EVENT_TYPES_SCHEMA, WEBHOOK_EVENT_TYPES } from '../webhook-events.js';

/*
 * A subscription's fields, once, for createWebhook and updateWebhook alike: each field's schema
 * and rules, in one decorator. The rules of each are given in the order the decorators stood
 * stacked, last first: the order they register in, so messages come out as before.
 */

/**
 * Whether a body must hold the field: `required`; `optional` (absent is fine); `nullable`
 * (absent or null is fine: null removes it).
 */
export type FieldPresence = 'required' | 'optional' | 'nullable';

/** A field's schema and rules, checked only when present (and not null, when nullable). */
function field(
  presence: FieldPresence,
  schema: ApiPropertyOptions,
  rules: PropertyDecorator,
): PropertyDecorator {
  if (presence === 'required') return applyDecorators(ApiProperty(schema), rules);
  return applyDecorators(
    ApiPropertyOptional(schema),
    ValidateIf((_, value) => value !== undefined && (presence === 'optional' || value !== null)),
    rules,
  );
}

/** `url`: an absolute URL of at most 2048 characters. */
export const WebhookUrlField = (
  presence: FieldPresence,
  { example, description }: { example: string; description: string },
): PropertyDecorator =>
  field(
    presence,
    { format: 'uri', minLength: 1, maxLength: 2048, example, description },
    applyDecorators(CodePointLength(1, 2048), IsString()),
  );

/** `events`: one or more event types, each at most once. */
export const WebhookEventsField = (presence: FieldPresence, description: string) =>
  field(
    presence,
    { ...EVENT_TYPES_SCHEMA, description },
    applyDecorators(
      IsIn(WEBHOOK_EVENT_TYPES, {
        each: true,
        message: `each value in events must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      }),
      ArrayUnique(),
      ArrayMaxSize(WEBHOOK_EVENT_TYPES.length),
      ArrayNotEmpty(),
      IsArray(),
    ),
  );

/** `description`: safe prose of at most 500 characters. */
export const WebhookDescriptionField = (presence: FieldPresence, description: string) =>
  field(
    presence,
    {
      ...(presence === 'nullable' ? { type: 'string', nullable: true } : {}),
      maxLength: 500,
      pattern: SAFE_PROSE_PATTERN,
      example: 'Order updates for the warehouse',
      description,
    },
    applyDecorators(CodePointLength(0, 500), IsString(), SafeText('prose')),
  );
