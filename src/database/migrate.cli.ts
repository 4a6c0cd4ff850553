import { DataSource } from 'typeorm';
import { readConfigOrExit } from '../config/read-config.js';
import { openDatabase } from './embedded-database.js';
import { runMigrationsLocked } from './migrate.js';
import { typeOrmOptions } from './typeorm-options.js';

/**
 * `npm run migration:run`: applies pending migrations over DATABASE_DIRECT_URL (else
 * DATABASE_URL, else the embedded database): the lock is a session's, PgBouncer-safe only direct.
 */
async function main(): Promise<void> {
  const config = readConfigOrExit();
  const database = await openDatabase(config);
  const dataSource = new DataSource(
    await typeOrmOptions(config.databaseDirectUrl ?? database.url, config.db),
  );
  await dataSource.initialize();
  try {
    const applied = await runMigrationsLocked(dataSource);
    process.stdout.write(
      applied.length ? `Applied: ${applied.join(', ')}\n` : 'The schema is up to date.\n',
    );
  } finally {
    await dataSource.destroy();
    await database.embedded?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `migration failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  },
);
