import { withAttachedWrites, type AttachedWrite } from '../database/attached-writes.js';
import type { Statement } from '../database/statement.js';
import type { WebhookEventType } from './webhook-events.js';
import { WEBHOOK_DELIVERY_JSON, WEBHOOK_JSON } from './webhook-json.js';

/** A lock per API key for creations, so the per-key limit holds under concurrent requests. */
const CREATE_LOCK_SPACE = 7254400;

/*
 * Every statement about subscriptions and the deliveries they show, built without Nest or
 * TypeORM: WebhookSubscriptionRepository runs them, and
 * src/webhooks/webhook-subscription-statements.sql keeps the SQL they make for review
 * (`npm run sql:snapshot`). Each answers a subscription with WEBHOOK_JSON's columns, a
 * delivery with WEBHOOK_DELIVERY_JSON's.
 */
export const webhookSubscriptionStatements = {
  /**
   * Takes the key's creation lock until the transaction ends: run before insertUnderLimit, in
   * its transaction.
   */
  lockCreationsForKey(apiKeyId: number): Statement {
    return { sql: 'SELECT pg_advisory_xact_lock($1, $2)', params: [CREATE_LOCK_SPACE, apiKeyId] };
  },

  /**
   * Inserts the subscription unless the key already has `limit`: then no row. Attached writes
   * (src/database/attached-writes.ts) commit with it; their outputs are answered by name.
   */
  insertUnderLimit(
    apiKeyId: number,
    fields: { url: string; events: WebhookEventType[]; description: string | null },
    secret: Buffer,
    limit: number,
    attachedWrites: readonly AttachedWrite[] = [],
  ): Statement {
    return withAttachedWrites(
      (gate) => ({
        sql: `INSERT INTO webhook_subscriptions (api_key_id, url, events, description, secret)
              SELECT $1, $2, $3, $4, $5
              WHERE (SELECT count(*) FROM webhook_subscriptions WHERE api_key_id = $1) < $6
                AND ${gate}
              RETURNING ${WEBHOOK_JSON.columns()}`,
        params: [apiKeyId, fields.url, fields.events, fields.description, secret, limit],
      }),
      attachedWrites,
    );
  },

  /** The signing secret of the key's subscription `id`: no row when the key has none. */
  secretForKey(apiKeyId: number, id: string): Statement {
    return {
      sql: 'SELECT secret FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2',
      params: [id, apiKeyId],
    };
  },

  findForKey(apiKeyId: number, id: string): Statement {
    return {
      sql: `SELECT ${WEBHOOK_JSON.columns()} FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2`,
      params: [id, apiKeyId],
    };
  },

  /** Keyset page of the key's subscriptions: `take` after id `after`, by id in `order`. */
  listPageForKey(
    apiKeyId: number,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Statement {
    return {
      sql: `SELECT ${WEBHOOK_JSON.columns()} FROM webhook_subscriptions
       WHERE api_key_id = $1 AND ($2::bigint IS NULL OR id ${order === 'asc' ? '>' : '<'} $2::bigint)
       ORDER BY id ${order} LIMIT $3`,
      params: [apiKeyId, after ?? null, take],
    };
  },

  /**
   * Deletes the subscription and its deliveries (no delivery is claimed after this commits);
   * answers its id, no row when the key has no such subscription.
   */
  deleteForKey(apiKeyId: number, id: string): Statement {
    return {
      // Wrapped in a SELECT: TypeORM answers a bare DELETE with [rows, count], not rows.
      sql: `WITH deleted AS (
         DELETE FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2 RETURNING id
       )
       SELECT id FROM deleted`,
      params: [id, apiKeyId],
    };
  },

  /** Keyset page of one subscription's deliveries, by delivery id in `order`. */
  listDeliveriesPage(
    subscriptionId: number,
    order: 'asc' | 'desc',
    after: string | undefined,
    take: number,
  ): Statement {
    return {
      sql: `SELECT ${WEBHOOK_DELIVERY_JSON.columns()}
       FROM webhook_deliveries
       WHERE subscription_id = $1 AND ($2::bigint IS NULL OR id ${order === 'asc' ? '>' : '<'} $2::bigint)
       ORDER BY id ${order} LIMIT $3`,
      params: [subscriptionId, after ?? null, take],
    };
  },
};
