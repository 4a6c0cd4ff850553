import { Body, Controller, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CallerKeyId } from '../auth/caller-key.decorator.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import {
  PAGE_QUERY_PARAMETERS,
  QueryParameters,
  readPageQuery,
} from '../common/pagination/page-query.js';
import { Paginator, type Page } from '../common/pagination/paginator.js';
import { IdempotentResponse, type IdempotentRequest } from '../idempotency/idempotency.service.js';
import { IdempotencyKey } from '../idempotency/idempotent.decorator.js';
import { CreateWebhookDto } from './dto/create-webhook.dto.js';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import {
  CreateWebhookOperation,
  DeleteWebhookOperation,
  GetWebhookOperation,
  ListWebhookDeliveriesOperation,
  ListWebhooksOperation,
} from './webhook-operations.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhook subscriptions (docs/webhooks.md), v2 only and beta. Each belongs to the API key
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

  @CreateWebhookOperation()
  async create(
    @CallerKeyId() apiKeyId: number,
    @Body() body: CreateWebhookDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
  ): Promise<CreatedWebhookDto | IdempotentResponse> {
    // The Location, first answer or replayed, comes from @Idempotent's locationPrefix.
    return this.webhooks.create(apiKeyId, body, idempotency);
  }

  @ListWebhooksOperation()
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

  @GetWebhookOperation()
  async get(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
  ): Promise<WebhookDto> {
    return WebhookDto.from(await this.webhooks.get(apiKeyId, webhookId));
  }

  @DeleteWebhookOperation()
  async delete(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
  ): Promise<void> {
    await this.webhooks.delete(apiKeyId, webhookId);
  }

  @ListWebhookDeliveriesOperation()
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
