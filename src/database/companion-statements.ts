import type { Statement } from './statement.js';

/**
 * A write that must commit with a main statement, and costs no round trip of its own: it runs
 * as a data-modifying CTE of the same statement, so PostgreSQL commits both or neither (every
 * data-modifying CTE runs to completion, in the statement's one transaction).
 *
 * - `sql`: a data-modifying statement. It reads the main statement's RETURNING rows as `main`
 *   (and its own guard as `<name>_guard`); its RETURNING rows are the CTE `<name>`.
 * - `ctes` (optional): CTE definitions (`name AS (…)`) the companion's `sql` reads, placed
 *   just before it; they may read `main` too.
 * - `guard` (optional): a SELECT, typically `FOR UPDATE`, that must yield a row for the main
 *   statement to write at all: the main statement is gated on it (see withCompanions).
 * - `output` (optional): an expression over the companion's RETURNING rows, answered as the
 *   column named `name` (null when it returned none).
 * - `params`: the parameters of `ctes`, `guard` and `sql`, written `$1`..`$n` there and renumbered
 *   after the main statement's. `$` followed by digits must mean a parameter in that text.
 */
export interface Companion {
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
 * The main statement with its companions, as one statement:
 *
 * ```sql
 * WITH c_guard AS MATERIALIZED (…), main AS (<main, gated>), c AS (<companion>)
 * SELECT main.*, (SELECT <output> FROM c) AS "c" FROM (SELECT) AS one LEFT JOIN main ON true
 * ```
 *
 * `main` builds the main statement from the gate, a condition to AND into its WHERE, and must
 * end in RETURNING. With companions the answer has at least one row (main's columns null when
 * it returned nothing), so the companions' outputs are read either way. Without companions
 * the main statement is returned as it is.
 */
export function withCompanions(
  main: (gate: Gate) => Statement,
  companions: readonly Companion[],
): Statement {
  if (companions.length === 0) return main('TRUE');
  const guarded = companions.filter((companion) => companion.guard !== undefined);
  const gate =
    guarded.length === 0
      ? 'TRUE'
      : guarded.map((companion) => `EXISTS (SELECT 1 FROM ${companion.name}_guard)`).join(' AND ');
  const mainStatement = main(gate);
  const params: unknown[] = [...mainStatement.params];
  const guards: string[] = [];
  const ctes: string[] = [];
  const outputs: string[] = [];
  for (const companion of companions) {
    if (!NAME.test(companion.name) || companion.name === 'main' || companion.name === 'one') {
      throw new Error(`companion name "${companion.name}" is not a plain, free SQL name`);
    }
    const offset = params.length;
    const renumber = (sql: string) =>
      sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    params.push(...companion.params);
    if (companion.guard !== undefined) {
      // MATERIALIZED: read once, by the gate and by the companion, with one row lock.
      guards.push(`${companion.name}_guard AS MATERIALIZED (${renumber(companion.guard)})`);
    }
    ctes.push(...(companion.ctes ?? []).map(renumber));
    ctes.push(`${companion.name} AS (${renumber(companion.sql)})`);
    if (companion.output !== undefined) {
      outputs.push(`(SELECT ${companion.output} FROM ${companion.name}) AS "${companion.name}"`);
    }
  }
  const sql =
    `WITH ${[...guards, `main AS (${mainStatement.sql})`, ...ctes].join(',\n')}\n` +
    `SELECT ${['main.*', ...outputs].join(', ')} FROM (SELECT) AS one LEFT JOIN main ON true`;
  return { sql, params };
}
