// Shared by scripts/test-lb.mjs, test-soak.mjs and test-hostile.mjs, which run built instances
// of the service (the snapshot scripts/lib/harness.sh makes in the scratch folder) on loopback:
// the log lines, the list of failures, the child processes and their clean-up on a signal or at
// the watchdog, starting an instance and waiting until it is ready, the printed tables and the
// last lines of a log.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * One run in the scratch folder `work`: `say` (a line stamped with the seconds since the start),
 * `fail` (recorded in `failures` and said), `track` (a child process stopped at the end, its
 * pid written to work/pids for the shell wrapper's sweep), `stopEverything`. SIGINT, SIGTERM and
 * the watchdog after `watchdogMs` stop every child and exit 1.
 */
export function createRun({ work, watchdogMs }) {
  const t0 = Date.now();
  const say = (line) =>
    console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${line}`);
  const failures = [];
  const fail = (reason) => {
    failures.push(reason);
    say(`FAIL: ${reason}`);
  };

  const children = new Set();
  let stopping = false; // once set, nothing more is started
  const track = (child) => {
    if (stopping) {
      child.kill('SIGKILL');
      throw new Error('stopping');
    }
    children.add(child);
    appendFileSync(`${work}/pids`, `${child.pid}\n`);
    child.on('exit', () => children.delete(child));
  };
  const stopEverything = async () => {
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
    for (let i = 0; i < 50 && children.size > 0; i++) await sleep(100);
    for (const child of children) child.kill('SIGKILL');
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      say(`${signal}: stopping`);
      void stopEverything().then(() => process.exit(1));
    });
  }
  setTimeout(() => {
    say(`FAIL: the run took longer than ${watchdogMs / 1000}s`);
    void stopEverything().then(() => process.exit(1));
  }, watchdogMs).unref();

  return { t0, say, fail, failures, track, stopEverything };
}

/**
 * Starts `instance` ({ name, port }) from work/app/dist/main.js, in production mode, with only
 * PATH and `env` in its environment (no .env from the checkout: its cwd is work/app), its output
 * in work/NAME.log. Sets instance.child and instance.exited ({ code, signal } once it exits).
 */
export function startInstance(run, { work, instance, env, nodeArgs = [] }) {
  const log = openSync(`${work}/${instance.name}.log`, 'a');
  const child = spawn(process.execPath, [...nodeArgs, `${work}/app/dist/main.js`], {
    cwd: `${work}/app`,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(instance.port), ...env },
    stdio: ['ignore', log, log],
  });
  run.track(child);
  instance.child = child;
  instance.exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  run.say(`started ${instance.name} (pid ${child.pid}, port ${instance.port})`);
}

export const describeExit = ({ code, signal }) =>
  signal ? `killed by ${signal}` : `exit code ${code}`;

/** Resolves once instance's /health/ready answers 200; rejects if it exits or takes too long. */
export async function waitReady(run, instance, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  let exited = null;
  void instance.exited.then((result) => (exited = result));
  while (Date.now() < deadline) {
    if (exited)
      throw new Error(`${instance.name} exited during start-up (${describeExit(exited)})`);
    try {
      const response = await fetch(`http://127.0.0.1:${instance.port}/health/ready`, {
        signal: AbortSignal.timeout(2000),
      });
      await response.arrayBuffer();
      if (response.status === 200) {
        run.say(`${instance.name} is ready`);
        return;
      }
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${instance.name} was not ready within ${deadlineMs / 1000}s`);
}

/** Prints a Markdown table: `header` (cells) and `rows` (arrays of cells), columns padded. */
export function printTable(header, rows) {
  const widths = header.map((h, i) =>
    Math.max(String(h).length, ...rows.map((r) => String(r[i]).length)),
  );
  const line = (r) => `| ${r.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  console.log(line(header));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const r of rows) console.log(line(r));
}

/** Prints the last `count` lines of `file` under `title` (CI keeps no scratch folder). */
export function printTail(title, file, count = 15) {
  if (!existsSync(file)) return;
  const tail = readFileSync(file, 'utf8').trim().split('\n').slice(-count).join('\n');
  console.log(`\n-- ${title}\n${tail || '(none)'}`);
}
