/**
 * npm run bench:profile — where the service's CPU goes on a small GET beside bare Nest's, by
 * package (docs/performance.md, Where the rest goes, by CPU time). Bare Nest and the service (production
 * settings, bench/contenders.ts) each answer one GET alone, BENCH_WARM_UP (10 000) then
 * BENCH_REQUESTS (30 000) requests at 10 connections; a fresh pair of processes per GET. Each
 * sample goes to the package of the code it landed in (a dependency, a folder of src/, a part of
 * Node), divided by the requests answered. BENCH_GETS picks GETs by number (0 categories, 1 the
 * order list, 2 the pet read; default all). Three profilers (BENCH_PROFILER):
 *
 * - `perf` (the default; Debian's linux-perf): Linux's sampling of the whole process's CPU time
 *   (every thread, user and kernel) during the counted requests only, after the warm-up; Node
 *   names its compiled JavaScript for it (`--perf-basic-prof-only-functions`). Native code gets
 *   its share as it runs: V8's property lookups and builtins, its collector and runtime, Node's
 *   C++, libuv, the kernel's system calls, each a row. The rows add up to the CPU per request.
 * - `perf-callers`: the same with call graphs (`perf record -g`). Each sample goes to the
 *   innermost JavaScript function on its stack, native code to the JavaScript that called it,
 *   or to its thread where there is none (libuv's pool, V8's helpers): what a feature's code
 *   costs where it runs, in one process. Also by thread. Recording stacks slows the processes.
 * - `v8`: V8's own sampling profiler (`--cpu-prof`, a sample every 200 µs), main thread only,
 *   start-up included, and its time is wall time: a native call is charged from when it was
 *   entered to the next sample (it charged 16 µs per request to the log lines' write(), where
 *   `perf-callers` finds 4 on the main thread). Read only its differences between columns.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { contenders as benchContenders, withSmallGets } from './contenders.js';
import { loadGets } from './load.js';
import { requireProgram, runMain, sleep, type ServerProcess } from './processes.js';
import { saveReport } from './report.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 30_000);
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 10_000);
const CONNECTIONS = 10;
const PROFILED = ['bare Nest', 'service'];

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

/** One way of profiling a process while it answers the counted requests. */
interface Profiler {
  /** What the report says was measured. */
  description: string;
  /** Node's options for a process whose profile goes to `folder`. */
  nodeArgs(folder: string): string[];
  /**
   * Runs `counted` (`requests` requests) on the started `server`; microseconds per request:
   * over `requests`, or over every request the process answered where the profile also holds
   * its start-up and warm-up.
   */
  measure(
    server: ServerProcess,
    folder: string,
    counted: () => Promise<unknown>,
    requests: number,
  ): Promise<Profile>;
}

interface Profile {
  /** Every sample by package, or, where the profiler records stacks, by thread. */
  byPackage?: Map<string, number>;
  byThread?: Map<string, number>;
  /** Native code (V8, Node, libc, the kernel) by function, where the profiler names it. */
  byNativeFunction?: Map<string, number>;
  /** By JavaScript function, with the native code it called, where the profiler records stacks. */
  byJavaScriptFunction?: Map<string, number>;
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples: number[];
  timeDeltas: number[];
}

const v8Profiler: Profiler = {
  description:
    "V8's sampling profiler: sampled time of the main thread while not idle, start-up included " +
    '(read the differences, not the absolute figures)',
  nodeArgs: (folder) => ['--cpu-prof', `--cpu-prof-dir=${folder}`, '--cpu-prof-interval=200'],
  async measure(server, folder, counted, requests) {
    await counted();
    // The profile is written as the process exits.
    await server.stop();
    let text = '';
    for (const file of await readdir(folder)) {
      const content = await readFile(join(folder, file), 'utf8');
      if (content.length > text.length) text = content; // the main thread's
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
    // Every request the process answered: start-up and warm-up are in the samples too.
    return { byPackage: perRequest(times, WARM_UP + requests) };
  },
};

/** Where a sample of perf's belongs: `dso` is the binary or `[JIT] tid n`, `symbol` its name. */
function perfPackageOf(dso: string, symbol: string): string {
  if (dso.startsWith('[kernel')) return '(kernel)';
  if (dso.startsWith('[JIT]')) {
    // "JS:*name url:line:column" (the mark says how V8 compiled it), "RegExp:source", …
    if (symbol.startsWith('RegExp:')) return '(regular expressions)';
    const located = /^JS:\S?(.*) (\S+):\d+:\d+$/.exec(symbol);
    return located
      ? packageOf({ functionName: located[1] ?? '', url: located[2] ?? '' })
      : '(other generated code)';
  }
  if (dso === 'node') {
    if (symbol.startsWith('Builtins_')) {
      if (symbol.includes('Megamorphic')) return '(V8: megamorphic property access)';
      return /IC(_|Trampoline|$)/.test(symbol) ? '(V8: property access)' : '(V8: builtins)';
    }
    if (/^v8::internal::(Heap|Scavenger|MarkCompact|Sweeper|Marking|Concurrent|Minor)/.test(symbol))
      return '(V8: collector)';
    if (symbol.startsWith('v8::')) return '(V8: runtime)';
    if (symbol.startsWith('uv_') || symbol.startsWith('uv__')) return '(libuv)';
    if (symbol.startsWith('llhttp')) return '(llhttp)';
    return '(Node: C++)';
  }
  return `(${dso})`;
}

const execFileText = promisify(execFile);

/**
 * Runs `counted` while Linux's perf records `server` into `folder`/perf.data (cpu-clock, every
 * thread; `options` adds to perf record's); answers that file and the CPU time the process used
 * meanwhile (ms).
 */
async function recordPerf(
  server: ServerProcess,
  folder: string,
  counted: () => Promise<unknown>,
  options: string[] = [],
): Promise<{ data: string; cpuMs: number }> {
  const data = join(folder, 'perf.data');
  await mkdir(folder, { recursive: true });
  const recording = spawn(
    'perf',
    ['record', '--quiet', '-e', 'cpu-clock', '-F', '4000', ...options].concat([
      '-p',
      String(server.pid),
      '-o',
      data,
    ]),
    { stdio: 'ignore' },
  );
  const stopped = new Promise((done) => recording.once('exit', done));
  await sleep(500); // perf attaches to each thread
  const cpuBefore = server.cpuMs();
  await counted();
  const cpuMs = (server.cpuMs() ?? 0) - (cpuBefore ?? 0);
  recording.kill('SIGINT');
  await stopped;
  return { data, cpuMs };
}

/** Counts of samples as µs per request: each one's share of `cpuMs`, over `requests`. */
function perfTimes(
  counts: Map<string, number>,
  total: number,
  cpuMs: number,
  requests: number,
): Map<string, number> {
  return perRequest(
    new Map([...counts].map(([key, n]) => [key, (n / total) * cpuMs * 1000])),
    requests,
  );
}

function count(counts: Map<string, number>, key: string, samples = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + samples);
}

const perfProfiler: Profiler = {
  description:
    "Linux's perf (cpu-clock): CPU time of every thread of the process, user and kernel, during " +
    'the counted requests only',
  nodeArgs: () => ['--perf-basic-prof-only-functions'],
  async measure(server, folder, counted, requests) {
    const { data, cpuMs } = await recordPerf(server, folder, counted);
    const report = await execFileText(
      'perf',
      [
        'report',
        '-i',
        data,
        '--stdio',
        '--no-children',
        '--sort',
        'dso,sym',
        '-g',
        'none',
        '-n',
        '-t',
        ';',
      ],
      { maxBuffer: 256 * 1024 * 1024 },
    );
    const samples = new Map<string, number>();
    const nativeSamples = new Map<string, number>();
    let total = 0;
    for (const line of report.stdout.split('\n')) {
      // "  3.78%;  1034 ;[kernel.kallsyms] ;[k] _raw_spin_unlock_irqrestore"
      const row = /^\s*[\d.]+%\s*;\s*(\d+)\s*;(.*?)\s*;\[.\] (.*)$/.exec(line);
      if (row === null) continue;
      const rowSamples = Number(row[1]);
      const dso = (row[2] ?? '').trim();
      const symbol = (row[3] ?? '').trim();
      const where = perfPackageOf(dso, symbol);
      count(samples, where, rowSamples);
      if (!dso.startsWith('[JIT]')) {
        // Native rows are named "(what)" by perfPackageOf: "symbol (what)".
        count(nativeSamples, `${symbol.slice(0, 90)} (${where.slice(1, -1)})`, rowSamples);
      }
      total += rowSamples;
    }
    await rm(`/tmp/perf-${server.pid}.map`, { force: true });
    return {
      byPackage: perfTimes(samples, total, cpuMs, requests),
      byNativeFunction: perfTimes(nativeSamples, total, cpuMs, requests),
    };
  },
};

/** "JS:*'send /…/node_modules/express/lib/response.js:126:25" → "send (express/lib/response.js:126)". */
function javaScriptFunction(symbol: string): string {
  const located = /^JS:\S?'?(.*?) ?(\S+):(\d+):\d+$/.exec(symbol);
  if (located === null) return symbol;
  const [, name, url, line] = located;
  const file = url.replace(/^.*?\/(node_modules|dist|dist-bench)\//, (_, folder: string) =>
    folder === 'node_modules' ? '' : `${folder}/`,
  );
  return `${name || '(anonymous)'} (${file}:${line})`;
}

/**
 * perf with call graphs: each sample is charged to the innermost JavaScript function on its
 * stack, so the builtins, runtime and system calls a function causes count as its own; a
 * sample with no JavaScript on its stack goes to its thread (libuv's pool, V8's helpers, the
 * event loop). What a feature costs is then read in one process, where it runs, rather than as
 * the difference of two processes, or from a micro-benchmark where its code sees one shape of
 * object (docs/performance.md, "What the features cost where they run").
 */
const perfCallersProfiler: Profiler = {
  description:
    "Linux's perf (cpu-clock) with call graphs: CPU time of every thread, user and kernel, during " +
    'the counted requests only; each sample charged to the innermost JavaScript function on its ' +
    'stack (native code to the JavaScript that called it), or to its thread where there is none',
  nodeArgs: () => ['--perf-basic-prof-only-functions'],
  async measure(server, folder, counted, requests) {
    const { data, cpuMs } = await recordPerf(server, folder, counted, ['-g']);
    const script = spawn('perf', ['script', '-i', data, '-F', 'comm,ip,sym,dso'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const byFunction = new Map<string, number>();
    const byThread = new Map<string, number>();
    let total = 0;
    let thread: string | undefined;
    let charged = false;
    for await (const line of createInterface({ input: script.stdout })) {
      if (line.trim() === '') {
        if (thread !== undefined && !charged) count(byFunction, `(${thread}, no JavaScript)`);
        thread = undefined;
        continue;
      }
      if (thread === undefined) {
        // A sample's first line names its thread; its frames follow, innermost first.
        thread = line.trim();
        charged = false;
        total++;
        count(byThread, thread);
        continue;
      }
      if (charged) continue;
      // "\t    7f3a1c2b JS:*'send /…/response.js:126:25 (/tmp/perf-1234.map)"
      const frame = /^\s*[0-9a-f]+ (.*) \((.*)\)$/.exec(line);
      if (frame?.[2]?.startsWith('/tmp/perf-') && frame[1]?.startsWith('JS:')) {
        count(byFunction, javaScriptFunction(frame[1]));
        charged = true;
      }
    }
    if (thread !== undefined && !charged) count(byFunction, `(${thread}, no JavaScript)`);
    await rm(`/tmp/perf-${server.pid}.map`, { force: true });
    return {
      byThread: perfTimes(byThread, total, cpuMs, requests),
      byJavaScriptFunction: perfTimes(byFunction, total, cpuMs, requests),
    };
  },
};

/** A table of the `rows` keys where the service's µs per request differ most from bare Nest's. */
function differences(
  what: string,
  nest: Map<string, number>,
  service: Map<string, number>,
  rows: number,
): string[] {
  const cell = (us: number) => us.toFixed(1);
  return [
    `| ${what} | bare Nest, µs/req | service, µs/req | difference |`,
    '| --- | --: | --: | --: |',
    ...[...new Set([...nest.keys(), ...service.keys()])]
      .map((key) => ({ key, nest: nest.get(key) ?? 0, service: service.get(key) ?? 0 }))
      .sort((a, b) => b.service - b.nest - (a.service - a.nest))
      .slice(0, rows)
      .map(
        (row) =>
          `| ${row.key.replaceAll('|', '\\|')} | ${cell(row.nest)} | ${cell(row.service)} | ` +
          `${cell(row.service - row.nest)} |`,
      ),
    '',
  ];
}

function perRequest(times: Map<string, number>, requests: number): Map<string, number> {
  return new Map([...times].map(([where, us]) => [where, us / requests]));
}

const PROFILERS: Record<string, Profiler> = {
  perf: perfProfiler,
  'perf-callers': perfCallersProfiler,
  v8: v8Profiler,
};

async function main(): Promise<void> {
  const chosenProfiler = process.env.BENCH_PROFILER ?? 'perf';
  const profiler = PROFILERS[chosenProfiler];
  if (profiler === undefined)
    throw new Error(`BENCH_PROFILER is perf, perf-callers or v8, not ${chosenProfiler}`);
  if (profiler !== v8Profiler) {
    requireProgram(
      'bench:profile',
      'perf',
      'Debian: apt-get install linux-perf; or BENCH_PROFILER=v8',
    );
  }
  const app = resolve('.');
  const dist = join(app, 'dist');
  const scratch = await mkdtemp(join(tmpdir(), 'petstore-cpu-profiles-'));
  try {
    await withSmallGets('profile', dist, async ({ db, data, gets, options }) => {
      const chosen = process.env.BENCH_GETS?.split(',').map(Number) ?? gets.map((_, g) => g);
      const date = new Date().toISOString().slice(0, 10);
      const lines = [
        `# Where a small GET's CPU goes, by package (${date})`,
        '',
        `Bare Nest and the service (production settings; bench/contenders.ts), a fresh pair per ` +
          `GET: ${WARM_UP} requests, then ${REQUESTS}, at ${CONNECTIONS} connections; ` +
          `PostgreSQL ${db.version} (${db.server}). ${profiler.description}; µs per request ` +
          `answered (bench/profile.ts).`,
        '',
      ];
      for (const g of chosen) {
        const get = gets[g];
        const measured: Profile[] = [];
        const folder = (name: string) => join(scratch, `${g}-${name.replace(/\W+/g, '-')}`);
        // Bare Nest, then the service: contenders() lists them in that order.
        const profiled = benchContenders(
          { ...options, nodeArgs: (name) => profiler.nodeArgs(folder(name)) },
          { pieces: false },
        ).filter((contender) => PROFILED.includes(contender.name));
        for (const contender of profiled) {
          process.stderr.write(`${contender.name}, ${get.title} …\n`);
          const server = await contender.start();
          try {
            await loadGets(server, get.path, data.apiKey, CONNECTIONS, WARM_UP);
            measured.push(
              await profiler.measure(
                server,
                folder(contender.name),
                () => loadGets(server, get.path, data.apiKey, CONNECTIONS, REQUESTS),
                REQUESTS,
              ),
            );
          } finally {
            await server.stop();
          }
        }
        const total = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
        const [nest, service] = measured;
        const whole = (profile: Profile) =>
          total(profile.byPackage ?? profile.byThread ?? new Map<string, number>()).toFixed(0);
        lines.push(
          `## ${get.title}`,
          '',
          `Bare Nest ${whole(nest)} µs per request, the service ${whole(service)} µs.`,
          '',
        );
        const tables: [string, string, keyof Profile, number][] = [
          ['The 30 packages that differ most:', 'package', 'byPackage', 30],
          ['By thread:', 'thread', 'byThread', 10],
          [
            'The 40 JavaScript functions that differ most, each with the native code it called:',
            'function',
            'byJavaScriptFunction',
            40,
          ],
          [
            'Of the native code, the 20 functions that differ most:',
            'function',
            'byNativeFunction',
            20,
          ],
        ];
        for (const [title, what, key, rows] of tables) {
          const mine = service[key];
          const theirs = nest[key];
          if (mine && theirs) lines.push(title, '', ...differences(what, theirs, mine, rows));
        }
      }
      await saveReport(app, `profile-${date}`, lines);
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

runMain(main);
