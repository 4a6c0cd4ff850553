import { Delete, Get, HttpCode, HttpStatus, Patch, Post, applyDecorators } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import {
  ApiErrorResponses,
  ApiIdempotentErrorResponses,
  IDEMPOTENT_REPLAYED_HEADER,
  JSON_BODY_ERRORS,
} from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { JsonBody } from '../common/http/json-body.interceptor.js';
import { ApiInt64IdParam, Beta, locationHeader } from '../common/http/api-decorators.js';
import { NEXT_PAGE_LINK_HEADER, PageDto, pageExample } from '../common/pagination/page.dto.js';
import { ApiPageQuery } from '../common/pagination/page-query.decorator.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { RecoverWebhookDeliveriesDto, RequeuedDto } from './dto/recover-webhook-deliveries.dto.js';
import { UpdateWebhookDto } from './dto/update-webhook.dto.js';
import { WebhookDeliveryDetailDto, WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { RotatedWebhookSecretDto, RotateWebhookSecretDto } from './dto/webhook-secret.dto.js';
import { CreateWebhookDto } from './dto/create-webhook.dto.js';
import { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import {
  CREATED_WEBHOOK_EXAMPLE,
  NEW_WEBHOOK_EXAMPLE,
  RECOVER_WEBHOOK_DELIVERIES_EXAMPLE,
  REDELIVERED_WEBHOOK_DELIVERY_EXAMPLE,
  REQUEUED_EXAMPLE,
  ROTATE_WEBHOOK_SECRET_EXAMPLE,
  ROTATED_WEBHOOK_SECRET_EXAMPLE,
  UPDATE_WEBHOOK_EXAMPLE,
  UPDATED_WEBHOOK_EXAMPLE,
  WEBHOOK_DELIVERY_DETAIL_EXAMPLE,
  WEBHOOK_DELIVERY_LIST_EXAMPLE,
  WEBHOOK_EXAMPLE,
  WEBHOOK_LIST_EXAMPLE,
} from './webhook-examples.js';

/*
 * The webhook operations (v2 only, beta), each once: route, behaviour and documentation.
 * Described in docs/webhooks.md.
 */

/** Where a subscription lives: this followed by its id. */
export const WEBHOOK_PATH = '/v2/webhooks/';

const WebhookPageDto = PageDto(WebhookDto, 'WebhookPage', 'A page of webhook subscriptions, by id');
const WebhookDeliveryPageDto = PageDto(
  WebhookDeliveryDto,
  'WebhookDeliveryPage',
  'A page of one subscription’s deliveries, oldest first by default',
);

/** POST /webhooks: a subscription and its secret, under an Idempotency-Key. */
export const CreateWebhookOperation = (): MethodDecorator =>
  applyDecorators(
    Post(),
    HttpCode(HttpStatus.CREATED),
    Idempotent({ version: 'v2', operation: 'createWebhook', locationPrefix: WEBHOOK_PATH }),
    Beta(),
    ApiOperation({
      operationId: 'createWebhook',
      summary: 'Subscribe a URL to events',
      description:
        'The answer holds the signing secret, shown only in this answer: a repeat with the same ' +
        'Idempotency-Key gets it again (404 WEBHOOK_NOT_FOUND once the subscription is deleted). ' +
        'At most 20 subscriptions per API key.',
    }),
    ApiBody({
      type: CreateWebhookDto,
      examples: {
        subscription: { summary: 'Order events to a warehouse', value: NEW_WEBHOOK_EXAMPLE },
      },
    }),
    ApiCreatedResponse({
      type: CreatedWebhookDto,
      description: 'The new subscription and its secret',
      example: CREATED_WEBHOOK_EXAMPLE,
      headers: {
        ...locationHeader('Path of the new subscription', WEBHOOK_PATH, 12),
        ...IDEMPOTENT_REPLAYED_HEADER,
      },
    }),
    ApiIdempotentErrorResponses(ErrorCode.WEBHOOK_LIMIT_REACHED, ErrorCode.WEBHOOK_NOT_FOUND),
  );

/** GET /webhooks: this API key's subscriptions, a page at a time. */
export const ListWebhooksOperation = (): MethodDecorator =>
  applyDecorators(
    Get(),
    Beta(),
    ApiOperation({
      operationId: 'listWebhooks',
      summary: "List this API key's subscriptions, a page at a time",
      description: 'Without secrets. Pages cut on the id: follow nextCursor, or the Link header.',
    }),
    ApiPageQuery(),
    ApiOkResponse({
      type: WebhookPageDto,
      description: 'A page of subscriptions',
      headers: NEXT_PAGE_LINK_HEADER,
      example: pageExample(WEBHOOK_LIST_EXAMPLE),
    }),
    ApiErrorResponses(ErrorCode.VALIDATION_FAILED),
  );

/** GET /webhooks/{webhookId}. */
export const GetWebhookOperation = (): MethodDecorator =>
  applyDecorators(
    Get(':webhookId'),
    Beta(),
    ApiOperation({
      operationId: 'getWebhook',
      summary: 'Read one subscription (without secret)',
      description:
        "Another API key's subscription is 404 WEBHOOK_NOT_FOUND, as one that does not exist.",
    }),
    ApiInt64IdParam('webhookId', 'Identifier of the subscription'),
    ApiOkResponse({ type: WebhookDto, description: 'The subscription', example: WEBHOOK_EXAMPLE }),
    ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_NOT_FOUND),
  );

/** DELETE /webhooks/{webhookId}. */
export const DeleteWebhookOperation = (): MethodDecorator =>
  applyDecorators(
    Delete(':webhookId'),
    HttpCode(HttpStatus.NO_CONTENT),
    Beta(),
    ApiOperation({
      operationId: 'deleteWebhook',
      summary: 'Delete a subscription',
      description:
        'No attempt starts after this answer: the subscription stops being sent to at once, ' +
        'and the answer waits (at most WEBHOOK_TIMEOUT_MS) for an attempt already under way to ' +
        'end. Its delivery records go with it.',
    }),
    ApiInt64IdParam('webhookId', 'Identifier of the subscription'),
    ApiNoContentResponse({ description: 'Deleted' }),
    ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_NOT_FOUND),
  );

/** GET /webhooks/{webhookId}/deliveries, a page at a time. */
export const ListWebhookDeliveriesOperation = (): MethodDecorator =>
  applyDecorators(
    Get(':webhookId/deliveries'),
    Beta(),
    ApiOperation({
      operationId: 'listWebhookDeliveries',
      summary: "A subscription's deliveries and where each stands, a page at a time",
      description:
        'One delivery per event sent to this subscription: pending (with its next attempt), ' +
        'succeeded or failed, with its attempts so far. Pages cut on the id, oldest first by ' +
        'default: follow nextCursor, or the Link header.',
    }),
    ApiInt64IdParam('webhookId', 'Identifier of the subscription'),
    ApiPageQuery(),
    ApiOkResponse({
      type: WebhookDeliveryPageDto,
      description: 'A page of deliveries',
      headers: NEXT_PAGE_LINK_HEADER,
      example: pageExample(WEBHOOK_DELIVERY_LIST_EXAMPLE),
    }),
    ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_NOT_FOUND),
  );

/** An event id in a path: the form events are written in. */
export const EVENT_ID_PATTERN = /^evt_[0-9a-f]{32}$/;

const ApiEventIdParam = (): MethodDecorator =>
  ApiParam({
    name: 'eventId',
    description: 'The event id (webhook-id) of the delivery',
    schema: {
      type: 'string',
      pattern: EVENT_ID_PATTERN.source,
      minLength: 36,
      maxLength: 36,
      example: 'evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10',
    },
  });

/** PATCH /webhooks/{webhookId}. */
export const UpdateWebhookOperation = (): MethodDecorator =>
  applyDecorators(
    Patch(':webhookId'),
    JsonBody(),
    Beta(),
    ApiOperation({
      operationId: 'updateWebhook',
      summary: 'Change a subscription: url, events, description, enabled',
      description:
        'Any non-empty subset of the fields, each under createWebhook’s rules (description: ' +
        'null removes it). A new url applies to every attempt made after the answer, new ' +
        'events to every event recorded after it. enabled: false disables the subscription ' +
        '(disabledReason requested) and fails its pending deliveries; enabled: true enables it ' +
        'again and clears disabledAt and disabledReason.',
    }),
    ApiInt64IdParam('webhookId', 'Identifier of the subscription'),
    ApiBody({
      type: UpdateWebhookDto,
      examples: {
        change: { summary: 'A new address and one more event', value: UPDATE_WEBHOOK_EXAMPLE },
      },
    }),
    ApiOkResponse({
      type: WebhookDto,
      description: 'The subscription, changed',
      example: UPDATED_WEBHOOK_EXAMPLE,
    }),
    ApiErrorResponses(...JSON_BODY_ERRORS, ErrorCode.WEBHOOK_NOT_FOUND),
  );

/** POST /webhooks/{webhookId}/rotate-secret. */
export const RotateWebhookSecretOperation = (): MethodDecorator =>
  applyDecorators(
    Post(':webhookId/rotate-secret'),
    HttpCode(HttpStatus.OK),
    Idempotent({ version: 'v2', operation: 'rotateWebhookSecret' }),
    Beta(),
    ApiOperation({
      operationId: 'rotateWebhookSecret',
      summary: 'Give a subscription a new signing secret, the old one overlapping',
      description:
        'The new secret is shown only in this answer. Until previousSecretExpiresAt every ' +
        'delivery carries two signatures, the new one first (webhook-signature: v1,<new> ' +
        'v1,<previous>). At most two secrets are ever live: rotating again during an overlap ' +
        'drops the older one at once. A repeat with the same Idempotency-Key answers the same ' +
        'new secret while it still signs (404 WEBHOOK_NOT_FOUND once it no longer does).',
    }),
    ApiInt64IdParam('webhookId', 'Identifier of the subscription'),
    ApiBody({
      examples: {
        overlap: {
          summary: 'The previous secret signs for an hour more',
          value: ROTATE_WEBHOOK_SECRET_EXAMPLE,
        },
      },
      type: RotateWebhookSecretDto,
    }),
    ApiOkResponse({
      type: RotatedWebhookSecretDto,
      description: 'The new secret',
      example: ROTATED_WEBHOOK_SECRET_EXAMPLE,
      headers: IDEMPOTENT_REPLAYED_HEADER,
    }),
    ApiIdempotentErrorResponses(ErrorCode.WEBHOOK_NOT_FOUND),
  );

/** GET /webhooks/{webhookId}/deliveries/{eventId}. */
export const GetWebhookDeliveryOperation = (): MethodDecorator =>
  applyDecorators(
    Get(':webhookId/deliveries/:eventId'),
    Beta(),
    ApiOperation({
      operationId: 'getWebhookDelivery',
      summary: 'One delivery, its event and its last attempts',
      description:
        'The fields of a listed delivery, the event exactly as it is sent, and the last 20 ' +
        'attempts, oldest first.',
    }),
    ApiInt64IdParam('webhookId', 'Identifier of the subscription'),
    ApiEventIdParam(),
    ApiOkResponse({
      type: WebhookDeliveryDetailDto,
      description: 'The delivery',
      example: WEBHOOK_DELIVERY_DETAIL_EXAMPLE,
    }),
    ApiErrorResponses(
      ErrorCode.VALIDATION_FAILED,
      ErrorCode.WEBHOOK_NOT_FOUND,
      ErrorCode.DELIVERY_NOT_FOUND,
    ),
  );

/** POST /webhooks/{webhookId}/deliveries/{eventId}/redeliver. */
export const RedeliverWebhookDeliveryOperation = (): MethodDecorator =>
  applyDecorators(
    Post(':webhookId/deliveries/:eventId/redeliver'),
    HttpCode(HttpStatus.ACCEPTED),
    Beta(),
    ApiOperation({
      operationId: 'redeliverWebhookDelivery',
      summary: 'Send a finished delivery again',
      description:
        'The same event id and body, at once, then on the retry schedule from its start; ' +
        'attempts keeps counting. No body.',
    }),
    ApiInt64IdParam('webhookId', 'Identifier of the subscription'),
    ApiEventIdParam(),
    ApiAcceptedResponse({
      type: WebhookDeliveryDetailDto,
      description: 'The delivery, pending',
      example: REDELIVERED_WEBHOOK_DELIVERY_EXAMPLE,
    }),
    ApiErrorResponses(
      ErrorCode.VALIDATION_FAILED,
      ErrorCode.WEBHOOK_NOT_FOUND,
      ErrorCode.DELIVERY_NOT_FOUND,
      ErrorCode.DELIVERY_PENDING,
      ErrorCode.WEBHOOK_DISABLED,
    ),
  );

/** POST /webhooks/{webhookId}/recover. */
export const RecoverWebhookDeliveriesOperation = (): MethodDecorator =>
  applyDecorators(
    Post(':webhookId/recover'),
    HttpCode(HttpStatus.ACCEPTED),
    JsonBody(),
    Beta(),
    ApiOperation({
      operationId: 'recoverWebhookDeliveries',
      summary: 'Send every failed delivery since a time again',
      description:
        'Every failed delivery of the subscription whose event was created at or after since ' +
        'goes back to pending, as if each were redelivered.',
    }),
    ApiInt64IdParam('webhookId', 'Identifier of the subscription'),
    ApiBody({
      type: RecoverWebhookDeliveriesDto,
      examples: {
        outage: {
          summary: 'Everything that failed since an outage began',
          value: RECOVER_WEBHOOK_DELIVERIES_EXAMPLE,
        },
      },
    }),
    ApiAcceptedResponse({
      type: RequeuedDto,
      description: 'How many are pending again',
      example: REQUEUED_EXAMPLE,
    }),
    ApiErrorResponses(...JSON_BODY_ERRORS, ErrorCode.WEBHOOK_NOT_FOUND, ErrorCode.WEBHOOK_DISABLED),
  );
