import { runStatement } from './statement.js';

/** What TypeORM's DataSource.query answers, given as it answers it. */
const answering = (result: unknown) => ({ query: () => Promise.resolve(result) });

describe('runStatement', () => {
  const statement = { sql: 'SELECT 1', params: [] };

  it("answers a SELECT's rows as they come, two rows included", async () => {
    const rows = [{ id: '1' }, { id: '2' }];
    await expect(runStatement(answering(rows), statement)).resolves.toBe(rows);
  });

  it("answers the rows of TypeORM's [rows, count] for a bare UPDATE or DELETE … RETURNING", async () => {
    const rows = [{ id: '7' }];
    await expect(runStatement(answering([rows, 1]), statement)).resolves.toBe(rows);
    await expect(runStatement(answering([[], 0]), statement)).resolves.toEqual([]);
  });
});
