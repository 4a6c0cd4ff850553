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
 * One keyset page's statement, built up: the rows after the id `after` (exclusive) in `order`,
 * each condition added with its parameters, at most `take` of them. Keyset on the id, never an
 * offset: a deep page costs what the first costs.
 */
export class KeysetPage {
  readonly params: unknown[] = [];
  private readonly conditions: string[] = [];

  constructor(
    private readonly order: 'asc' | 'desc',
    after: string | undefined,
  ) {
    if (after !== undefined) this.where(`id ${order === 'asc' ? '>' : '<'} ${this.param(after)}`);
  }

  /** The placeholder of a new parameter, `value`. */
  param(value: unknown): string {
    return `$${this.params.push(value)}`;
  }

  where(condition: string): void {
    this.conditions.push(condition);
  }

  /**
   * The page of `from` (`SELECT … FROM table`). With several `statuses`, one branch per status,
   * each walking (status, id) in order, merged: no status filter reads past the page.
   */
  sql(from: string, statuses: readonly string[] | undefined, take: number): string {
    const limit = this.param(take);
    const placeholders = (statuses ?? []).map((status) => this.param(status));
    const direction = this.order === 'asc' ? 'ASC' : 'DESC';
    const select = (extra: string[]) => {
      const where = [...this.conditions, ...extra];
      return `${from}
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY id ${direction} LIMIT ${limit}`;
    };
    return placeholders.length <= 1
      ? select(placeholders.map((status) => `status = ${status}`))
      : `SELECT * FROM (${placeholders
          .map((status) => `(${select([`status = ${status}`])})`)
          .join(' UNION ALL ')}) AS page ORDER BY id ${direction} LIMIT ${limit}`;
  }
}
