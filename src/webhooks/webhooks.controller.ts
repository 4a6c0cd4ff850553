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
import {
  RecoverWebhookDeliveriesDto,
  type RequeuedDto,
} from './dto/recover-webhook-deliveries.dto.js';
import { UpdateWebhookDto } from './dto/update-webhook.dto.js';
import { WebhookDeliveryDetailDto, WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import {
  DEFAULT_PREVIOUS_SECRET_SECONDS,
  RotateWebhookSecretDto,
  type RotatedWebhookSecretDto,
} from './dto/webhook-secret.dto.js';
import { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import {
  CreateWebhookOperation,
  DeleteWebhookOperation,
  GetWebhookDeliveryOperation,
  GetWebhookOperation,
  ListWebhookDeliveriesOperation,
  ListWebhooksOperation,
  RecoverWebhookDeliveriesOperation,
  RedeliverWebhookDeliveryOperation,
  RotateWebhookSecretOperation,
  UpdateWebhookOperation,
} from './webhook-operations.js';
import { EventIdPipe } from './event-id.pipe.js';
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

  @UpdateWebhookOperation()
  async update(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookDto> {
    const { url, events, description, enabled } = body;
    return WebhookDto.from(
      await this.webhooks.update(apiKeyId, webhookId, { url, events, description, enabled }),
    );
  }

  @RotateWebhookSecretOperation()
  async rotateSecret(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
    @Body() body: RotateWebhookSecretDto,
    @IdempotencyKey() idempotency: IdempotentRequest | undefined,
  ): Promise<RotatedWebhookSecretDto | IdempotentResponse> {
    return this.webhooks.rotateSecret(
      apiKeyId,
      webhookId,
      body.previousSecretExpiresInSeconds ?? DEFAULT_PREVIOUS_SECRET_SECONDS,
      idempotency,
    );
  }

  @GetWebhookDeliveryOperation()
  async getDelivery(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
    @Param('eventId', EventIdPipe) eventId: string,
  ): Promise<WebhookDeliveryDetailDto> {
    return WebhookDeliveryDetailDto.fromDetail(
      await this.webhooks.getDelivery(apiKeyId, webhookId, eventId),
    );
  }

  @RedeliverWebhookDeliveryOperation()
  async redeliver(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
    @Param('eventId', EventIdPipe) eventId: string,
  ): Promise<WebhookDeliveryDetailDto> {
    return WebhookDeliveryDetailDto.fromDetail(
      await this.webhooks.redeliver(apiKeyId, webhookId, eventId),
    );
  }

  @RecoverWebhookDeliveriesOperation()
  async recover(
    @CallerKeyId() apiKeyId: number,
    @Param('webhookId', Int64IdPipe) webhookId: string,
    @Body() body: RecoverWebhookDeliveriesDto,
  ): Promise<RequeuedDto> {
    return { requeued: await this.webhooks.recover(apiKeyId, webhookId, body.since) };
  }
}
