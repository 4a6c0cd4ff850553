import type pg from 'pg';
import { runLoad, type LoadOptions, type LoadResult } from './load.js';
import { sleep } from './processes.js';

/**
 * Statements PostgreSQL executed for the benchmark database, from pg_stat_statements (see
 * BenchDatabaseOptions.statementStats): calls by statement, before and after a run. Every
 * statement the service sends is its own message, so statements are round trips; the one
 * exception, the multi-statement message of a long v1 list, is not in these runs.
 */
export type StatementSnapshot = Map<string, { query: string; calls: number }>;

/**
 * Work the service does beside the requests, told apart by its SQL: the webhook dispatcher
 * (claims, attempts, the backlog metric, the purge), the idempotency purge, and the API keys'
 * last-use flush. Anything else counts against the requests: an unknown statement is not
 * excused.
 */
const BACKGROUND = [
  /FOR UPDATE SKIP LOCKED/,
  /UPDATE webhook_attempts/,
  /FROM webhook_deliveries WHERE status = 'pending'/,
  /DELETE FROM webhook_deliveries/,
  /SET last_used_at/,
];

export function isBackground(query: string): boolean {
  return BACKGROUND.some((pattern) => pattern.test(query));
}

/** Put inside a statement the harness sends while it counts, to leave it out of the counts. */
export const HARNESS_STATEMENT = '/* bench harness */';

/**
 * Null when pg_stat_statements is not loaded on the server. The harness's own reads (this one,
 * postgres-cpu.ts's of pg_stat_activity, which the service never sends, and those marked
 * HARNESS_STATEMENT) are left out.
 */
export async function snapshotStatements(client: pg.Client): Promise<StatementSnapshot | null> {
  try {
    const { rows } = await client.query<{ queryid: string; query: string; calls: string }>(
      `SELECT queryid::text, query, calls FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_stat_activity%'
         AND query NOT LIKE '%${HARNESS_STATEMENT}%'`,
    );
    return new Map(
      rows.map((row) => [row.queryid, { query: row.query, calls: Number(row.calls) }]),
    );
  } catch {
    return null;
  }
}

/** What a run's requests cost in statements (round trips), per answered request. */
export interface StatementCost {
  /** Statements on the requests' path, per request. */
  perRequest: number;
  /** The service's background statements over the run, per request. */
  backgroundPerRequest: number;
  /** Each statement executed during the run: calls per request, most called first. */
  statements: Array<{ query: string; perRequest: number; background: boolean }>;
}

export function statementsBetween(
  before: StatementSnapshot | null,
  after: StatementSnapshot | null,
  requests: number,
): StatementCost | null {
  if (before === null || after === null || requests === 0) return null;
  const statements: StatementCost['statements'] = [];
  for (const [id, { query, calls }] of after) {
    const delta = calls - (before.get(id)?.calls ?? 0);
    if (delta > 0) {
      statements.push({ query, perRequest: delta / requests, background: isBackground(query) });
    }
  }
  statements.sort((a, b) => b.perRequest - a.perRequest);
  const sum = (background: boolean) =>
    statements.filter((s) => s.background === background).reduce((t, s) => t + s.perRequest, 0);
  return { perRequest: sum(false), backgroundPerRequest: sum(true), statements };
}

/** Each statement of a run with its calls per request, for a report (one line). */
export function describeStatements(cost: StatementCost | null | undefined): string {
  const shown = (cost?.statements ?? []).filter((s) => s.perRequest >= 0.001);
  return (
    shown
      .map(
        (s) =>
          `${s.perRequest.toFixed(3)} × \`${shortQuery(s.query)}\`${s.background ? ' (background)' : ''}`,
      )
      .join('; ') || '—'
  );
}

/** A statement shortened to one line, for a report. */
export function shortQuery(query: string, length = 90): string {
  const line = query.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}

/** A load run and the statements it cost, per request sent. */
export interface Measured {
  load: LoadResult;
  statements: StatementCost | null;
}

/** runLoad, with pg_stat_statements read before and after (on `client`, the harness's). */
export async function measureLoad(client: pg.Client, options: LoadOptions): Promise<Measured> {
  const before = await snapshotStatements(client);
  const load = await runLoad(options);
  // The requests still in flight when the run stopped are executed all the same: let them
  // finish, and count per request sent rather than per answer.
  await sleep(500);
  const after = await snapshotStatements(client);
  return { load, statements: statementsBetween(before, after, load.sent) };
}
