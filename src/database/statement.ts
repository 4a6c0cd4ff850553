/** SQL text and its parameters, `$1`..`$n`. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** What runs SQL: TypeORM (a DataSource, an EntityManager, a Repository) or the ReadRouter. */
interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Runs the statement and answers its rows, typed as the caller reads them (the statement's
 * columns decide the type: nothing is checked here), whatever the statement is: TypeORM
 * answers a bare UPDATE or DELETE with [rows, affected count], which is unwrapped here.
 */
export async function runStatement<Row>(db: Queryable, statement: Statement): Promise<Row[]> {
  const result = await db.query(statement.sql, [...statement.params]);
  return (isRowsAndCount(result) ? result[0] : result) as Row[];
}

/** TypeORM's answer to an UPDATE or DELETE; rows are objects, so no SELECT answers this. */
function isRowsAndCount(result: unknown): result is [unknown[], number] {
  return (
    Array.isArray(result) &&
    result.length === 2 &&
    Array.isArray(result[0]) &&
    typeof result[1] === 'number'
  );
}

/**
 * One keyset page of `from` (`SELECT … FROM table`): the rows matching `conditions`, by id in
 * `order`, at most `limit` (a placeholder). With several `statuses` (placeholders), one branch
 * per status, each walking (status, id) in order, merged: no status filter reads past the page.
 */
export function keysetPageSql(
  from: string,
  conditions: readonly string[],
  statuses: readonly string[],
  order: 'asc' | 'desc',
  limit: string,
): string {
  const direction = order === 'asc' ? 'ASC' : 'DESC';
  const select = (extra: string[]) => {
    const where = [...conditions, ...extra];
    return `${from}
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id ${direction} LIMIT ${limit}`;
  };
  return statuses.length <= 1
    ? select(statuses.map((status) => `status = ${status}`))
    : `SELECT * FROM (${statuses
        .map((status) => `(${select([`status = ${status}`])})`)
        .join(' UNION ALL ')}) AS page ORDER BY id ${direction} LIMIT ${limit}`;
}
