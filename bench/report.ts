import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ListFetch, LoadResult } from './load.js';

/**
 * The servers under 50 connections for a while (autocannon): the service and the raw baseline
 * always, the bare Nest floor on the GETs it serves.
 */
export interface LoadRow {
  kind: 'load';
  id: string;
  title: string;
  expectedStatus: number;
  /** GET rows have the throughput and CPU targets. */
  isGet: boolean;
  /** The Node runtime both servers ran on ('node22', 'node24', or 'machine'). */
  runtime: string;
  note?: string;
  service: LoadResult;
  /** The raw baseline (node:http). */
  baseline: LoadResult;
  bareNest?: LoadResult;
  warmup: { service: LoadResult; baseline: LoadResult; bareNest?: LoadResult };
}

/** The whole order list, fetched a few times in a row from a freshly started server. */
export interface ListRun {
  warmup: ListFetch;
  timed: ListFetch[];
  /** Median time to the last byte of the successful timed fetches. */
  medianMs: number | null;
  /** VmRSS just after start-up and VmHWM after the fetches (MB). */
  startRssMb: number | null;
  peakRssMb: number | null;
  /** CPU time the server process used per timed fetch (ms). */
  serverCpuMsPerFetch: number | null;
  /** CPU time PostgreSQL's backends used per timed fetch (ms). */
  postgresCpuMsPerFetch: number | null;
  /** The machine's 1-minute load average before the timed fetches. */
  loadAverage: number;
}

export interface ListRow {
  kind: 'list';
  id: string;
  title: string;
  orders: number;
  runtime: string;
  service: ListRun;
  baseline: ListRun;
  /** Whether the raw baseline's warm-up list was the service's, byte for byte (SHA-256). */
  sameBytes: boolean | null;
}

export type Row = LoadRow | ListRow;

export interface Check {
  name: string;
  /** null: could not be evaluated (a side failed). */
  met: boolean | null;
  detail: string;
}

export interface EvaluatedRow {
  row: Row;
  /** service / raw: throughput for load rows, time to the last byte for list rows. */
  ratio: number | null;
  /** bare Nest / raw and service / bare Nest throughput (load rows the floor ran). */
  nestRatio: number | null;
  serviceNestRatio: number | null;
  /** The same three ratios of the server's CPU per request (higher: costlier). */
  cpuRatios: { serviceRaw: number | null; nestRaw: number | null; serviceNest: number | null };
  p99Ratio: number | null;
  failures: { service: string[]; baseline: string[]; bareNest: string[] };
  checks: Check[];
}

export const TARGETS = {
  /** On Node 24, production's runtime; on any other: getThroughputRatioOtherNode. */
  getThroughputRatio: 0.6,
  getThroughputRatioOtherNode: 0.4,
  p99Ratio: 2,
  getCpuRatio: 2,
  bigListTimeRatio: 1.2,
  bigListPostgresCpuRatio: 1.5,
  bigListPeakRssMb: 200,
  bigListRssGrowthMb: 64,
};

function ratioOf(service: number | null, baseline: number | null): number | null {
  return service === null || baseline === null || baseline === 0 ? null : service / baseline;
}

function loadFailures(result: LoadResult, warmup: LoadResult): string[] {
  const problems: string[] = [];
  const add = (what: string, measured: number, warm: number): void => {
    if (measured + warm > 0) {
      problems.push(`${measured} ${what}${warm > 0 ? ` (+${warm} in warm-up)` : ''}`);
    }
  };
  add('errors', result.errors - result.timeouts, warmup.errors - warmup.timeouts);
  add('timeouts', result.timeouts, warmup.timeouts);
  add('unexpected statuses', result.unexpectedStatus, warmup.unexpectedStatus);
  if (result.unexpectedStatus + warmup.unexpectedStatus > 0) {
    problems.push(`statuses seen: ${JSON.stringify(result.statusCodes)}`);
  }
  return problems;
}

function listFailures(run: ListRun, orders: number): string[] {
  const problems: string[] = [];
  for (const [index, fetch] of [run.warmup, ...run.timed].entries()) {
    const which = index === 0 ? 'warm-up fetch' : `fetch ${index}`;
    if (fetch.error) problems.push(`${which}: ${fetch.error} after ${Math.round(fetch.ms)} ms`);
    else if (fetch.count !== orders) {
      problems.push(`${which}: ${fetch.count} orders instead of ${orders}`);
    }
  }
  return problems;
}

export function evaluate(rows: Row[]): EvaluatedRow[] {
  const list100k = (runtime: string): ListRow | undefined =>
    rows.find(
      (row): row is ListRow =>
        row.kind === 'list' && row.orders < 1_000_000 && row.runtime === runtime,
    );
  return rows.map((row) => {
    if (row.kind === 'load') {
      const ratio = ratioOf(row.service.requestsPerSecond, row.baseline.requestsPerSecond);
      const nest = row.bareNest ?? null;
      const cpu = (result: LoadResult | null): number | null =>
        result?.serverCpuUsPerRequest ?? null;
      const cpuRatios = {
        serviceRaw: ratioOf(cpu(row.service), cpu(row.baseline)),
        nestRaw: ratioOf(cpu(nest), cpu(row.baseline)),
        serviceNest: ratioOf(cpu(row.service), cpu(nest)),
      };
      const p99Ratio = ratioOf(row.service.latencyP99Ms, row.baseline.latencyP99Ms);
      const failures = {
        service: loadFailures(row.service, row.warmup.service),
        baseline: loadFailures(row.baseline, row.warmup.baseline),
        bareNest:
          row.bareNest && row.warmup.bareNest
            ? loadFailures(row.bareNest, row.warmup.bareNest)
            : [],
      };
      const checks: Check[] = [];
      if (row.isGet) {
        const target =
          row.runtime !== 'node24'
            ? TARGETS.getThroughputRatioOtherNode
            : TARGETS.getThroughputRatio;
        checks.push({
          name: `req/s ≥ ${target}×`,
          met: ratio === null ? null : ratio >= target,
          detail: `ratio ${fmtRatio(ratio)}`,
        });
      }
      if (row.runtime === 'node24') {
        checks.push({
          name: `p99 ≤ ${TARGETS.p99Ratio}×`,
          met: p99Ratio === null ? null : p99Ratio <= TARGETS.p99Ratio,
          detail: `${fmtMs(row.service.latencyP99Ms)} vs ${fmtMs(row.baseline.latencyP99Ms)} ms`,
        });
      }
      if (row.isGet && row.runtime === 'node24') {
        const cpuRatio = cpuRatios.serviceRaw;
        checks.push({
          name: `CPU ≤ ${TARGETS.getCpuRatio}×`,
          met: cpuRatio === null ? null : cpuRatio <= TARGETS.getCpuRatio,
          detail: `ratio ${fmtRatio(cpuRatio)}`,
        });
      }
      checks.push(noErrors(failures));
      return {
        row,
        ratio,
        nestRatio: ratioOf(nest?.requestsPerSecond ?? null, row.baseline.requestsPerSecond),
        serviceNestRatio: ratioOf(row.service.requestsPerSecond, nest?.requestsPerSecond ?? null),
        cpuRatios,
        p99Ratio,
        failures,
        checks,
      };
    }
    const ratio = ratioOf(row.service.medianMs, row.baseline.medianMs);
    const failures = {
      service: listFailures(row.service, row.orders),
      baseline: listFailures(row.baseline, row.orders),
      bareNest: [],
    };
    if (row.sameBytes === false)
      failures.baseline.push("its list is not the service's, byte for byte");
    const checks: Check[] = [];
    if (row.orders >= 1_000_000) {
      checks.push({
        name: `time ≤ ${TARGETS.bigListTimeRatio}×`,
        met:
          failures.service.length > 0
            ? false
            : ratio === null
              ? null
              : ratio <= TARGETS.bigListTimeRatio,
        detail: `ratio ${fmtRatio(ratio)}`,
      });
      const postgresRatio = ratioOf(
        row.service.postgresCpuMsPerFetch,
        row.baseline.postgresCpuMsPerFetch,
      );
      checks.push({
        name: `PostgreSQL CPU ≤ ${TARGETS.bigListPostgresCpuRatio}×`,
        met: postgresRatio === null ? null : postgresRatio <= TARGETS.bigListPostgresCpuRatio,
        detail: `ratio ${fmtRatio(postgresRatio)}`,
      });
      const peak = row.service.peakRssMb;
      checks.push({
        name: `RSS < ${TARGETS.bigListPeakRssMb} MB`,
        met: peak === null ? null : peak < TARGETS.bigListPeakRssMb,
        detail: `${fmt(peak)} MB`,
      });
      const before = list100k(row.runtime)?.service.peakRssMb ?? null;
      const growth = peak === null || before === null ? null : peak - before;
      checks.push({
        name: `ΔRSS ≤ ${TARGETS.bigListRssGrowthMb} MB`,
        met: growth === null ? null : growth <= TARGETS.bigListRssGrowthMb,
        detail: growth === null ? 'n/a' : `${growth >= 0 ? '+' : ''}${fmt(growth)} MB`,
      });
    }
    checks.push(noErrors(failures));
    const cpuRatios = {
      serviceRaw: ratioOf(row.service.serverCpuMsPerFetch, row.baseline.serverCpuMsPerFetch),
      nestRaw: null,
      serviceNest: null,
    };
    return {
      row,
      ratio,
      nestRatio: null,
      serviceNestRatio: null,
      cpuRatios,
      p99Ratio: null,
      failures,
      checks,
    };
  });
}

function noErrors(failures: EvaluatedRow['failures']): Check {
  const all = [...failures.service, ...failures.baseline, ...failures.bareNest];
  return { name: 'no errors', met: all.length === 0, detail: all.join('; ') || 'none' };
}

// ---------------------------------------------------------------------------------------------
// Formatting

export function fmt(value: number | null | undefined, digits?: number): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  const places = digits ?? (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toLocaleString('en', {
    minimumFractionDigits: places,
    maximumFractionDigits: places,
  });
}

/** Latencies: autocannon measures whole milliseconds; keep a decimal only when there is one. */
export function fmtMs(value: number | null): string {
  return value === null ? '—' : fmt(value, Number.isInteger(value) ? 0 : 1);
}

export function fmtRatio(value: number | null): string {
  return value === null ? '—' : value.toFixed(2);
}

const MARK = { true: '✓', false: '✗', null: '?' } as const;

function failureCell(result: LoadResult | ListRun, problems: string[]): string {
  if ('requests' in result) {
    return `${result.errors - result.timeouts}/${result.timeouts}/${result.unexpectedStatus}`;
  }
  const fetches = result.timed.length + 1;
  return problems.length === 0 ? 'ok' : `${problems.length}/${fetches} failed`;
}

export const HEADERS = [
  'Scenario',
  'Service',
  'Bare Nest',
  'Raw',
  'Svc÷Raw',
  'Nest÷Raw',
  'Svc÷Nest',
  'p50 ms svc / nest / raw',
  'p99 ms svc / nest / raw',
  'p99 svc÷raw',
  'Peak RSS MB svc / raw',
  'Server CPU/req svc / nest / raw',
  'CPU svc÷raw · nest÷raw · svc÷nest',
  'PostgreSQL CPU/req svc / nest / raw',
  'Err/TO/bad svc · nest · raw',
  'Targets',
];

export function tableCells(evaluated: EvaluatedRow[]): string[][] {
  return evaluated.map(
    ({ row, ratio, nestRatio, serviceNestRatio, cpuRatios, p99Ratio, failures, checks }) => {
      const targets = checks
        .map((check) => `${MARK[String(check.met) as 'true']} ${check.name}`)
        .join(', ');
      const cpuRatioCell = [cpuRatios.serviceRaw, cpuRatios.nestRaw, cpuRatios.serviceNest]
        .map(fmtRatio)
        .join(' · ');
      if (row.kind === 'load') {
        const nest = row.bareNest;
        const three = (value: (result: LoadResult) => string): string =>
          `${value(row.service)} / ${nest ? value(nest) : '—'} / ${value(row.baseline)}`;
        return [
          row.title,
          `${fmt(row.service.requestsPerSecond, 0)} req/s`,
          nest ? `${fmt(nest.requestsPerSecond, 0)} req/s` : '—',
          `${fmt(row.baseline.requestsPerSecond, 0)} req/s`,
          fmtRatio(ratio),
          fmtRatio(nestRatio),
          fmtRatio(serviceNestRatio),
          three((result) => fmtMs(result.latencyP50Ms)),
          three((result) => fmtMs(result.latencyP99Ms)),
          fmtRatio(p99Ratio),
          '—',
          `${three((result) => fmt(result.serverCpuUsPerRequest, 0))} µs`,
          cpuRatioCell,
          `${three((result) => fmt(result.postgresCpuUsPerRequest, 0))} µs`,
          [
            failureCell(row.service, failures.service),
            nest ? failureCell(nest, failures.bareNest) : '—',
            failureCell(row.baseline, failures.baseline),
          ].join(' · '),
          targets,
        ];
      }
      return [
        row.title,
        `${fmt(row.service.medianMs, 0)} ms`,
        '—',
        `${fmt(row.baseline.medianMs, 0)} ms`,
        fmtRatio(ratio),
        '—',
        '—',
        '—',
        '—',
        '—',
        `${fmt(row.service.peakRssMb, 0)} / ${fmt(row.baseline.peakRssMb, 0)}`,
        `${fmt(row.service.serverCpuMsPerFetch, 0)} / — / ${fmt(row.baseline.serverCpuMsPerFetch, 0)} ms`,
        cpuRatioCell,
        `${fmt(row.service.postgresCpuMsPerFetch, 0)} / — / ${fmt(row.baseline.postgresCpuMsPerFetch, 0)} ms`,
        `${failureCell(row.service, failures.service)} · — · ${failureCell(row.baseline, failures.baseline)}`,
        targets,
      ];
    },
  );
}

/** A plain-text table with aligned columns. */
export function textTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]): string =>
    cells
      .map((cell, column) =>
        column === 0 || column === cells.length - 1
          ? cell.padEnd(widths[column] ?? 0)
          : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export function markdownTable(headers: string[], rows: string[][]): string {
  const escape = (cell: string): string => cell.replace(/\|/g, '\\|');
  const align = headers.map((_, column) =>
    column === 0 || column === headers.length - 1 ? '---' : '---:',
  );
  return [headers, align, ...rows]
    .map((cells) => `| ${cells.map(escape).join(' | ')} |`)
    .join('\n');
}

/**
 * Writes a bench's report, `lines` as markdown, to bench/results/`name`.md under `root`, prints
 * it (or the part `printed` picks) and where it went; returns the file's path.
 */
export async function saveReport(
  root: string,
  name: string,
  lines: string[],
  printed: (markdown: string) => string = (markdown) => markdown,
): Promise<string> {
  const markdown = `${lines.join('\n')}\n`;
  const resultsDir = join(root, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  const file = join(resultsDir, `${name}.md`);
  await writeFile(file, markdown);
  process.stdout.write(`${printed(markdown)}\nwritten to ${file}\n`);
  return file;
}
