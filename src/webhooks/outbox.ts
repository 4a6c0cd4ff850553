import type { Companion } from '../database/companion-statements.js';
import { currentTraceparent } from '../tracing/trace-context.js';
import type { WebhookEventType } from './webhook-events.js';
import { webhookEventJson } from './webhook-json.js';

/** A resource's JSON in SQL (json) from a row of its columns named `row`: its *_JSON.sql. */
export type ResourceJsonSql = (row: string) => string;

/**
 * The transactional outbox, as SQL for a feature's own statement: append the result to its
 * `WITH` list, after a CTE named `changed` that returns the changed rows with the resource's
 * columns, which `data` renders (the resource as the API shows it). For each changed row it
 * makes one event and inserts one delivery per subscription to `type`. No changed row (a no-op
 * repeat, a refused change): no event. One statement, so no extra round trip, and the event
 * commits with the change or not at all.
 *
 * `webhook_event` is materialized once (never inlined into its reader), so every subscription
 * of one change gets the same event id, the `webhook-id` receivers deduplicate on.
 *
 * `traceparent`: the statement's parameter (`$2`) that carries outboxTraceparent(), kept with
 * each delivery so that its attempts join the trace of the change (docs/operating.md, Tracing).
 */
export function outboxCtes(
  type: WebhookEventType,
  data: ResourceJsonSql,
  traceparent: `$${number}`,
): string {
  return `webhook_event AS MATERIALIZED (${eventSql('changed', data)}), webhook_outbox AS (${deliveriesSql(type, traceparent)})`;
}

/** The value of outboxCtes' `traceparent` parameter: the active request's, null untraced. */
export function outboxTraceparent(): string | null {
  return currentTraceparent();
}

/**
 * The same outbox as a companion (src/database/companion-statements.ts) of a statement run
 * through withCompanions(): it reads the main statement's RETURNING rows, which must carry
 * the resource's columns.
 */
export function outboxCompanion(type: WebhookEventType, data: ResourceJsonSql): Companion {
  return {
    name: 'webhook_outbox',
    ctes: [`webhook_event AS MATERIALIZED (${eventSql('main', data)})`],
    sql: deliveriesSql(type, '$1'),
    params: [outboxTraceparent()],
  };
}

function eventSql(source: string, data: ResourceJsonSql): string {
  return `SELECT 'evt_' || replace(gen_random_uuid()::text, '-', '') AS id, now() AS created_at,
           ${data(source)} AS data
    FROM ${source}`;
}

function deliveriesSql(type: WebhookEventType, traceparent: string): string {
  // `type` comes from the closed list of event types, never from a request.
  return `INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, next_attempt_at, traceparent)
    SELECT s.id, e.id, '${type}', ${webhookEventJson(type, 'e')}, now(), ${traceparent}::text
    FROM webhook_event e JOIN webhook_subscriptions s ON '${type}' = ANY (s.events)`;
}
