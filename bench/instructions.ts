/**
 * npm run bench:instructions — what each process of bench:pieces executes per small GET,
 * counted in machine instructions by valgrind's callgrind (docs/performance.md, Instructions
 * per request). CPU time on a shared machine moves by ±30 % from round to round; an
 * instruction count does not depend on what else the machine runs, so a change of a few per
 * cent shows. It is not time: a cache miss or a system call costs more than its instructions,
 * and the process runs some 50 times slower, so batching (of log lines, of pg messages) can
 * differ. Read it beside bench:pieces, not instead.
 *
 * Each process runs under callgrind with its counting off; per GET it answers BENCH_WARM_UP
 * (4 000) requests, then counting is switched on for BENCH_REQUESTS (400) requests at 10
 * connections, and the main thread's instructions (the JavaScript, the event loop and what
 * V8's collector does there) are read from the dump; the other threads (V8's compilers, the
 * collector's helpers) are given too. BENCH_PIECES=1 adds the service without each piece;
 * BENCH_BEFORE_DIST=<a dist/ folder> adds that build, whole and without all pieces;
 * BENCH_CONTENDERS=<names, comma-separated> keeps only those, and bare Nest. Needs valgrind (Debian's valgrind package).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { contenders as benchContenders, withSmallGets } from './contenders.js';
import { loadGets } from './load.js';
import {
  CallgrindDumps,
  callgrindLauncher,
  requireValgrind,
  type InstructionCount,
} from './callgrind.js';
import { runMain, type ServerProcess } from './processes.js';
import { saveReport } from './report.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 4000);
const CONNECTIONS = 10;

async function main(): Promise<void> {
  requireValgrind('bench:instructions');
  const app = resolve('.');
  const dist = join(app, 'dist');
  const dumps = await mkdtemp(join(tmpdir(), 'petstore-callgrind-'));
  try {
    await withSmallGets('instructions', dist, async ({ db, data, gets, options }) => {
      // BENCH_CONTENDERS: only these (comma-separated names), and bare Nest, the reference.
      const only = process.env.BENCH_CONTENDERS?.split(',').map((name) => name.trim());
      const processes = benchContenders(
        {
          ...options,
          launcher: callgrindLauncher(dumps, options.node),
        },
        { pieces: process.env.BENCH_PIECES === '1' },
      ).filter(
        (contender) => !only || contender.name === 'bare Nest' || only.includes(contender.name),
      );
      // counts[get][process]: instructions per request, main thread and all threads.
      const counts = gets.map(() => [] as InstructionCount[]);
      const callgrind = new CallgrindDumps(dumps);
      for (const [p, contender] of processes.entries()) {
        process.stderr.write(`starting ${contender.name} under callgrind …\n`);
        const server: ServerProcess = await contender.start();
        try {
          for (const [g, get] of gets.entries()) {
            await loadGets(server, get.path, data.apiKey, CONNECTIONS, WARM_UP);
            const count = await callgrind.count(
              server.pid,
              REQUESTS,
              () => loadGets(server, get.path, data.apiKey, CONNECTIONS, REQUESTS),
              `${contender.name}, ${get.title}`,
            );
            counts[g][p] = count;
            process.stderr.write(
              `${contender.name}, ${get.title}: ${(count.main / 1000).toFixed(0)}k ` +
                `(${(count.mainCollector / 1000).toFixed(0)}k in the collector)\n`,
            );
          }
        } finally {
          await server.stop();
        }
      }

      const date = new Date().toISOString().slice(0, 10);
      const thousands = (value: number | undefined) =>
        value === undefined ? '—' : `${(value / 1000).toFixed(0)}k`;
      const lines = [
        `# Instructions per small GET (${date})`,
        '',
        `The processes of bench:pieces (production settings; bench/contenders.ts) under valgrind's ` +
          `callgrind; PostgreSQL ${db.version} (${db.server}). Per process and GET, ${WARM_UP} ` +
          `requests to warm up, then ${REQUESTS} counted, at ${CONNECTIONS} connections. Main ` +
          `thread: the JavaScript, the event loop, what the collector does there; less the ` +
          `collector: without V8's garbage collection functions, whose share under valgrind is not ` +
          `production's and moves between processes (docs/performance.md); all threads adds ` +
          `V8's compilers and the collector's helpers (these vary with what V8 chose to compile).`,
        '',
      ];
      const bareNest = 0;
      for (const [g, get] of gets.entries()) {
        lines.push(
          `## ${get.title}`,
          '',
          '| process | instructions per request, main thread | ÷ bare Nest | main thread less the collector | ÷ bare Nest | all threads |',
          '| --- | --: | --: | --: | --: | --: |',
        );
        for (const [p, contender] of processes.entries()) {
          const count = counts[g][p];
          const nest = counts[g][bareNest];
          const ratio = (of: (count: InstructionCount) => number) =>
            count && nest ? (of(count) / of(nest)).toFixed(2) : '—';
          const mutator = (count: InstructionCount) => count.main - count.mainCollector;
          lines.push(
            `| ${contender.name} | ${thousands(count?.main)} | ${ratio((c) => c.main)} | ` +
              `${thousands(count && mutator(count))} | ${ratio(mutator)} | ${thousands(count?.all)} |`,
          );
        }
        lines.push('');
      }
      await saveReport(app, `instructions-${date}`, lines);
    });
  } finally {
    await rm(dumps, { recursive: true, force: true });
  }
}

runMain(main);
