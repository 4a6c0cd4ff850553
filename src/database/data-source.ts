import { DataSource } from 'typeorm';
import { loadConfig, loadDotEnv } from '../config/app-config.js';
import { typeOrmOptions } from './typeorm-options.js';

/**
 * The DataSource the TypeORM CLI uses (`npm run migration:*`). It needs DATABASE_URL, and uses
 * DATABASE_DIRECT_URL when set (migrations need a session, not PgBouncer's transaction pooling);
 * for the embedded database, use `npm run migration:run`, which starts it.
 */
loadDotEnv();
const config = loadConfig();
if (!config.databaseUrl) {
  throw new Error('DATABASE_URL is not set: the TypeORM CLI needs a PostgreSQL server to talk to.');
}

export default new DataSource(
  await typeOrmOptions(config.databaseDirectUrl ?? config.databaseUrl, config.db),
);
