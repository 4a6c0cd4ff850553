import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import type { WebhookEventType } from './webhook-events.js';
import { WebhookLimitReachedError, WebhookNotFoundError } from './webhook.errors.js';
import { WebhookSecret } from './webhook-signature.js';
import {
  WebhookSubscriptionRepository,
  type WebhookDeliveryView,
  type WebhookSubscription,
} from './webhook-subscription.repository.js';
import { hostOf, resolveTarget, TargetError } from './webhook-target.js';

/** Subscriptions per API key (contract section 11). */
export const WEBHOOKS_PER_KEY = 20;

/** How long creating a subscription waits for DNS to resolve its URL's host. */
const RESOLVE_TIMEOUT_MS = 3000;

export interface NewWebhook {
  url: string;
  events: WebhookEventType[];
  description?: string;
}

/** The rules of webhook subscriptions: owned by one API key, a checked URL, a limit. */
@Injectable()
export class WebhooksService {
  private readonly allowPrivateTargets: boolean;

  constructor(
    private readonly subscriptions: WebhookSubscriptionRepository,
    @InjectConfig() config: AppConfig,
  ) {
    this.allowPrivateTargets = config.webhooks.allowPrivateTargets;
  }

  /** Creates the subscription; the secret is returned here and never again. */
  async create(
    apiKeyId: number,
    input: NewWebhook,
  ): Promise<{ subscription: WebhookSubscription; secret: WebhookSecret }> {
    const url = await this.checkedUrl(input.url);
    const secret = WebhookSecret.generate();
    const subscription = await this.subscriptions.insertUnderLimit(
      apiKeyId,
      { url, events: input.events, description: input.description ?? null },
      secret,
      WEBHOOKS_PER_KEY,
    );
    if (!subscription) throw new WebhookLimitReachedError(WEBHOOKS_PER_KEY);
    return { subscription, secret };
  }

  async get(apiKeyId: number, webhookId: string): Promise<WebhookSubscription> {
    const subscription = await this.subscriptions.findForKey(apiKeyId, webhookId);
    if (!subscription) throw new WebhookNotFoundError(webhookId);
    return subscription;
  }

  listPage(
    apiKeyId: number,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<WebhookSubscription[]> {
    return this.subscriptions.listPageForKey(apiKeyId, order, after, take);
  }

  async delete(apiKeyId: number, webhookId: string): Promise<void> {
    if (!(await this.subscriptions.deleteForKey(apiKeyId, webhookId))) {
      throw new WebhookNotFoundError(webhookId);
    }
  }

  listDeliveriesPage(
    subscription: WebhookSubscription,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<WebhookDeliveryView[]> {
    return this.subscriptions.listDeliveriesPage(subscription.id, order, after, take);
  }

  /**
   * An absolute http(s) URL without user information, whose host is not (and does not resolve
   * to) a private address unless WEBHOOK_ALLOW_PRIVATE_TARGETS. Returned as written.
   */
  private async checkedUrl(raw: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ValidationFailedError('url must be an absolute http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ValidationFailedError('url must be an absolute http or https URL');
    }
    if (url.username !== '' || url.password !== '') {
      throw new ValidationFailedError('url must not contain user information');
    }
    if (raw !== raw.trim() || /[\s<>"{}|\\^`]/.test(raw)) {
      throw new ValidationFailedError('url must not contain white space or unsafe characters');
    }
    try {
      await withTimeout(resolveTarget(hostOf(url), this.allowPrivateTargets), RESOLVE_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof TargetError) {
        throw new ValidationFailedError(`url is not allowed: ${error.message}`);
      }
      throw new ValidationFailedError("url's host could not be resolved");
    }
    return raw;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
