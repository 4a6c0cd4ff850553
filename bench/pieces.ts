/**
 * npm run bench:pieces — what each of the service's pieces costs a small GET (docs/performance.md,
 * The service's pieces). The built service in production settings (service.ts: Node 24, the
 * image's NODE_OPTIONS and tracing preload, the limiter on at 1 000 000/min, request logs at
 * info to a file, metrics on) runs in several processes (pieces-server.ts): whole, and once
 * without each piece, and once without all of them; beside them the bare Nest floor and the raw
 * baseline (bare-nest-server.ts, baseline-server.ts). Every process answers the three small GETs
 * of `npm run bench` in turn, a fixed number of requests each, several rounds; the report gives
 * per process and GET the median server CPU time per request (from /proc), req/s and p99, each
 * against bare Nest's, and each piece's cost: the whole service's CPU per request less the
 * process's without it.
 *
 * BENCH_REQUESTS (3000), BENCH_ROUNDS (5), BENCH_WARM_UP (10 000), BENCH_CONNECTIONS (50);
 * BENCH_PIECES=0 runs the service whole and without all its pieces only (the paired runs of the
 * CPU target: docs/performance.md, "The short order list"); BENCH_CPU_PROF=<folder>
 * also writes the whole service's V8 CPU profile there (`--cpu-prof`); BENCH_BEFORE_DIST=<a
 * dist/ folder> runs the same processes for that build too ("before"), in the same rounds.
 */
import { mkdir } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { loadGets, pairedMedian, type LoadResult } from './load.js';
import { PIECES } from './service-pieces.js';
import { runMain, type ServerProcess } from './processes.js';
import { median } from './service.js';
import { contenders as benchContenders, withSmallGets } from './contenders.js';
import { saveReport } from './report.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
// Requests per process and GET before the rounds: V8 keeps optimizing well past the first few
// thousand (with 1 500, a process's first round could cost a third more CPU than its last).
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 10_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

async function main(): Promise<void> {
  const app = resolve('.');
  const dist = join(app, 'dist');
  const profiles = process.env.BENCH_CPU_PROF?.trim();
  if (profiles) await mkdir(profiles, { recursive: true });
  await withSmallGets('pieces', dist, async ({ db, data, gets, options }) => {
    const servers: ServerProcess[] = [];
    try {
      const before = process.env.BENCH_BEFORE_DIST?.trim();
      const eachPiece = process.env.BENCH_PIECES !== '0';
      const contenders = benchContenders(
        {
          ...options,
          nodeArgs: (name) =>
            name === 'service' && profiles
              ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profiles)}`]
              : [],
        },
        { pieces: eachPiece },
      );
      for (const contender of contenders) {
        process.stderr.write(`starting ${contender.name} …\n`);
        servers.push(await contender.start());
      }

      const run = (server: ServerProcess, path: string, amount: number): Promise<LoadResult> =>
        loadGets(server, path, data.apiKey, CONNECTIONS, amount);

      const loadAtStart = loadavg()[0] ?? 0;
      for (const server of servers) {
        for (const get of gets) await run(server, get.path, WARM_UP);
      }
      // results[get][contender]: one LoadResult per round.
      const results: LoadResult[][][] = gets.map(() => servers.map(() => []));
      const loads: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        for (const [g, get] of gets.entries()) {
          process.stderr.write(`round ${round}/${ROUNDS}, ${get.title} …\n`);
          // Each round in another order, so no process always meets the same neighbour.
          const order = servers.map((_, i) => (i + round) % servers.length);
          for (const s of order) {
            const result = await run(servers[s], get.path, REQUESTS);
            loads.push(result.loadAverage);
            results[g]?.[s]?.push(result);
          }
        }
      }

      const of = (g: number, s: number, pick: (r: LoadResult) => number | null): number =>
        median((results[g]?.[s] ?? []).map(pick).filter((v): v is number => typeof v === 'number'));
      const cpu = (g: number, s: number) => of(g, s, (r) => r.serverCpuUsPerRequest);
      const otherThreads = (g: number, s: number) =>
        of(g, s, (r) => r.serverOtherThreadsCpuUsPerRequest);
      const rps = (g: number, s: number) => of(g, s, (r) => r.requestsPerSecond);
      const p99 = (g: number, s: number) => of(g, s, (r) => r.latencyP99Ms);
      const paired = (
        g: number,
        s: number,
        t: number,
        pick: (r: LoadResult) => number | null,
        combine: (mine: number, theirs: number) => number,
      ): number => pairedMedian(results[g]?.[s] ?? [], results[g]?.[t] ?? [], pick, combine);
      const ratio = (mine: number, theirs: number) => mine / theirs;
      const cpuOf = (r: LoadResult) => r.serverCpuUsPerRequest;
      const rpsOf = (r: LoadResult) => r.requestsPerSecond;
      const bareNest = 0;
      // The service whole, without each piece (unless BENCH_PIECES=0), without all of them.
      const serviceCount = (eachPiece ? PIECES.length : 0) + 2;
      const after = 2;
      const beforeAt = before ? after + serviceCount : undefined;
      const date = new Date().toISOString().slice(0, 10);
      const errors = results
        .flat(2)
        .reduce((sum, r) => sum + r.errors + r.timeouts + r.unexpectedStatus, 0);
      const lines = [
        `# What each piece of the service costs a small GET (${date})`,
        '',
        `Built service in production settings (Node 24, the image's NODE_OPTIONS and tracing preload, ` +
          `limiter on at 1 000 000/min, request logs at info to a file, metrics on), whole` +
          (eachPiece ? ', without each piece' : '') +
          ` and without all of them (bench/pieces-server.ts), beside bare Nest and the raw baseline` +
          (before ? `, and the same for the build in ${before} ("before")` : '') +
          `; PostgreSQL ${db.version} (${db.server}). ${WARM_UP} requests per process and GET to warm ` +
          `up, then ${ROUNDS} rounds of ${REQUESTS} requests per process and GET, ${CONNECTIONS} ` +
          `connections; medians. Load average ${loadAtStart.toFixed(2)} ` +
          `at the start, ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)} during ` +
          `the runs, on 2 cores. Errors or unexpected statuses: ${errors}.`,
        '',
        "A piece's cost: the whole service's server CPU per request less the process's without it " +
          '(µs; within ±50 or so it is noise). ÷ Nest and the cost: each round against bare Nest (the ' +
          'whole service) in the same round, then the median of the rounds; CPU µs/req, req/s and ' +
          'p99: medians of the rounds. "Of it, other threads": the CPU of the threads other than ' +
          "the main one (V8's collector and compiler helpers, libuv's pool), from /proc's schedstat.",
        '',
      ];
      const cell = (value: number, digits = 0): string =>
        Number.isFinite(value) ? value.toFixed(digits) : '—';
      for (const [g, get] of gets.entries()) {
        lines.push(
          `## ${get.title}`,
          '',
          '| process | CPU µs/req | of it, other threads | ÷ Nest | cost of the piece, µs | req/s | ÷ Nest | p99 ms |' +
            (before
              ? ' before: CPU µs/req | of it, other threads | ÷ Nest | cost, µs | req/s ÷ Nest |'
              : ''),
          '| --- | --: | --: | --: | --: | --: | --: | --: |' +
            (before ? ' --: | --: | --: | --: | --: |' : ''),
        );
        const row = (name: string, s: number, piece: boolean, b?: number): string => {
          const columns = (at: number, whole: number): string[] => [
            cell(cpu(g, at)),
            cell(otherThreads(g, at)),
            cell(paired(g, at, bareNest, cpuOf, ratio), 2),
            piece ? cell(paired(g, whole, at, cpuOf, (w, without) => w - without)) : '',
          ];
          const rpsRatio = (at: number) => cell(paired(g, at, bareNest, rpsOf, ratio), 2);
          const [c, other, r, cost] = columns(s, after);
          const now = `| ${name} | ${c} | ${other} | ${r} | ${cost} | ${cell(rps(g, s))} | ${rpsRatio(s)} | ${cell(p99(g, s))} |`;
          if (beforeAt === undefined || b === undefined) return now + (before ? ' | | | | |' : '');
          return `${now} ${columns(b, beforeAt).join(' | ')} | ${rpsRatio(b)} |`;
        };
        lines.push(row('bare Nest', bareNest, false), row('raw', 1, false));
        for (let i = 0; i < serviceCount; i++) {
          const name = (contenders[after + i]?.name ?? '').replace(/^service$/, 'service (whole)');
          lines.push(row(name, after + i, i > 0 && i < serviceCount - 1, beforeAt && beforeAt + i));
        }
        lines.push(
          '',
          'CPU µs/req of every round: ' +
            contenders
              .map(
                (contender, s) =>
                  `${contender.name} ${(results[g]?.[s] ?? []).map((r) => r.serverCpuUsPerRequest?.toFixed(0) ?? '—').join(', ')}`,
              )
              .join('; '),
          '',
        );
      }
      await saveReport(app, `pieces-${date}`, lines);
    } finally {
      // SIGTERM: --cpu-prof writes its profile on the way out; before the database goes.
      for (const server of servers) await server.stop();
    }
  });
}

runMain(main);
