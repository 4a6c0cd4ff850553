import { execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './service-process.js';

/** The PgBouncer of scripts/test-pgbouncer.sh: its binary and the pgbouncer.ini it runs with. */
export interface PgBouncerOfRun {
  bin: string;
  ini: string;
}

/**
 * Set when the run goes through PgBouncer (scripts/test-pgbouncer.sh), else undefined. A run
 * through PgBouncer that does not say where its binary and settings are fails here rather than
 * quietly testing the direct connection instead.
 */
export function pgbouncerOfRun(): PgBouncerOfRun | undefined {
  if (!process.env.PETSTORE_TEST_PGBOUNCER_URL) return undefined;
  const bin = process.env.PETSTORE_TEST_PGBOUNCER_BIN;
  const ini = process.env.PETSTORE_TEST_PGBOUNCER_INI;
  if (!bin || !ini) {
    throw new Error(
      'PETSTORE_TEST_PGBOUNCER_URL is set without PETSTORE_TEST_PGBOUNCER_BIN and ' +
        '_INI: run the suite through PgBouncer with npm run test:pgbouncer',
    );
  }
  return { bin, ini };
}

export interface PgBouncer {
  /** `serverUrl` with PgBouncer's address instead of PostgreSQL's. */
  url: string;
  stop(): Promise<void>;
}

/** Settings that name this instance's own files and port; everything else is the run's. */
const OWN_SETTINGS = ['listen_addr', 'listen_port', 'unix_socket_dir', 'auth_file', 'logfile'];

/**
 * A PgBouncer of the caller's own in front of the PostgreSQL `serverUrl` points at, with the
 * settings of the run's pgbouncer.ini (pool mode, pool size and the rest), so a test may stop
 * that PostgreSQL under it. As root it runs as `postgres`, as the script's does (it refuses root).
 */
export async function startPgBouncer(of: PgBouncerOfRun, serverUrl: string): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const folder = await mkdtemp(join(tmpdir(), 'petstore-pgbouncer-'));
  await chmod(folder, 0o755);
  const port = await freePort();
  const own: Record<string, string> = {
    listen_addr: '127.0.0.1',
    listen_port: String(port),
    unix_socket_dir: folder,
    auth_file: join(folder, 'userlist.txt'),
    logfile: join(folder, 'pgbouncer.log'),
  };
  const lines: string[] = [];
  let section = '';
  for (const line of (await readFile(of.ini, 'utf8')).split('\n')) {
    const header = /^\s*\[(\w+)\]\s*$/.exec(line);
    if (header) {
      section = header[1];
      lines.push(line);
      if (section === 'databases') lines.push(`* = host=${server.hostname} port=${server.port}`);
      if (section === 'pgbouncer') {
        lines.push(...OWN_SETTINGS.map((name) => `${name} = ${own[name]}`));
      }
      continue;
    }
    const name = /^\s*([\w*]+)\s*=/.exec(line)?.[1];
    // The run's pidfile would make this one refuse to start; without one, none is written.
    if (section === 'databases' && name) continue;
    if (name && (OWN_SETTINGS.includes(name) || name === 'pidfile')) continue;
    lines.push(line);
  }
  const user = decodeURIComponent(server.username);
  await writeFile(join(folder, 'pgbouncer.ini'), lines.join('\n'));
  await writeFile(own.auth_file, `"${user}" "${decodeURIComponent(server.password)}"\n`);
  const root = userInfo().uid === 0;
  if (root) await promisify(execFile)('chown', ['-R', 'postgres', folder]);

  const child = spawn(
    of.bin,
    ['-q', ...(root ? ['-u', 'postgres'] : []), join(folder, 'pgbouncer.ini')],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // Should the test process end without afterAll, PgBouncer goes with it.
  const orphanGuard = (): void => void child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  const stderr: string[] = [];
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const log = (): Promise<string> =>
    readFile(own.logfile, 'utf8').then(
      (text) => text + stderr.join(''),
      () => stderr.join(''),
    );
  const stop = async (): Promise<void> => {
    process.off('exit', orphanGuard);
    if (child.exitCode === null && child.signalCode === null) {
      // SIGTERM: immediate shutdown (SIGINT would wait for its clients).
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killer);
    }
    await rm(folder, { recursive: true, force: true });
  };

  const url = new URL(serverUrl);
  url.port = String(port);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url.toString() });
    client.on('error', () => undefined);
    const ready = await client.connect().then(
      () => client.query('SELECT 1').then(() => true),
      () => false,
    );
    await client.end().catch(() => undefined);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      const text = await log();
      await stop();
      throw new Error(`PgBouncer (${of.bin}) did not come up:\n${text}`);
    }
    await new Promise((wait) => setTimeout(wait, 100));
  }
  return { url: url.toString(), stop };
}
