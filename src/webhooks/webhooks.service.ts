import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatMicros, parseDateTimeWithOffset } from '../common/http/date-time.js';
import { timestamp } from '../database/resource-json.js';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import type { AppConfig } from '../config/app-config.js';
import { InjectConfig } from '../config/app-config.provider.js';
import {
  IdempotencyService,
  IdempotentResponse,
  type IdempotentRequest,
} from '../idempotency/idempotency.service.js';
import { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import type { RotatedWebhookSecretDto } from './dto/webhook-secret.dto.js';
import { WebhookMetrics } from './webhook-metrics.js';
import type { WebhookChanges } from './webhook-subscription-statements.js';
import type { WebhookEventType } from './webhook-events.js';
import {
  DeliveryNotFoundError,
  DeliveryPendingError,
  WebhookDeletedSinceError,
  WebhookDisabledError,
  WebhookLimitReachedError,
  WebhookNotFoundError,
  WebhookSecretReplacedError,
} from './webhook.errors.js';
import { WebhookSecret } from './webhook-signature.js';
import { webhookJson } from './webhook-json.js';
import {
  WebhookSubscriptionRepository,
  type WebhookDeliveryDetail,
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

/** How often a delete looks whether the attempts under way have ended, and how long past
 * WEBHOOK_TIMEOUT_MS it allows an attempt to be recorded. */
const ATTEMPT_POLL_MS = 50;
const ATTEMPT_RECORD_MARGIN_MS = 500;

export interface NewWebhook {
  url: string;
  events: WebhookEventType[];
  description?: string;
}

/** The rules of webhook subscriptions: owned by one API key, a checked URL, a limit. */
@Injectable()
export class WebhooksService {
  private readonly allowPrivateTargets: boolean;
  private readonly timeoutMs: number;

  constructor(
    private readonly subscriptions: WebhookSubscriptionRepository,
    private readonly idempotency: IdempotencyService,
    private readonly metrics: WebhookMetrics,
    @InjectConfig() config: AppConfig,
  ) {
    this.allowPrivateTargets = config.webhooks.allowPrivateTargets;
    this.timeoutMs = config.webhooks.timeoutMs;
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
      render: ({ subscription, secret }) => ({
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

  /**
   * deleteWebhook: no attempt starts after the answer. The subscription is first disabled (no
   * attempt is claimed for it any more), then the answer waits for the attempts already under
   * way (each ends within WEBHOOK_TIMEOUT_MS), then it goes with its deliveries.
   */
  async delete(apiKeyId: number, webhookId: string): Promise<void> {
    if (!(await this.subscriptions.stopForKey(apiKeyId, webhookId))) {
      throw new WebhookNotFoundError(webhookId);
    }
    await this.attemptsEnded(webhookId);
    await this.subscriptions.deleteForKey(apiKeyId, webhookId);
  }

  /**
   * updateWebhook: each field sent, under createWebhook's rules. A new URL, or disabling, waits
   * for the attempts under way (to the old URL, or of a subscription now disabled), so that
   * every attempt made after the answer follows it.
   */
  async update(
    apiKeyId: number,
    webhookId: string,
    changes: WebhookChanges,
  ): Promise<WebhookSubscription> {
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new ValidationFailedError(
        'the body must change at least one of url, events, description, enabled',
      );
    }
    const before = await this.get(apiKeyId, webhookId);
    const url = changes.url === undefined ? undefined : await this.checkedUrl(changes.url);
    const updated = await this.subscriptions.updateForKey(apiKeyId, webhookId, {
      ...changes,
      url,
    });
    if (!updated) throw new WebhookNotFoundError(webhookId);
    const stopped = before.enabled && !updated.enabled;
    if (stopped) this.metrics.disabled('requested');
    if (stopped || (url !== undefined && url !== before.url)) {
      await this.attemptsEnded(updated.id);
    }
    return updated;
  }

  /**
   * rotateWebhookSecret: a new secret, shown only in this answer; the one it replaces keeps
   * signing for `previousExpiresInSeconds` (an older one, from a rotation still overlapping,
   * is dropped). Under an Idempotency-Key the rotation and the remembered answer commit
   * together, as a create's do; the record keeps the rotation's number, not the secret, and a
   * replay answers the secret that rotation made, read from the subscription while it still
   * signs (gone since: 404).
   */
  async rotateSecret(
    apiKeyId: number,
    webhookId: string,
    previousExpiresInSeconds: number,
    idempotency?: IdempotentRequest,
  ): Promise<RotatedWebhookSecretDto | IdempotentResponse> {
    let fresh: WebhookSecret | undefined;
    const result = await this.idempotency.create(idempotency, {
      bodySql: `json_build_object('rotation', main.secret_rotations,
        'previousSecretExpiresAt', ${timestamp.sql('main.previous_secret_expires_at')})`,
      rejection: () => new WebhookNotFoundError(webhookId),
      insert: async (attachedWrites) => {
        const secret = WebhookSecret.generate();
        const { rotation, outputs } = await this.subscriptions.rotateSecretForKey(
          apiKeyId,
          webhookId,
          secret,
          previousExpiresInSeconds,
          attachedWrites,
        );
        fresh = secret;
        return { created: rotation, outputs };
      },
      render: (rotation) => ({
        secret: (fresh as WebhookSecret).reveal(),
        previousSecretExpiresAt: rotation.previousSecretExpiresAt.toISOString(),
      }),
    });
    if (!(result instanceof IdempotentResponse)) return result;
    const { rotation, previousSecretExpiresAt } = JSON.parse(result.answer.body) as {
      rotation: number;
      previousSecretExpiresAt: string;
    };
    const secret = result.replayed
      ? await this.subscriptions.secretOfRotation(apiKeyId, webhookId, rotation)
      : fresh;
    if (!secret) throw new WebhookSecretReplacedError(webhookId);
    const body = JSON.stringify({ secret: secret.reveal(), previousSecretExpiresAt });
    return new IdempotentResponse({ ...result.answer, body }, result.replayed);
  }

  async getDelivery(
    apiKeyId: number,
    webhookId: string,
    eventId: string,
  ): Promise<WebhookDeliveryDetail> {
    return this.deliveryOf(await this.get(apiKeyId, webhookId), eventId);
  }

  private async deliveryOf(
    subscription: WebhookSubscription,
    eventId: string,
  ): Promise<WebhookDeliveryDetail> {
    const delivery = await this.subscriptions.findDelivery(subscription.id, eventId);
    if (!delivery) throw new DeliveryNotFoundError(String(subscription.id), eventId);
    return delivery;
  }

  /**
   * redeliverWebhookDelivery: the finished delivery of `eventId` pending again, due now, on
   * the retry schedule from its start (its attempts keep counting).
   */
  async redeliver(
    apiKeyId: number,
    webhookId: string,
    eventId: string,
  ): Promise<WebhookDeliveryDetail> {
    const subscription = await this.get(apiKeyId, webhookId);
    const id = String(subscription.id);
    const result = await this.subscriptions.sendAgain(subscription.id, eventId, null);
    if (result.previousStatus === null) throw new DeliveryNotFoundError(id, eventId);
    if (!result.enabled) throw new WebhookDisabledError(id);
    if (result.requeued === 0) throw new DeliveryPendingError(eventId);
    this.metrics.sentAgainCount('redelivered', 1);
    return this.deliveryOf(subscription, eventId);
  }

  /** recoverWebhookDeliveries: every failed delivery of an event since `since`, as redelivered. */
  async recover(apiKeyId: number, webhookId: string, since: string): Promise<number> {
    const subscription = await this.get(apiKeyId, webhookId);
    const micros = parseDateTimeWithOffset(since);
    if (micros === undefined) throw new ValidationFailedError('since is not a valid date-time');
    const result = await this.subscriptions.sendAgain(subscription.id, null, formatMicros(micros));
    if (!result.enabled) throw new WebhookDisabledError(String(subscription.id));
    this.metrics.sentAgainCount('recovered', result.requeued);
    return result.requeued;
  }

  /**
   * Waits until no attempt for the subscription is under way: those claimed before it was
   * disabled. Bounded: an attempt ends within WEBHOOK_TIMEOUT_MS of its start.
   */
  private async attemptsEnded(subscriptionId: number | string): Promise<void> {
    const deadline = Date.now() + this.timeoutMs + ATTEMPT_RECORD_MARGIN_MS;
    while (
      Date.now() < deadline &&
      (await this.subscriptions.attemptsUnderWay(subscriptionId, this.timeoutMs)) > 0
    ) {
      await sleep(ATTEMPT_POLL_MS);
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
