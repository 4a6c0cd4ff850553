import { DataSource, MigrationExecutor } from 'typeorm';

/** Any fixed 64-bit number; all instances of the service agree on it. */
const MIGRATION_LOCK_KEY = '7254400911348117';

/**
 * Applies pending migrations while holding a PostgreSQL advisory lock, so several instances
 * starting together apply each migration once: the others wait, then find nothing to do.
 * Lock and migrations share one connection, so a pool of any size works.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    // Migrations may rebuild large tables: the request statement timeout does not apply.
    await runner.query('SET statement_timeout = 0');
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      const applied = await executor.executePendingMigrations();
      return applied.map((migration) => migration.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      await runner.query('RESET statement_timeout');
    }
  } finally {
    await runner.release();
  }
}
