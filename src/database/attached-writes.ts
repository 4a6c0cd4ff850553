import type { Statement } from './statement.js';

/**
 * A write that must commit with a main statement, and costs no round trip of its own: it runs
 * as a data-modifying CTE of the same statement, so PostgreSQL commits both or neither (every
 * data-modifying CTE runs to completion, in the statement's one transaction).
 *
 * - `sql`: a data-modifying statement. It reads the main statement's RETURNING rows as `main`
 *   (and its own guard as `<name>_guard`); its RETURNING rows are the CTE `<name>`.
 * - `ctes` (optional): CTE definitions (`name AS (…)`) the attached write's `sql` reads, placed
 *   just before it; they may read `main` too.
 * - `guard` (optional): a SELECT, typically `FOR UPDATE`, that must yield a row for the main
 *   statement to write at all: the main statement is gated on it (see withAttachedWrites).
 * - `output` (optional): an expression over the attached write's RETURNING rows, answered as the
 *   column named `name` (null when it returned none).
 * - `params`: the parameters of `ctes`, `guard` and `sql`, written `$1`..`$n` there and renumbered
 *   after the main statement's. `$` followed by digits must mean a parameter in that text.
 */
export interface AttachedWrite {
  name: string;
  ctes?: readonly string[];
  guard?: string;
  sql: string;
  output?: string;
  params: readonly unknown[];
}

/** SQL condition that holds when every guard yielded a row; `TRUE` without guards. */
export type Gate = string;

const NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * The main statement with its attachedWrites, as one statement:
 *
 * ```sql
 * WITH c_guard AS MATERIALIZED (…), main AS (<main, gated>), c AS (<attached write>)
 * SELECT main.*, (SELECT <output> FROM c) AS "c" FROM (SELECT) AS one LEFT JOIN main ON true
 * ```
 *
 * `main` builds the main statement from the gate, a condition to AND into its WHERE, and must
 * end in RETURNING. With attachedWrites the answer has at least one row (main's columns null when
 * it returned nothing), so the attachedWrites' outputs are read either way. Without attachedWrites
 * the main statement is returned as it is.
 */
export function withAttachedWrites(
  main: (gate: Gate) => Statement,
  attachedWrites: readonly AttachedWrite[],
): Statement {
  if (attachedWrites.length === 0) return main('TRUE');
  const guarded = attachedWrites.filter((write) => write.guard !== undefined);
  const gate =
    guarded.length === 0
      ? 'TRUE'
      : guarded.map((write) => `EXISTS (SELECT 1 FROM ${write.name}_guard)`).join(' AND ');
  const mainStatement = main(gate);
  const params: unknown[] = [...mainStatement.params];
  const guards: string[] = [];
  const ctes: string[] = [];
  const outputs: string[] = [];
  for (const write of attachedWrites) {
    if (!NAME.test(write.name) || write.name === 'main' || write.name === 'one') {
      throw new Error(`attached write name "${write.name}" is not a plain, free SQL name`);
    }
    const offset = params.length;
    const renumber = (sql: string) =>
      sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    params.push(...write.params);
    if (write.guard !== undefined) {
      // MATERIALIZED: read once, by the gate and by the attached write, with one row lock.
      guards.push(`${write.name}_guard AS MATERIALIZED (${renumber(write.guard)})`);
    }
    ctes.push(...(write.ctes ?? []).map(renumber));
    ctes.push(`${write.name} AS (${renumber(write.sql)})`);
    if (write.output !== undefined) {
      outputs.push(`(SELECT ${write.output} FROM ${write.name}) AS "${write.name}"`);
    }
  }
  const sql =
    `WITH ${[...guards, `main AS (${mainStatement.sql})`, ...ctes].join(',\n')}\n` +
    `SELECT ${['main.*', ...outputs].join(', ')} FROM (SELECT) AS one LEFT JOIN main ON true`;
  return { sql, params };
}
