-- src/auth/api-key-statements.ts: the SQL of each statement, for representative arguments ($n are
-- the parameters). Written by `npm run sql:snapshot`, not by hand:
-- src/database/statement-snapshots.spec.ts fails when it no longer matches the builders.

-- recordLastUsed: the keys' last use, written once a minute
-- parameters: [1, 3], ["2026-11-25T10:00:00.000Z", "2026-11-25T10:00:05.000Z"]
UPDATE api_keys AS k SET last_used_at = u.at
FROM unnest($1::bigint[], $2::timestamptz[]) AS u (id, at)
WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at);
