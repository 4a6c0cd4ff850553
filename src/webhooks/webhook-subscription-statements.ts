import { withAttachedWrites, type AttachedWrite } from '../database/attached-writes.js';
import type { Statement } from '../database/statement.js';
import type { WebhookEventType } from './webhook-events.js';
import { timestamp } from '../database/resource-json.js';
import { WEBHOOK_DELIVERY_JSON, WEBHOOK_JSON } from './webhook-json.js';

/** How many attempts getWebhookDelivery shows: the last ones. */
export const ATTEMPT_LOG_LENGTH = 20;

/**
 * SQL that turns the pending deliveries of the subscriptions `ids` (an expression answering
 * subscription ids) `failed`: what disabling a subscription does to them. Their attempts under
 * way are recorded as they end, but no longer decide the delivery's status.
 */
export function failPendingSql(ids: string): string {
  return `UPDATE webhook_deliveries
     SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
     WHERE subscription_id IN (${ids}) AND status = 'pending'`;
}

/** A subscription's changes (updateWebhook): each field undefined when not sent. */
export interface WebhookChanges {
  url?: string;
  events?: WebhookEventType[];
  /** null removes it. */
  description?: string | null;
  enabled?: boolean;
}

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
      sql: `DELETE FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2 RETURNING id`,
      params: [id, apiKeyId],
    };
  },

  /**
   * Applies `changes` to the key's subscription `id` and answers it (no row when the key has
   * none). `enabled: false` disables an enabled subscription (`requested`) and fails its
   * pending deliveries; `enabled: true` clears the reason and restarts the failing clock. An
   * already disabled subscription keeps its reason and time, an enabled one its clock.
   */
  updateForKey(apiKeyId: number, id: string, changes: WebhookChanges): Statement {
    return {
      sql: `WITH updated AS (
         UPDATE webhook_subscriptions s
         SET url = coalesce($3::text, s.url),
             events = coalesce($4::text[], s.events),
             description = CASE WHEN $5::boolean THEN $6::text ELSE s.description END,
             enabled = coalesce($7::boolean, s.enabled),
             disabled_at = CASE WHEN $7::boolean IS NULL OR $7::boolean = s.enabled THEN s.disabled_at
               WHEN $7::boolean THEN NULL ELSE now() END,
             disabled_reason = CASE WHEN $7::boolean IS NULL OR $7::boolean = s.enabled THEN s.disabled_reason
               WHEN $7::boolean THEN NULL ELSE 'requested' END,
             failing_since = CASE WHEN $7::boolean AND NOT s.enabled THEN NULL ELSE s.failing_since END
         WHERE s.id = $1 AND s.api_key_id = $2
         RETURNING ${WEBHOOK_JSON.columns('s')}
       ), failed AS (
         ${failPendingSql('SELECT id FROM updated WHERE $7::boolean IS FALSE')}
       )
       SELECT * FROM updated`,
      params: [
        id,
        apiKeyId,
        changes.url ?? null,
        changes.events ?? null,
        changes.description !== undefined,
        changes.description ?? null,
        changes.enabled ?? null,
      ],
    };
  },

  /**
   * Makes `secret` the key's subscription `id`'s secret; the one it replaces signs too for
   * `previousExpiresInSeconds` more (any older one is dropped). Answers the rotation's number
   * (`secret_rotations`) and when the previous secret stops signing; no row when the key has
   * no such subscription. Attached writes (an Idempotency-Key record) commit with it.
   */
  rotateSecretForKey(
    apiKeyId: number,
    id: string,
    secret: Buffer,
    previousExpiresInSeconds: number,
    attachedWrites: readonly AttachedWrite[] = [],
  ): Statement {
    const rotate = (gate: string): Statement => ({
      sql: `UPDATE webhook_subscriptions
         SET previous_secret = secret, secret = $3, secret_rotations = secret_rotations + 1,
             previous_secret_expires_at = now() + make_interval(secs => $4::double precision)
         WHERE id = $1 AND api_key_id = $2 AND ${gate}
         RETURNING id, secret_rotations, previous_secret_expires_at`,
      params: [id, apiKeyId, secret, previousExpiresInSeconds],
    });
    return withAttachedWrites(rotate, attachedWrites);
  },

  /**
   * The secret that rotation number `rotation` made, while it still signs (the current one,
   * or the previous one during the overlap): no row, or a null secret, otherwise.
   */
  secretOfRotation(apiKeyId: number, id: string, rotation: number): Statement {
    return {
      sql: `SELECT CASE WHEN secret_rotations = $3 THEN secret
                   WHEN secret_rotations = $3 + 1 AND previous_secret_expires_at > now()
                     THEN previous_secret END AS secret
       FROM webhook_subscriptions WHERE id = $1 AND api_key_id = $2`,
      params: [id, apiKeyId, rotation],
    };
  },

  /**
   * Disables the key's subscription `id` and fails its pending deliveries, so that no attempt
   * is claimed for it any more: the first step of deleting it. Answers its id, no row when the
   * key has no such subscription.
   */
  stopForKey(apiKeyId: number, id: string): Statement {
    return {
      sql: `WITH stopped AS (
         UPDATE webhook_subscriptions
         SET enabled = false, disabled_at = coalesce(disabled_at, now()),
             disabled_reason = coalesce(disabled_reason, 'requested')
         WHERE id = $1 AND api_key_id = $2
         RETURNING id
       ), failed AS (
         ${failPendingSql('SELECT id FROM stopped')}
       )
       SELECT id FROM stopped`,
      params: [id, apiKeyId],
    };
  },

  /**
   * How many attempts for the subscription are under way: started less than `timeoutMs` ago
   * and not recorded yet (an older one was cut off by a crash, or has ended unrecorded).
   */
  attemptsUnderWay(subscriptionId: number | string, timeoutMs: number): Statement {
    return {
      sql: `SELECT count(*)::int AS count
       FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id
       WHERE d.subscription_id = $1 AND a.outcome IS NULL
         AND a.started_at > now() - make_interval(secs => $2::double precision / 1000)`,
      params: [subscriptionId, timeoutMs],
    };
  },

  /**
   * One delivery of the subscription, by event id, with its event as sent (`payload`) and its
   * last ATTEMPT_LOG_LENGTH attempts, oldest first (`attemptLog`, json).
   */
  findDelivery(subscriptionId: number, eventId: string): Statement {
    return {
      sql: `SELECT ${WEBHOOK_DELIVERY_JSON.columns('d')}, d.payload,
         (SELECT coalesce(json_agg(json_build_object(
                    'at', ${timestamp.sql('a.started_at')},
                    'responseStatus', a.response_status,
                    'durationMs', a.duration_ms,
                    'error', CASE WHEN a.outcome = 'interrupted' THEN 'interrupted' ELSE a.error END)
                  ORDER BY a.attempt), '[]'::json)
          FROM (SELECT * FROM webhook_attempts
                WHERE delivery_id = d.id ORDER BY attempt DESC LIMIT ${ATTEMPT_LOG_LENGTH}) a
         ) AS "attemptLog"
       FROM webhook_deliveries d
       WHERE d.subscription_id = $1 AND d.event_id = $2`,
      params: [subscriptionId, eventId],
    };
  },

  /**
   * Sends the subscription's finished deliveries again, from now, on the retry schedule from
   * its start (earlier_attempts): the one of `eventId`, or (`eventId` null) every failed one
   * whose event was created at or after `since`. Nothing while the subscription is disabled.
   * Answers one row: whether the subscription is `enabled`, the event's delivery's status
   * before (`previousStatus`, null when it has none), and how many deliveries were `requeued`.
   */
  sendAgain(subscriptionId: number, eventId: string | null, since: string | null): Statement {
    return {
      sql: `WITH subscription AS (
         SELECT enabled FROM webhook_subscriptions WHERE id = $1 FOR SHARE
       ), target AS (
         SELECT d.id, d.status FROM webhook_deliveries d
         WHERE d.subscription_id = $1
           AND CASE WHEN $2::text IS NULL THEN d.status = 'failed' AND d.created_at >= $3::timestamptz
               ELSE d.event_id = $2::text END
       ), requeued AS (
         UPDATE webhook_deliveries d
         SET status = 'pending', next_attempt_at = now(), claimed_until = NULL,
             earlier_attempts = d.attempts
         FROM target t
         WHERE d.id = t.id AND d.status <> 'pending' AND (SELECT enabled FROM subscription)
         RETURNING d.id
       )
       SELECT (SELECT enabled FROM subscription) AS enabled,
              (SELECT status FROM target LIMIT 1) AS "previousStatus",
              (SELECT count(*)::int FROM requeued) AS requeued`,
      params: [subscriptionId, eventId, since],
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
