import { Delete, Get, HttpCode, HttpStatus, Post, applyDecorators } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import {
  ApiErrorResponses,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiInt64IdParam, Beta } from '../common/http/api-decorators.js';
import { NEXT_PAGE_LINK_HEADER, PageDto, pageExample } from '../common/pagination/page.dto.js';
import { ApiPageQuery } from '../common/pagination/page-query.decorator.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { CreateWebhookDto } from './dto/create-webhook.dto.js';
import { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import {
  CREATED_WEBHOOK_EXAMPLE,
  NEW_WEBHOOK_EXAMPLE,
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
        Location: {
          description: 'Path of the new subscription',
          schema: {
            type: 'string',
            format: 'uri-reference',
            maxLength: 29,
            pattern: '^/v2/webhooks/[1-9][0-9]{0,15}$',
            example: '/v2/webhooks/12',
          },
        },
        ...IDEMPOTENT_REPLAYED_HEADER,
      },
    }),
    ApiErrorResponses(
      ErrorCode.VALIDATION_FAILED,
      ErrorCode.MALFORMED_JSON,
      ErrorCode.PAYLOAD_TOO_LARGE,
      ErrorCode.UNSUPPORTED_MEDIA_TYPE,
      ErrorCode.WEBHOOK_LIMIT_REACHED,
      ErrorCode.WEBHOOK_NOT_FOUND,
      ErrorCode.IDEMPOTENCY_KEY_IN_USE,
      ErrorCode.IDEMPOTENCY_KEY_REUSED,
    ),
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
        'No attempt is claimed for it after this answer (one claimed a moment before, already ' +
        'connecting to the receiver, still goes out); its delivery records go with it.',
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
