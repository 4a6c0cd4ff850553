import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { processCpuMs } from './postgres-cpu.js';

/** A server under test, running in its own process. */
export interface ServerProcess {
  name: string;
  pid: number;
  baseUrl: string;
  /** The process's memory from /proc/<pid>/status, in kB: peak (VmHWM) and current (VmRSS). */
  memory(): { peakKb: number; rssKb: number } | null;
  /** CPU time the process has used so far (user + system, ms), from /proc/<pid>/stat. */
  cpuMs(): number | null;
  /**
   * CPU time its threads other than the main one have used so far (ms): V8's helpers (the
   * collector's parallel and concurrent work, the optimizing compiler) and libuv's pool.
   */
  otherThreadsCpuMs(): number | null;
  /** The last lines the process wrote, for error reports. */
  logTail(): string;
  exited(): boolean;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  port: number;
  readyPath: string;
  timeoutMs?: number;
  /** The Node binary (default: the harness's own). */
  node?: string;
  /** Node options before the script (`--import …`, `--cpu-prof`). */
  nodeArgs?: string[];
  /** Append the process's stdout (its logs) to this file instead of keeping its last lines. */
  stdoutFile?: string;
}

const LOG_LINES = 40;

/** Starts `node <script>` and waits until `readyPath` answers 200. */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  // Logs to a file, as production writes them (to a file or a pipe a collector drains), not
  // through this process.
  const logFd = options.stdoutFile === undefined ? undefined : openSync(options.stdoutFile, 'a');
  const child = spawn(
    options.node ?? process.execPath,
    [...(options.nodeArgs ?? []), options.script],
    {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', logFd ?? 'pipe', 'pipe'],
    },
  );
  if (logFd !== undefined) closeSync(logFd);
  const lines: string[] = [];
  const keep = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line.length > 400 ? `${line.slice(0, 400)}…` : line);
      if (lines.length > LOG_LINES) lines.shift();
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exitCode: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : 0);
      resolve();
    }),
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not start ${options.script}`);

  const server: ServerProcess = {
    name: options.name,
    pid,
    baseUrl: `http://127.0.0.1:${options.port}`,
    memory: () => readMemory(pid),
    cpuMs: () => readCpuMs(pid),
    otherThreadsCpuMs: () => otherThreadsCpuMs(pid),
    logTail: () => lines.join('\n'),
    exited: () => exitCode !== undefined,
    stop: () => stopChild(child, exit),
  };

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (server.exited()) {
      throw new Error(
        `${options.name} exited during start-up (code ${String(exitCode)}):\n${server.logTail()}`,
      );
    }
    if ((await probe(`${server.baseUrl}${options.readyPath}`)) === 200) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${options.name} was not ready within the time limit:\n${server.logTail()}`);
    }
    await sleep(150);
  }
}

async function stopChild(child: ChildProcess, exit: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exit;
  clearTimeout(timer);
}

function readMemory(pid: number): { peakKb: number; rssKb: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const peak = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return peak && rss ? { peakKb: Number(peak), rssKb: Number(rss) } : null;
  } catch {
    return null;
  }
}

function readCpuMs(pid: number): number | null {
  return processCpuMs(pid);
}

/**
 * From /proc/<pid>/task/<tid>/schedstat, whose first field is the time the thread has run, in
 * ns (stat's clock ticks are too coarse for a thread's share of one run). A thread that exits
 * takes its time with it; Node's are started once.
 */
function otherThreadsCpuMs(pid: number): number | null {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (tid === String(pid)) continue;
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // Ended between the listing and the read.
      }
    }
    return ns / 1e6;
  } catch {
    return null;
  }
}

function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { timeout: 2000, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no free port')),
      );
    });
  });
}

/** Runs `node <script>` to completion; rejects with its output when it fails. */
export function runNode(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${script} exited ${code}:\n${output}`)),
    );
  });
}

/** Fails with what to install when `program` (a bench's tool outside npm) cannot be run. */
export function requireProgram(bench: string, program: string, install: string): void {
  try {
    execFileSync(program, ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(`${bench} needs ${program} (${install})`);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs a bench command's main: a failure prints its stack and exits 1 (its finally blocks ran). */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
