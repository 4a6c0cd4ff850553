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

export interface InstructionCount {
  main: number;
  all: number;
}

export function requireValgrind(bench: string): void {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(`${bench} needs valgrind (Debian: apt-get install valgrind)`);
  }
}

/** valgrind's arguments before Node's own, for a process named `name`. */
export function callgrindPrefix(dumps: string, name: string, node: string): string[] {
  return [
    '--tool=callgrind',
    // V8 writes the code it compiles into memory it maps.
    '--smc-check=all-non-file',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${join(dumps, name)}.%p`,
    node,
  ];
}

/** The instructions callgrind counted in one dump file (callgrind_annotate's total). */
function instructionsIn(file: string): number {
  const text = execFileSync('callgrind_annotate', [file], { maxBuffer: 1 << 28 }).toString();
  // A thread that ran nothing while counting has no total.
  const total = /^([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/m.exec(text)?.[1] ?? '0';
  return Number(total.replace(/,/g, ''));
}

function control(pid: number, command: string[]): void {
  execFileSync('callgrind_control', [...command, String(pid)], { stdio: 'ignore' });
}

/** Dump files already read, so that each dump is counted once. */
export class CallgrindDumps {
  private readonly read = new Set<string>();

  constructor(readonly folder: string) {}

  /** Instructions per request over what `work` does for `requests` requests, and its result. */
  async count<T>(
    pid: number,
    requests: number,
    work: () => Promise<T>,
  ): Promise<{ perRequest: InstructionCount; result: T }> {
    control(pid, ['-i', 'on']);
    const result = await work();
    control(pid, ['-i', 'off']);
    control(pid, ['-d']);
    control(pid, ['-z']);
    // One file per thread of this dump; the main thread's ends in -01.
    const files = (await readdir(this.folder)).filter(
      (file) => file.includes(`.${pid}.`) && !this.read.has(file),
    );
    let main = 0;
    let all = 0;
    for (const file of files) {
      this.read.add(file);
      const instructions = instructionsIn(join(this.folder, file));
      all += instructions;
      if (file.endsWith('-01')) main += instructions;
    }
    return { perRequest: { main: main / requests, all: all / requests }, result };
  }
}
