import type { Statement } from '../../database/statement.js';

/*
 * The statements about the service's own secrets, built without Nest or TypeORM:
 * ServiceSecretRepository runs them, and src/common/pagination/service-secret-statements.sql
 * keeps the SQL they make for review (`npm run sql:snapshot`).
 */
export const serviceSecretStatements = {
  /**
   * Inserts `secret` under `name` unless a secret has that name: answers the name's secret,
   * the one inserted or the one found; no row when another instance inserted it after this
   * statement's snapshot began.
   */
  insertOrRead(name: string, secret: Buffer): Statement {
    return {
      sql: `WITH created AS (
         INSERT INTO service_secrets (name, secret) VALUES ($1, $2)
         ON CONFLICT (name) DO NOTHING
         RETURNING secret
       )
       SELECT secret FROM created
       UNION ALL
       SELECT secret FROM service_secrets WHERE name = $1
       LIMIT 1`,
      params: [name, secret],
    };
  },
};
