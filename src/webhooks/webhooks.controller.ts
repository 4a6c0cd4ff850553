import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CallerKeyId } from '../auth/caller-key.decorator.js';
import {
  ApiErrorResponses,
  IDEMPOTENT_REPLAYED_HEADER,
} from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiInt64IdParam, Beta } from '../common/http/api-decorators.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import { JsonBodyInterceptor } from '../common/http/json-body.interceptor.js';
import { NEXT_PAGE_LINK_HEADER, PageDto } from '../common/pagination/page.dto.js';
import { ApiPageQuery } from '../common/pagination/page-query.decorator.js';
import {
  PAGE_QUERY_PARAMETERS,
  QueryParameters,
  readPageQuery,
} from '../common/pagination/page-query.js';
import { Paginator, type Page } from '../common/pagination/paginator.js';
import { IdempotentAnswer, type IdempotentRequest } from '../idempotency/idempotency.service.js';
import { Idempotent, IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { CreateWebhookDto } from './dto/create-webhook.dto.js';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

/** Where a subscription lives: this followed by its id. */
const WEBHOOK_PATH = '/v2/webhooks/';

const WebhookPageDto = PageDto(WebhookDto, 'WebhookPage', 'A page of webhook subscriptions, by id');
const WebhookDeliveryPageDto = PageDto(
  WebhookDeliveryDto,
  'WebhookDeliveryPage',
  'A page of one subscription’s deliveries, oldest first by default',
);

/**
 * Webhook subscriptions (contract section 11), v2 only and beta. Each belongs to the API key
 * that made it: another key's is a 404 exactly like one that does not exist.
 */
@ApiTags('webhooks')
@ApiBearerAuth()
@Controller({ path: 'webhooks', version: '2' })
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly paginator: Paginator,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @Idempotent({ version: 'v2', operation: 'createWebhook', locationPrefix: WEBHOOK_PATH })
  @UseInterceptors(JsonBodyInterceptor)
  @Beta()
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Subscribe a URL to events',
    description:
      'The answer holds the signing secret, shown only in this answer: a repeat with the same ' +
      'Idempotency-Key gets it again (404 WEBHOOK_NOT_FOUND once the subscription is deleted). ' +
      'At most 20 subscriptions per API key.',
  })
  @ApiCreatedResponse({
    type: CreatedWebhookDto,
    description: 'The new subscription and its secret',
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
  })
  @ApiErrorResponses(
    ErrorCode.VALIDATION_FAILED,
    ErrorCode.MALFORMED_JSON,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.WEBHOOK_LIMIT_REACHED,
    ErrorCode.WEBHOOK_NOT_FOUND,
    ErrorCode.IDEMPOTENCY_KEY_IN_USE,
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
  )
  async create(
    @CallerKeyId() apiKeyId: number,
    @Body() body: CreateWebhookDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
  ): Promise<CreatedWebhookDto | IdempotentAnswer> {
    // The Location, first answer or replayed, comes from @Idempotent's locationPrefix.
    return this.webhooks.create(apiKeyId, body, idempotency);
  }

  @Get()
  @Beta()
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: "List this API key's subscriptions, a page at a time",
    description: 'Without secrets. Pages cut on the id: follow nextCursor, or the Link header.',
  })
  @ApiPageQuery()
  @ApiOkResponse({
    type: WebhookPageDto,
    description: 'A page of subscriptions',
    headers: NEXT_PAGE_LINK_HEADER,
  })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED)
  async list(
    @CallerKeyId() apiKeyId: number,
    @Query() rawQuery: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Page<WebhookDto>> {
    const query = readPageQuery(new QueryParameters(rawQuery, PAGE_QUERY_PARAMETERS));
    const page = await this.paginator.page(request, response, {
      list: 'webhooks',
      query,
      filters: [],
      fetch: (after, take) => this.webhooks.listPage(apiKeyId, query.order, after, take),
      idOf: (subscription) => subscription.id,
    });
    return { data: page.data.map((s) => WebhookDto.from(s)), nextCursor: page.nextCursor };
  }

  @Get(':webhookId')
  @Beta()
  @ApiOperation({
    operationId: 'getWebhook',
    summary: 'Read one subscription (without secret)',
    description:
      "Another API key's subscription is 404 WEBHOOK_NOT_FOUND, as one that does not exist.",
  })
  @ApiInt64IdParam('webhookId', 'Identifier of the subscription')
  @ApiOkResponse({ type: WebhookDto, description: 'The subscription' })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_NOT_FOUND)
  async get(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
  ): Promise<WebhookDto> {
    return WebhookDto.from(await this.webhooks.get(apiKeyId, webhookId));
  }

  @Delete(':webhookId')
  @HttpCode(HttpStatus.NO_CONTENT)
  @Beta()
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Delete a subscription',
    description:
      'No attempt is claimed for it after this answer (one claimed a moment before, already ' +
      'connecting to the receiver, still goes out); its delivery records go with it.',
  })
  @ApiInt64IdParam('webhookId', 'Identifier of the subscription')
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_NOT_FOUND)
  async delete(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
  ): Promise<void> {
    await this.webhooks.delete(apiKeyId, webhookId);
  }

  @Get(':webhookId/deliveries')
  @Beta()
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "A subscription's deliveries and where each stands, a page at a time",
    description:
      'One delivery per event sent to this subscription: pending (with its next attempt), ' +
      'succeeded or failed, with its attempts so far. Pages cut on the id, oldest first by ' +
      'default: follow nextCursor, or the Link header.',
  })
  @ApiInt64IdParam('webhookId', 'Identifier of the subscription')
  @ApiPageQuery()
  @ApiOkResponse({
    type: WebhookDeliveryPageDto,
    description: 'A page of deliveries',
    headers: NEXT_PAGE_LINK_HEADER,
  })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.WEBHOOK_NOT_FOUND)
  async listDeliveries(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
    @Query() rawQuery: unknown,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Page<WebhookDeliveryDto>> {
    const query = readPageQuery(new QueryParameters(rawQuery, PAGE_QUERY_PARAMETERS));
    const subscription = await this.webhooks.get(apiKeyId, webhookId);
    const page = await this.paginator.page(request, response, {
      list: `webhook-deliveries:${subscription.id}`,
      query,
      filters: [],
      fetch: (after, take) =>
        this.webhooks.listDeliveriesPage(subscription, query.order, after, take),
      idOf: (delivery) => delivery.id,
    });
    return {
      data: page.data.map((d) => WebhookDeliveryDto.from(d)),
      nextCursor: page.nextCursor,
    };
  }
}
