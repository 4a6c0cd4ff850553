import { readFileSync } from 'node:fs';
import type pg from 'pg';

/** CPU time (ms) of each PostgreSQL backend serving the benchmark database, by process id. */
export type BackendCpu = Map<number, number>;

/**
 * PostgreSQL's CPU for what the servers ask: the user + system time of the backend processes
 * connected to the benchmark database (the harness's own connection left out), read from
 * /proc/<pid>/stat. Only one server is under load at a time, so the difference over a run is
 * that server's. Works when PostgreSQL runs on this machine (the embedded one, or a local
 * server readable in /proc); otherwise the snapshot is null and the report shows "—".
 * Backends that start during a run count from zero; one that exits mid-run is lost (the pools
 * keep their connections for the whole run).
 */
export async function snapshotBackendCpu(client: pg.Client): Promise<BackendCpu | null> {
  const { rows } = await client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  const cpu: BackendCpu = new Map();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms === null) return null;
    cpu.set(pid, ms);
  }
  return cpu;
}

/** The CPU the backends used between two snapshots (ms). */
export function backendCpuBetween(
  before: BackendCpu | null,
  after: BackendCpu | null,
): number | null {
  if (before === null || after === null) return null;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Linux reports CPU time in clock ticks; USER_HZ is 100 on every mainstream kernel build. */
const TICKS_PER_SECOND = 100;

export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, inside parentheses): state is
    // field 3, utime field 14, stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}
