import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Companion } from '../database/companion-statements.js';
import { ReadRouter } from '../database/read-router.js';
import { runStatement } from '../database/statement.js';
import type { WebhookEventType } from './webhook-events.js';
import { WebhookSecret } from './webhook-signature.js';
import { webhookSubscriptionStatements as statements } from './webhook-subscription-statements.js';

/** A subscription as the API shows it; its secret is never read back for an answer. */
export interface WebhookSubscription {
  id: number;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: Date;
}

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

type SubscriptionRow = Omit<WebhookSubscription, 'id'> & { id: string };

function toSubscription(row: SubscriptionRow): WebhookSubscription {
  return {
    id: Number(row.id),
    url: row.url,
    events: row.events,
    description: row.description,
    createdAt: row.createdAt,
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
   * insert's snapshot sees a creation that committed while it waited). Companions
   * (src/database/companion-statements.ts) commit with the insert; their outputs are answered
   * by name.
   */
  async insertUnderLimit(
    apiKeyId: number,
    fields: { url: string; events: WebhookEventType[]; description: string | null },
    secret: WebhookSecret,
    limit: number,
    companions: readonly Companion[] = [],
  ): Promise<{ subscription: WebhookSubscription | null; outputs: Record<string, unknown> }> {
    const statement = statements.insertUnderLimit(
      apiKeyId,
      fields,
      secret.toStorage(),
      limit,
      companions,
    );
    return this.dataSource.transaction(async (manager) => {
      await runStatement(manager, statements.lockCreationsForKey(apiKeyId));
      // With companions, main's columns are null when it inserted nothing (the limit).
      const rows = await runStatement<SubscriptionRow & Record<string, unknown>>(
        manager,
        statement,
      );
      const row = rows[0];
      return {
        subscription: row && row.id !== null ? toSubscription(row) : null,
        outputs: Object.fromEntries(
          companions.map((companion) => [companion.name, row?.[companion.name] ?? null]),
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
