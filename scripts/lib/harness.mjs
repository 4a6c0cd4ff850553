// Shared by scripts/test-lb.mjs, test-soak.mjs and test-hostile.mjs, which run built instances
// of the service (the snapshot scripts/lib/harness.sh makes in the scratch folder) on loopback:
// the log lines, the list of failures, the child processes and their clean-up on a signal or at
// the watchdog, the environment every instance shares, starting an instance and waiting until it
// is ready, the orders seeded with SQL, stopping nginx and the instances, the printed tables, the
// last lines of a log and the verdict.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, openSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
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

  return { t0, say, fail, failures, track, stopEverything, stopping: () => stopping };
}

/**
 * What every harness's instance runs with: its database, the bootstrap key, the demo data,
 * nginx on loopback as the trusted proxy, and Redis when there is one (under its own prefix).
 */
export function instanceEnv({ databaseUrl, key, redisUrl, redisPrefix }) {
  return {
    DATABASE_URL: databaseUrl,
    BOOTSTRAP_API_KEY: key,
    SEED_DEMO: 'true',
    TRUST_PROXY: 'loopback',
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    ...(redisPrefix ? { RATE_LIMIT_REDIS_PREFIX: redisPrefix } : {}),
  };
}

/**
 * Starts `instance` ({ name, port }) from work/app/dist/main.js, in production mode, with only
 * PATH and `env` in its environment (no .env from the checkout: its cwd is work/app), its output
 * in work/NAME.log. Sets instance.child and instance.exited ({ code, signal } once it exits).
 */
export function startInstance(
  run,
  { work, instance, env, nodeArgs = [], node = process.execPath },
) {
  const log = openSync(`${work}/${instance.name}.log`, 'a');
  const child = spawn(node, [...nodeArgs, `${work}/app/dist/main.js`], {
    cwd: `${work}/app`,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(instance.port), ...env },
    stdio: ['ignore', log, log],
  });
  run.track(child);
  instance.child = child;
  instance.exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      // Before the run's clean-up: stopped by the scenario, or died (printInstanceStates).
      if (!run.stopping()) instance.diedEarly = { code, signal };
      resolve({ code, signal });
    }),
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

/**
 * GET on a new connection (no keep-alive: no request can meet a connection the server is just
 * closing), resolving to { status, text }. A failure names the URL and the socket's error code,
 * where fetch() would only say "fetch failed".
 */
export function getText(url, timeoutMs) {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, timeout: timeoutMs }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', (error) =>
        reject(new Error(`GET ${url}: ${error.code ?? error.message}`)),
      );
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error) => reject(new Error(`GET ${url}: ${error.code ?? error.message}`)));
  });
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

/** The text of a log file, '' when there is none (yet). */
export const fileText = (file) => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/** Prints the last `count` lines of `file` under `title` (CI keeps no scratch folder). */
export function printTail(title, file, count = 15) {
  if (!existsSync(file)) return;
  const tail = fileText(file).trim().split('\n').slice(-count).join('\n');
  console.log(`\n-- ${title}\n${tail || '(none)'}`);
}

/**
 * `count` orders for the demo data's first pet, inserted by `db` (a pg client) in one statement:
 * a long listOrders without placing them one by one. Answers the pet's id.
 */
export async function seedOrders(db, count) {
  // The service makes DB_STATEMENT_TIMEOUT_MS the role's setting; seeding may take longer.
  await db.query('SET statement_timeout = 0');
  const petId = (await db.query('SELECT min(id)::int AS id FROM pets')).rows[0].id;
  await db.query(
    `INSERT INTO orders (pet_id, quantity, status)
     SELECT $1, 1 + g % 10, (ARRAY['pending', 'cancelled'])[1 + g % 2] FROM generate_series(1, $2) g`,
    [petId, count],
  );
  return petId;
}

/** nginx sent SIGQUIT, then each instance SIGTERM: each must exit 0 within 15 s. */
export async function stopCleanly(run, nginx, instances) {
  nginx.child.kill('SIGQUIT');
  await Promise.race([nginx.exited, sleep(10000)]);
  for (const instance of instances) {
    instance.child.kill('SIGTERM');
    const result = await Promise.race([instance.exited, sleep(15000).then(() => null)]);
    if (!result || result.code !== 0) {
      run.fail(
        `${instance.name} did not stop cleanly: ${result ? describeExit(result) : 'still running after 15 s'}`,
      );
    }
  }
}

/**
 * Runs `main`, stops every child (after `stopped`, the caller's own clean-up), and prints the
 * verdict: `title: passed`, or `title: FAILED` with the failures, then `explain()` (the logs
 * that say why; CI keeps no scratch folder), and exit code 1.
 */
export async function runToVerdict(
  run,
  title,
  main,
  { stopped = () => {}, explain = () => {} } = {},
) {
  try {
    await main();
  } catch (error) {
    run.fail(error instanceof Error ? error.message : String(error));
  } finally {
    stopped();
    await run.stopEverything();
  }
  if (run.failures.length > 0) {
    console.log(`\n${title}: FAILED (${run.failures.length})\n  ${run.failures.join('\n  ')}`);
    explain();
    process.exit(1);
  }
  console.log(`\n${title}: passed`);
}

/**
 * For a failed run (CI keeps no scratch folder): whether each instance still runs, and the last
 * error lines of its log.
 */
export function printInstanceStates(work, instances) {
  for (const instance of instances) {
    const state = instance.diedEarly
      ? `exited before the run's clean-up (${describeExit(instance.diedEarly)})`
      : 'ran until the end';
    console.log(`  ${instance.name}: ${state}`);
    const errors = fileText(`${work}/${instance.name}.log`)
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line) || line.startsWith('start-up failed'));
    for (const line of errors.slice(-3)) console.log(`  ${instance.name}: ${line.slice(0, 900)}`);
  }
}
