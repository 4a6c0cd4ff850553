import type { LoggerService } from '@nestjs/common';
import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { ensureDatabase, startEmbeddedPostgres } from './embedded-postgres.js';

const DATABASE_NAME = 'petstore';

export interface EmbeddedDatabase {
  url: string;
  /** Where the development API key is kept. */
  devKeyFile: string;
  stop(): Promise<void>;
}

/** The development database under PETSTORE_DATA_DIR, started (or reused) on demand. */
export async function openEmbeddedDatabase(
  config: AppConfig,
  logger: LoggerService,
): Promise<EmbeddedDatabase> {
  const server = await startEmbeddedPostgres({
    clusterDir: join(config.dataDir, 'postgres'),
    credentialsFile: join(config.dataDir, 'postgres-credentials.json'),
    port: config.embeddedPostgresPort,
    log: (message) => {
      logger.warn(message, 'EmbeddedPostgres');
    },
  });
  await ensureDatabase(server.adminUrl, DATABASE_NAME);
  return {
    url: server.urlFor(DATABASE_NAME),
    devKeyFile: join(config.dataDir, 'dev-api-key'),
    stop: () => server.stop(),
  };
}
