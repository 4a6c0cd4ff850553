/**
 * npm run bench:profile — where the service's CPU goes on a small GET beside bare Nest's, by
 * package (docs/performance.md, Where the rest goes). Bare Nest and the service (production
 * settings, bench/contenders.ts) each answer one GET alone, BENCH_WARM_UP (10 000) then
 * BENCH_REQUESTS (30 000) requests at 10 connections, under V8's sampling profiler
 * (`--cpu-prof`, a sample every 200 µs); a fresh pair of processes per GET. Each sample's
 * time goes to the package of the function it landed in (a dependency, a folder of src/, a
 * part of Node; native calls such as a socket write by name), divided by the requests answered.
 *
 * It is sampled wall time of the main thread while it is not idle: the profiler adds to it, a
 * native call the kernel made wait counts in full, and the process's start-up (module loading)
 * is in it too (its own rows, `node:modules`). Read the differences between the two columns,
 * not the absolute figures; BENCH_GETS picks GETs by number (0 categories, 1 the order list,
 * 2 the pet read; default all).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { contenders as benchContenders, withSmallGets } from './contenders.js';
import { loadGets } from './load.js';
import { runMain } from './processes.js';
import { saveReport } from './report.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30_000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 10_000);
const CONNECTIONS = 10;
const PROFILED = ['bare Nest', 'service'];

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples: number[];
  timeDeltas: number[];
}

/** Where a function belongs: its package, its folder of src/, its part of Node, or its name. */
function packageOf({ functionName, url }: { functionName: string; url: string }): string {
  if (url === '') return `(${functionName || 'anonymous'})`;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1];
  const source = /\/dist\/([^/]+)/.exec(url);
  if (source) return source[1].endsWith('.js') ? 'src' : `src/${source[1]}`;
  if (url.includes('/dist-bench/')) return 'bench';
  const node = /^node:(?:internal\/)?([^/]+)/.exec(url);
  return node ? `node:${node[1]}` : url;
}

/** Microseconds of samples per package, idle left out, in the largest (main thread) profile. */
async function timeByPackage(folder: string): Promise<Map<string, number>> {
  let text = '';
  for (const file of await readdir(folder)) {
    const content = await readFile(join(folder, file), 'utf8');
    if (content.length > text.length) text = content;
  }
  const profile = JSON.parse(text) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const times = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = nodes.get(id);
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    const where = packageOf(node.callFrame);
    times.set(where, (times.get(where) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return times;
}

async function main(): Promise<void> {
  const app = resolve('.');
  const dist = join(app, 'dist');
  const profiles = await mkdtemp(join(tmpdir(), 'petstore-cpu-profiles-'));
  try {
    await withSmallGets('profile', dist, async ({ db, data, gets, options }) => {
      const chosen = process.env.BENCH_GETS?.split(',').map(Number) ?? gets.map((_, g) => g);
      const date = new Date().toISOString().slice(0, 10);
      const lines = [
        `# Where a small GET's CPU goes, by package (${date})`,
        '',
        `Bare Nest and the service (production settings; bench/contenders.ts) under V8's sampling ` +
          `profiler, a fresh pair per GET: ${WARM_UP} requests, then ${REQUESTS}, at ` +
          `${CONNECTIONS} connections; PostgreSQL ${db.version} (${db.server}). Sampled time of ` +
          `the main thread while not idle, start-up included, per request answered (µs): read ` +
          `the differences, not the absolute figures (bench/profile.ts).`,
        '',
      ];
      for (const g of chosen) {
        const get = gets[g];
        const times: Array<Map<string, number>> = [];
        const folder = (name: string) => join(profiles, `${g}-${name.replace(/\W+/g, '-')}`);
        // Bare Nest, then the service: contenders() lists them in that order.
        const profiled = benchContenders(
          {
            ...options,
            nodeArgs: (name) => [
              '--cpu-prof',
              `--cpu-prof-dir=${folder(name)}`,
              '--cpu-prof-interval=200',
            ],
          },
          { pieces: false },
        ).filter((contender) => PROFILED.includes(contender.name));
        for (const contender of profiled) {
          process.stderr.write(`${contender.name}, ${get.title} …\n`);
          const server = await contender.start();
          try {
            await loadGets(server, get.path, data.apiKey, CONNECTIONS, WARM_UP);
            await loadGets(server, get.path, data.apiKey, CONNECTIONS, REQUESTS);
          } finally {
            await server.stop();
          }
          times.push(await timeByPackage(folder(contender.name)));
        }
        const perRequest = (us: number | undefined) => (us ?? 0) / (WARM_UP + REQUESTS);
        const total = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
        const [nest, service] = times;
        const rows = [...new Set([...nest.keys(), ...service.keys()])]
          .map((where) => ({
            where,
            nest: perRequest(nest.get(where)),
            service: perRequest(service.get(where)),
          }))
          .sort((a, b) => b.service - b.nest - (a.service - a.nest));
        lines.push(
          `## ${get.title}`,
          '',
          `Busy: bare Nest ${perRequest(total(nest)).toFixed(0)} µs per request, the service ` +
            `${perRequest(total(service)).toFixed(0)} µs. The 25 packages that differ most:`,
          '',
          '| package | bare Nest, µs/req | service, µs/req | difference |',
          '| --- | --: | --: | --: |',
          ...rows
            .slice(0, 25)
            .map(
              (row) =>
                `| ${row.where} | ${row.nest.toFixed(1)} | ${row.service.toFixed(1)} | ` +
                `${(row.service - row.nest).toFixed(1)} |`,
            ),
          '',
        );
      }
      await saveReport(app, `profile-${date}`, lines);
    });
  } finally {
    await rm(profiles, { recursive: true, force: true });
  }
}

runMain(main);
