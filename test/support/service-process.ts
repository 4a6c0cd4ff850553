import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { listeningSockets } from '../../src/lifecycle/listening-sockets.js';
import { appDatabaseUrls } from './test-database.js';

/**
 * The built service (`npm test` builds it first), run as operators run it (npm run start:prod,
 * the Dockerfile): `node --import ./dist/tracing/register.js dist/main.js`.
 */
const MAIN = resolve('dist', 'main.js');
export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything printed so far, line by line. */
  stdout: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolvePort(address.port)
          : reject(new Error('no free port')),
      );
    });
  });
}

/**
 * Starts the service in its own process with only the given environment (plus PATH), and
 * waits until /health/live answers (within `liveWithinMs`, default 20 s) unless
 * `waitUntilLive` is false. `main`: another copy of dist/main.js to run (default the build's).
 *
 * A free port is only free until someone else takes it: another test's server may bind it
 * between freePort() and the child's listen, and then answer /health/live in the child's
 * place. So "live" means that the child itself listens on the port, and a child that lost
 * its port to someone else starts again on another (unless the caller chose the port).
 */
export async function startService(
  env: Record<string, string>,
  options: { waitUntilLive?: boolean; liveWithinMs?: number; main?: string } = {},
): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(env, options);
    } catch (error) {
      if (!(error instanceof PortTaken) || env.PORT || attempt === 3) throw error;
    }
  }
}

class PortTaken extends Error {}

async function startOnce(
  env: Record<string, string>,
  options: { waitUntilLive?: boolean; liveWithinMs?: number; main?: string },
): Promise<ServiceProcess> {
  const main = options.main ?? MAIN;
  if (!existsSync(main)) throw new Error(`${main} is missing: run npm run build (npm test does)`);
  const port = env.PORT ? Number(env.PORT) : await freePort();
  if (env.DATABASE_URL && !env.DATABASE_DIRECT_URL) {
    const urls = appDatabaseUrls(env.DATABASE_URL);
    env = {
      ...env,
      DATABASE_URL: urls.pooled,
      ...(urls.direct && { DATABASE_DIRECT_URL: urls.direct }),
    };
  }
  const preload = join(dirname(main), 'tracing', 'register.js');
  const child = spawn(process.execPath, ['--import', preload, main], {
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  collectLines(child.stdout, stdout);
  collectLines(child.stderr, stderr);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  const service: ServiceProcess = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    stdout,
    stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
  if (options.waitUntilLive !== false) {
    const deadline = Date.now() + (options.liveWithinMs ?? 20_000);
    for (;;) {
      if (child.exitCode !== null) {
        const printed = `${stderr.join('\n')} ${stdout.join('\n')}`;
        const message = `the service exited with ${child.exitCode}: ${printed}`;
        throw printed.includes(`port ${port} is already in use`)
          ? new PortTaken(message)
          : new Error(message);
      }
      const live =
        (await fetch(`${service.url}/health/live`).then(
          (res) => res.ok,
          () => false,
        )) && listensOn(child.pid, port);
      if (live) break;
      if (Date.now() > deadline) {
        await service.stop();
        throw new Error(`the service did not come up: ${stderr.join('\n')}`);
      }
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }
  return service;
}

/**
 * Whether process `pid` holds a socket listening on TCP `port` (Linux's /proc; elsewhere
 * the answer of /health/live has to do).
 */
function listensOn(pid: number | undefined, port: number): boolean {
  if (pid === undefined || !existsSync('/proc/self/net/tcp')) return true;
  const inodes = new Set(
    ['tcp', 'tcp6']
      .flatMap((table) => listeningSockets(`/proc/${pid}/net/${table}`) ?? [])
      .filter((socket) => socket.port === port)
      .map((socket) => socket.inode),
  );
  if (inodes.size === 0) return false;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        return inodes.has(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? '');
      } catch {
        return false; // closed since the listing
      }
    });
  } catch {
    return false; // the process is gone
  }
}

function collectLines(stream: NodeJS.ReadableStream, lines: string[]): void {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  stream.on('end', () => {
    if (partial) lines.push(partial);
  });
}
