/** SQL text and its parameters, `$1`..`$n`. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** What runs SQL through TypeORM: a DataSource, an EntityManager, a Repository. */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Runs the statement and answers its rows, typed as the caller reads them (the statement's
 * columns decide the type: nothing is checked here). TypeORM answers a bare UPDATE or DELETE
 * with [rows, count] instead: a statement whose rows are read wraps it in a SELECT.
 */
export async function runStatement<Row>(db: Queryable, statement: Statement): Promise<Row[]> {
  return (await db.query(statement.sql, [...statement.params])) as Row[];
}
