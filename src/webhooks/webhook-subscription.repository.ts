import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { withCompanions, type Companion } from '../database/companion-statements.js';
import { SQL_ISO_UTC } from './outbox.js';
import type { WebhookEventType } from './webhook-events.js';
import { WebhookSecret } from './webhook-signature.js';

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

const SUBSCRIPTION_COLUMNS = `id, url, events, description, created_at AS "createdAt"`;

/**
 * A subscription as the API shows it (WebhookDto, without the secret), rendered by PostgreSQL
 * from a row of SUBSCRIPTION_COLUMNS named `row`: the text an Idempotency-Key record keeps.
 * description is left out when absent (json_strip_nulls: no other field can be null).
 */
export const webhookJson = (row: string): string =>
  `json_strip_nulls(json_build_object(
    'id', ${row}.id, 'url', ${row}.url, 'events', ${row}.events, 'description', ${row}.description,
    'createdAt', to_char(${row}."createdAt" AT TIME ZONE 'UTC', ${SQL_ISO_UTC})))::text`;

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

/** A lock per API key for creations, so the per-key limit holds under concurrent requests. */
const CREATE_LOCK_SPACE = 7254400;

/** Subscriptions and their deliveries, always within one API key. */
@Injectable()
export class WebhookSubscriptionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
    const statement = withCompanions(
      (gate) => ({
        sql: `INSERT INTO webhook_subscriptions (api_key_id, url, events, description, secret)
              SELECT $1, $2, $3, $4, $5
              WHERE (SELECT count(*) FROM webhook_subscriptions WHERE api_key_id = $1) < $6
                AND ${gate}
              RETURNING ${SUBSCRIPTION_COLUMNS}`,
        params: [
          apiKeyId,
          fields.url,
          fields.events,
          fields.description,
          secret.toStorage(),
          limit,
        ],
      }),
      companions,
    );
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1, $2)', [CREATE_LOCK_SPACE, apiKeyId]);
      // With companions, main's columns are null when it inserted nothing (the limit).
      const rows: Array<SubscriptionRow & Record<string, unknown>> = await manager.query(
        statement.sql,
        [...statement.params],
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
    const rows: Array<{ secret: Buffer }> = await this.dataSource.query(
      'SELECT secret FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2',
      [id, apiKeyId],
    );
    return rows[0] ? new WebhookSecret(rows[0].secret) : null;
  }

  async findForKey(apiKeyId: number, id: string): Promise<WebhookSubscription | null> {
    const rows: SubscriptionRow[] = await this.dataSource.query(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2`,
      [id, apiKeyId],
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
    const comparison = order === 'asc' ? '>' : '<';
    const rows: SubscriptionRow[] = await this.dataSource.query(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions
       WHERE api_key_id = $1 AND ($2::bigint IS NULL OR id ${comparison} $2::bigint)
       ORDER BY id ${order} LIMIT $3`,
      [apiKeyId, after ?? null, take],
    );
    return rows.map(toSubscription);
  }

  /**
   * Deletes the subscription and its deliveries (no delivery is claimed after this commits);
   * false when the key has no such subscription.
   */
  async deleteForKey(apiKeyId: number, id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      // Wrapped in a SELECT: TypeORM answers a bare DELETE with [rows, count], not rows.
      `WITH deleted AS (
         DELETE FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2 RETURNING id
       )
       SELECT id FROM deleted`,
      [id, apiKeyId],
    );
    return rows.length > 0;
  }

  /** Keyset page of one subscription's deliveries, by delivery id in `order`. */
  async listDeliveriesPage(
    subscriptionId: number,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Promise<WebhookDeliveryView[]> {
    const comparison = order === 'asc' ? '>' : '<';
    return this.dataSource.query(
      `SELECT id, event_id AS "eventId", event_type AS type, status, attempts,
              last_response_status AS "lastResponseStatus", last_attempt_at AS "lastAttemptAt",
              next_attempt_at AS "nextAttemptAt"
       FROM webhook_deliveries
       WHERE subscription_id = $1 AND ($2::bigint IS NULL OR id ${comparison} $2::bigint)
       ORDER BY id ${order} LIMIT $3`,
      [subscriptionId, after ?? null, take],
    );
  }
}
