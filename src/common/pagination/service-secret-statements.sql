-- src/common/pagination/service-secret-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- insertOrRead: the cursors' key
-- parameters: "cursor", <32 bytes>
WITH created AS (
  INSERT INTO service_secrets (name, secret) VALUES ($1, $2)
  ON CONFLICT (name) DO NOTHING
  RETURNING secret
)
SELECT secret FROM created
UNION ALL
SELECT secret FROM service_secrets WHERE name = $1
LIMIT 1;
