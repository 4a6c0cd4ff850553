/**
 * Counting a server's instructions per request with valgrind's callgrind (bench:instructions,
 * and bench:tracing with BENCH_CALLGRIND=1). The process starts under callgrind with counting
 * off; counting is switched on around the requests to count, then the dump is read: the main
 * thread (the JavaScript, the event loop and what V8's collector does there) and all threads
 * (V8's compilers and the collector's helpers too). Needs Debian's valgrind package.
 */
import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Launcher } from './contenders.js';
import type { LoadResult } from './load.js';
import { requireProgram } from './processes.js';

export interface InstructionCount {
  main: number;
  all: number;
  /**
   * Of main, what V8's garbage collector ran there. Under valgrind it is not what production
   * pays: the process runs some 50 times slower and valgrind runs one thread at a time, so
   * objects whose life is counted in time (not in requests) outlive young collections and are
   * promoted, and this share moves by tens of thousands of instructions a request between two
   * processes of the same build (docs/performance.md, "The collector under valgrind").
   */
  mainCollector: number;
}

/** Fails with what to install when valgrind cannot be run. */
export function requireValgrind(bench: string): void {
  requireProgram(bench, 'valgrind', 'Debian: apt-get install valgrind');
}

/**
 * How a process runs under callgrind, its dumps in `dumps`: valgrind's arguments before Node's
 * own, a start that may take minutes, and a connect timeout for a process some 50 times slower
 * (what is counted is instructions, not time).
 */
export function callgrindLauncher(dumps: string, node: string): Required<Launcher> {
  return {
    program: 'valgrind',
    prefix: (name) => [
      '--tool=callgrind',
      // V8 writes the code it compiles into memory it maps.
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${join(dumps, name)}.%p`,
      node,
    ],
    startTimeoutMs: 600_000,
    env: { DB_CONNECT_TIMEOUT_MS: '30000' },
  };
}

/** V8's garbage collector, by the names of its C++ functions in Node's binary. */
const COLLECTOR =
  /v8::internal::(Scavenger|ScavengeVisitor|IterateAndScavenge|MarkCompact|MinorMarkSweep|Sweeper|ConcurrentMarking|MarkingVisitor|MarkingBarrier|GCTracer|Evacuat|Heap::(CollectGarbage|PerformGarbageCollection|Scavenge|MarkCompact|GarbageCollection))|heap::base::|<v8::internal::(IterateAndScavengePromotedObjectsVisitor|ScavengeVisitor)>/;

/**
 * The instructions callgrind counted in one dump file (callgrind_annotate's total), and those of
 * them in the garbage collector's functions.
 */
function instructionsIn(file: string): { total: number; collector: number } {
  const text = execFileSync('callgrind_annotate', ['--threshold=100', file], {
    maxBuffer: 1 << 28,
  }).toString();
  const count = (digits: string) => Number(digits.replace(/,/g, ''));
  // A thread that ran nothing while counting has no total.
  const total = count(/^([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/m.exec(text)?.[1] ?? '0');
  let collector = 0;
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (match && !match[2].startsWith('PROGRAM TOTALS') && COLLECTOR.test(match[2])) {
      collector += count(match[1]);
    }
  }
  return { total, collector };
}

function control(pid: number, command: string[]): void {
  execFileSync('callgrind_control', [...command, String(pid)], { stdio: 'ignore' });
}

/** Dump files already read, so that each dump is counted once. */
export class CallgrindDumps {
  private readonly read = new Set<string>();

  constructor(readonly folder: string) {}

  /**
   * Instructions per request over `load`, which sends `requests` requests; every one must be
   * answered as expected, or the count would be of something else.
   */
  async count(
    pid: number,
    requests: number,
    load: () => Promise<LoadResult>,
    what: string,
  ): Promise<InstructionCount> {
    control(pid, ['-i', 'on']);
    const result = await load();
    control(pid, ['-i', 'off']);
    if (
      result.requests !== requests ||
      result.unexpectedStatus + result.errors + result.timeouts > 0
    ) {
      throw new Error(`${what}: not every counted request was answered: ${JSON.stringify(result)}`);
    }
    control(pid, ['-d']);
    control(pid, ['-z']);
    // One file per thread of this dump; the main thread's ends in -01.
    const files = (await readdir(this.folder)).filter(
      (file) => file.includes(`.${pid}.`) && !this.read.has(file),
    );
    let main = 0;
    let all = 0;
    let mainCollector = 0;
    for (const file of files) {
      this.read.add(file);
      const { total, collector } = instructionsIn(join(this.folder, file));
      all += total;
      if (file.endsWith('-01')) {
        main += total;
        mainCollector += collector;
      }
    }
    return { main: main / requests, all: all / requests, mainCollector: mainCollector / requests };
  }
}
