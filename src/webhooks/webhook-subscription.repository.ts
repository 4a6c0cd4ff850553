import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AttachedWrite } from '../database/attached-writes.js';
import { ReadRouter } from '../database/read-router.js';
import { runStatement } from '../database/statement.js';
import type { WebhookEventType } from './webhook-events.js';
import { WebhookSecret } from './webhook-signature.js';
import {
  webhookSubscriptionStatements as statements,
  type WebhookChanges,
} from './webhook-subscription-statements.js';

/** A subscription as the API shows it; its secret is never read back for an answer. */
export interface WebhookSubscription {
  id: number;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: Date;
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: DisabledReason | null;
}

/** Why a subscription was disabled: by its owner, its receiver answered 410, or kept failing. */
export const DISABLED_REASONS = ['requested', 'gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

export interface WebhookDeliveryView {
  id: string;
  eventId: string;
  type: WebhookEventType;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastResponseStatus: number | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
}

/** One attempt as getWebhookDelivery shows it. */
export interface AttemptLogEntry {
  at: string;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
}

/** A delivery with its event as sent and its last attempts. */
export interface WebhookDeliveryDetail extends WebhookDeliveryView {
  payload: string;
  attemptLog: AttemptLogEntry[];
}

/** What sending deliveries again found and did (see webhookSubscriptionStatements.sendAgain). */
export interface SentAgain {
  enabled: boolean;
  previousStatus: WebhookDeliveryView['status'] | null;
  requeued: number;
}

/** A rotation of a subscription's secret: its number, and when the previous secret stops. */
export interface SecretRotation {
  rotations: number;
  previousSecretExpiresAt: Date;
}

interface RotationRow {
  id: string | null;
  secret_rotations: number;
  previous_secret_expires_at: Date;
}

type SubscriptionRow = Omit<WebhookSubscription, 'id'> & { id: string };

function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    id: Number(row.id),
    url: row.url,
    events: row.events,
    description: row.description,
    createdAt: row.createdAt,
    enabled: row.enabled,
    disabledAt: row.disabledAt,
    disabledReason: row.disabledReason,
  };
}

/**
 * Subscriptions and their deliveries, always within one API key: runs the statements of
 * src/webhooks/webhook-subscription-statements.ts.
 */
@Injectable()
export class WebhookSubscriptionRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reads: ReadRouter,
  ) {}

  /**
   * Inserts the subscription unless the key already has `limit` (subscription null then). The
   * count and the insert run under a transaction-scoped lock on the key (two statements, so the
   * insert's snapshot sees a creation that committed while it waited). Attached writes
   * (src/database/attached-writes.ts) commit with the insert; their outputs are answered
   * by name.
   */
  async insertUnderLimit(
    apiKeyId: number,
    fields: { url: string; events: WebhookEventType[]; description: string | null },
    secret: WebhookSecret,
    limit: number,
    attachedWrites: readonly AttachedWrite[] = [],
  ): Promise<{ subscription: WebhookSubscription | null; outputs: Record<string, unknown> }> {
    const statement = statements.insertUnderLimit(
      apiKeyId,
      fields,
      secret.toStorage(),
      limit,
      attachedWrites,
    );
    return this.dataSource.transaction(async (manager) => {
      await runStatement(manager, statements.lockCreationsForKey(apiKeyId));
      // With attachedWrites, main's columns are null when it inserted nothing (the limit).
      const rows = await runStatement<SubscriptionRow & Record<string, unknown>>(
        manager,
        statement,
      );
      const row = rows[0];
      return {
        subscription: row && row.id !== null ? toSubscription(row) : null,
        outputs: Object.fromEntries(
          attachedWrites.map((write) => [write.name, row?.[write.name] ?? null]),
        ),
      };
    });
  }

  /**
   * The signing secret of the key's subscription `id`, or null when it has none (deleted):
   * read only to repeat a creation answer to the key that created it (an Idempotency-Key replay).
   */
  async secretForKey(apiKeyId: number, id: string): Promise<WebhookSecret | null> {
    const rows = await runStatement<{ secret: Buffer }>(
      this.dataSource,
      statements.secretForKey(apiKeyId, id),
    );
    return rows[0] ? new WebhookSecret(rows[0].secret) : null;
  }

  async findForKey(apiKeyId: number, id: string): Promise<WebhookSubscription | null> {
    const rows = await runStatement<SubscriptionRow>(
      this.reads,
      statements.findForKey(apiKeyId, id),
    );
    return rows[0] ? toSubscription(rows[0]) : null;
  }

  /** Keyset page of the key's subscriptions: `take` after id `after`, by id in `order`. */
  async listPageForKey(
    apiKeyId: number,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<WebhookSubscription[]> {
    const rows = await runStatement<SubscriptionRow>(
      this.reads,
      statements.listPageForKey(apiKeyId, order, after, take),
    );
    return rows.map(toSubscription);
  }

  /**
   * Deletes the subscription and its deliveries (no delivery is claimed after this commits);
   * false when the key has no such subscription.
   */
  async deleteForKey(apiKeyId: number, id: string): Promise<boolean> {
    const rows = await runStatement(this.dataSource, statements.deleteForKey(apiKeyId, id));
    return rows.length > 0;
  }

  /** Applies `changes` to the key's subscription `id`: null when the key has no such one. */
  async updateForKey(
    apiKeyId: number,
    id: string,
    changes: WebhookChanges,
  ): Promise<WebhookSubscription | null> {
    const rows = await runStatement<SubscriptionRow>(
      this.dataSource,
      statements.updateForKey(apiKeyId, id, changes),
    );
    return rows[0] ? toSubscription(rows[0]) : null;
  }

  /**
   * Makes `secret` the subscription's; the one it replaces signs too until the answered time
   * (null rotation when the key has no such subscription). Attached writes commit with it.
   */
  async rotateSecretForKey(
    apiKeyId: number,
    id: string,
    secret: WebhookSecret,
    previousExpiresInSeconds: number,
    attachedWrites: readonly AttachedWrite[] = [],
  ): Promise<{ rotation: SecretRotation | null; outputs: Record<string, unknown> }> {
    const rows = await runStatement<RotationRow & Record<string, unknown>>(
      this.dataSource,
      statements.rotateSecretForKey(
        apiKeyId,
        id,
        secret.toStorage(),
        previousExpiresInSeconds,
        attachedWrites,
      ),
    );
    const row = rows[0];
    return {
      rotation:
        row && row.id !== null
          ? {
              rotations: row.secret_rotations,
              previousSecretExpiresAt: row.previous_secret_expires_at,
            }
          : null,
      outputs: Object.fromEntries(
        attachedWrites.map((write) => [write.name, row?.[write.name] ?? null]),
      ),
    };
  }

  /** The secret rotation number `rotation` made, while it still signs; else null. */
  async secretOfRotation(
    apiKeyId: number,
    id: string,
    rotation: number,
  ): Promise<WebhookSecret | null> {
    const rows = await runStatement<{ secret: Buffer | null }>(
      this.dataSource,
      statements.secretOfRotation(apiKeyId, id, rotation),
    );
    const secret = rows[0]?.secret;
    return secret ? new WebhookSecret(secret) : null;
  }

  /** Disables the subscription and fails its pending deliveries; false when the key has none. */
  async stopForKey(apiKeyId: number, id: string): Promise<boolean> {
    const rows = await runStatement(this.dataSource, statements.stopForKey(apiKeyId, id));
    return rows.length > 0;
  }

  /** How many attempts for the subscription are under way (see attemptsUnderWay). */
  async attemptsUnderWay(subscriptionId: number | string, timeoutMs: number): Promise<number> {
    const rows = await runStatement<{ count: number }>(
      this.dataSource,
      statements.attemptsUnderWay(subscriptionId, timeoutMs),
    );
    return rows[0]?.count ?? 0;
  }

  async findDelivery(
    subscriptionId: number,
    eventId: string,
  ): Promise<WebhookDeliveryDetail | null> {
    const rows = await runStatement<WebhookDeliveryDetail>(
      this.dataSource,
      statements.findDelivery(subscriptionId, eventId),
    );
    return rows[0] ?? null;
  }

  /** Sends finished deliveries again (see webhookSubscriptionStatements.sendAgain). */
  async sendAgain(
    subscriptionId: number,
    eventId: string | null,
    since: string | null,
  ): Promise<SentAgain> {
    const rows = await runStatement<SentAgain>(
      this.dataSource,
      statements.sendAgain(subscriptionId, eventId, since),
    );
    return rows[0];
  }

  /** Keyset page of one subscription's deliveries, by delivery id in `order`. */
  async listDeliveriesPage(
    subscriptionId: number,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<WebhookDeliveryView[]> {
    return runStatement<WebhookDeliveryView>(
      this.reads,
      statements.listDeliveriesPage(subscriptionId, order, after, take),
    );
  }
}
