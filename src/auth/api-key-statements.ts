import type { Statement } from '../database/statement.js';

/*
 * The statements about API keys written as SQL, built without Nest or TypeORM: ApiKeyRepository
 * runs them (its other statements are TypeORM's find and query builder), and
 * src/auth/api-key-statements.sql keeps the SQL they make for review (`npm run sql:snapshot`).
 */
export const apiKeyStatements = {
  /** Sets last_used_at of many keys in one statement; never moves a date backwards. */
  recordLastUsed(used: ReadonlyArray<[id: number, at: Date]>): Statement {
    return {
      sql: `UPDATE api_keys AS k SET last_used_at = u.at
       FROM unnest($1::bigint[], $2::timestamptz[]) AS u (id, at)
       WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
      params: [used.map(([id]) => id), used.map(([, at]) => at)],
    };
  },
};
