import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import {
  IdempotencyService,
  IdempotentResponse,
  type IdempotentRequest,
} from '../idempotency/idempotency.service.js';
import { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import type { WebhookEventType } from './webhook-events.js';
import {
  WebhookDeletedSinceError,
  WebhookLimitReachedError,
  WebhookNotFoundError,
} from './webhook.errors.js';
import { WebhookSecret } from './webhook-signature.js';
import { webhookJson } from './webhook-json.js';
import {
  WebhookSubscriptionRepository,
  type WebhookDeliveryView,
  type WebhookSubscription,
} from './webhook-subscription.repository.js';
import { hostOf, resolveTarget, TargetError } from './webhook-target.js';

/** Subscriptions per API key (docs/webhooks.md). */
export const WEBHOOKS_PER_KEY = 20;

/** Anything but visible ASCII, and the characters RFC 3986 leaves out of every URL part. */
const UNSAFE_URL_CHARACTER = /[^\x21-\x7e]|[<>"{}|\\^`]/;

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
    private readonly idempotency: IdempotencyService,
    @InjectConfig() config: AppConfig,
  ) {
    this.allowPrivateTargets = config.webhooks.allowPrivateTargets;
  }

  /**
   * createWebhook: the new subscription with its secret, the one answer that shows it. Under an
   * Idempotency-Key, the subscription and the remembered answer commit in one transaction and
   * a repeat gets the remembered answer (see IdempotencyService). The record keeps the answer
   * without the secret, so the secret stays in one place at rest (the subscription, which needs
   * it to sign): a replay reads it from there, and the key that created the subscription sees
   * the same body again. The URL is checked once the key is claimed, so a replay does not
   * resolve it again; a refused URL (400) frees the key.
   */
  async create(
    apiKeyId: number,
    input: NewWebhook,
    idempotency?: IdempotentRequest,
  ): Promise<CreatedWebhookDto | IdempotentResponse> {
    // The secret of the subscription this request creates, if it creates one.
    let fresh: WebhookSecret | undefined;
    const result = await this.idempotency.create(idempotency, {
      bodySql: webhookJson('main'),
      rejection: () => new WebhookLimitReachedError(WEBHOOKS_PER_KEY),
      insert: async (attachedWrites) => {
        const url = await this.checkedUrl(input.url);
        const secret = WebhookSecret.generate();
        const { subscription, outputs } = await this.subscriptions.insertUnderLimit(
          apiKeyId,
          { url, events: input.events, description: input.description ?? null },
          secret,
          WEBHOOKS_PER_KEY,
          attachedWrites,
        );
        fresh = secret;
        return { created: subscription && { subscription, secret }, outputs };
      },
      show: ({ subscription, secret }) => ({
        ...WebhookDto.from(subscription),
        secret: secret.reveal(),
      }),
    });
    if (!(result instanceof IdempotentResponse)) return result;
    return this.withSecret(apiKeyId, result, result.replayed ? undefined : fresh);
  }

  /**
   * A remembered creation answer with its secret appended, last as in CreatedWebhookDto:
   * `fresh` on the first answer, else the subscription's own. Deleted since: 404.
   */
  private async withSecret(
    apiKeyId: number,
    result: IdempotentResponse,
    fresh: WebhookSecret | undefined,
  ): Promise<IdempotentResponse> {
    const stored = result.answer.body;
    const { id } = JSON.parse(stored) as { id: number };
    const secret = fresh ?? (await this.subscriptions.secretForKey(apiKeyId, String(id)));
    if (!secret) throw new WebhookDeletedSinceError(String(id));
    // The stored text is one JSON object: its closing brace is its last character.
    const body = `${stored.slice(0, -1)},"secret":${JSON.stringify(secret.reveal())}}`;
    return new IdempotentResponse({ ...result.answer, body }, result.replayed);
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
   * to) a private address unless WEBHOOK_ALLOW_PRIVATE_TARGETS. Returned as written, so it
   * must be written as RFC 3986 has it: `http(s)://` and visible ASCII only (other characters
   * percent-encoded, international names in punycode); the WHATWG parser would otherwise
   * accept, and the answer repeat, control characters, unpaired surrogates or `https:host`.
   */
  private async checkedUrl(raw: string): Promise<string> {
    if (!/^https?:\/\//i.test(raw)) {
      throw new ValidationFailedError('url must be an absolute http or https URL');
    }
    if (UNSAFE_URL_CHARACTER.test(raw)) {
      throw new ValidationFailedError(
        'url must be visible ASCII without spaces or unsafe characters (percent-encode the rest)',
      );
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ValidationFailedError('url must be an absolute http or https URL');
    }
    if (url.username !== '' || url.password !== '') {
      throw new ValidationFailedError('url must not contain user information');
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
