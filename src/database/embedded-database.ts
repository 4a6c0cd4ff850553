import type { LoggerService } from '@nestjs/common';
import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { ensureDatabase, startEmbeddedPostgres } from './embedded-postgres.js';

const DATABASE_NAME = 'petstore';

/** The database a process talks to: DATABASE_URL, or the embedded development server. */
export interface OpenedDatabase {
  url: string;
  /** Set when the database is the embedded one. */
  embedded: {
    /** The loopback port of the embedded server. */
    port: number;
    /** Where the development API key is kept. */
    devKeyFile: string;
    /** Stops the server if this process started it (a running service's server is left alone). */
    stop(): Promise<void>;
  } | null;
}

export async function openDatabase(
  config: AppConfig,
  logger: LoggerService,
): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, embedded: null };
  }
  const server = await startEmbeddedPostgres({
    clusterDir: join(config.dataDir, 'postgres'),
    credentialsFile: join(config.dataDir, 'postgres-credentials.json'),
    portFile: join(config.dataDir, 'postgres-port'),
    port: config.embeddedPostgresPort,
    log: (message) => {
      logger.warn(message, 'EmbeddedPostgres');
    },
  });
  await ensureDatabase(server.adminUrl, DATABASE_NAME);
  return {
    url: server.urlFor(DATABASE_NAME),
    embedded: {
      port: server.port,
      devKeyFile: join(config.dataDir, 'dev-api-key'),
      stop: () => server.stop(),
    },
  };
}
