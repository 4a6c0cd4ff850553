import { Logger, type LoggerService } from '@nestjs/common';
import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { ensureDatabase, startEmbeddedPostgres, urlOfRunningServer } from './embedded-postgres.js';

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

export async function openDatabase(config: AppConfig): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, embedded: null };
  }
  const logger: LoggerService = new Logger('EmbeddedPostgres');
  const files = embeddedFiles(config);
  const server = await startEmbeddedPostgres({
    ...files,
    port: config.embeddedPostgresPort,
    log: (message, level) => {
      if (level === 'warn') logger.warn(message);
      else logger.log(message);
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

/** Where the embedded server of PETSTORE_DATA_DIR keeps its cluster, password and port. */
function embeddedFiles(config: AppConfig): {
  clusterDir: string;
  credentialsFile: string;
  portFile: string;
} {
  return {
    clusterDir: join(config.dataDir, 'postgres'),
    credentialsFile: join(config.dataDir, 'postgres-credentials.json'),
    portFile: join(config.dataDir, 'postgres-port'),
  };
}

/**
 * The URL of the service's database (DATABASE_URL, else the embedded one while a service
 * runs it), or undefined when the embedded server is not running.
 */
export async function databaseUrlOf(config: AppConfig): Promise<string | undefined> {
  if (config.databaseUrl) return config.databaseUrl;
  const { clusterDir, credentialsFile } = embeddedFiles(config);
  return urlOfRunningServer(clusterDir, credentialsFile, DATABASE_NAME);
}
