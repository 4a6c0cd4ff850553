import { withAttachedWrites } from './attached-writes.js';

const insert = (gate: string) => ({
  sql: `INSERT INTO t (a) SELECT $1 WHERE ${gate} RETURNING id`,
  params: ['a'],
});

describe('withAttachedWrites', () => {
  it('leaves the main statement as it is without attachedWrites', () => {
    expect(withAttachedWrites(insert, [])).toEqual({
      sql: 'INSERT INTO t (a) SELECT $1 WHERE TRUE RETURNING id',
      params: ['a'],
    });
  });

  it('runs attachedWrites as CTEs of one statement, gated on their guards, with renumbered parameters', () => {
    const { sql, params } = withAttachedWrites(insert, [
      {
        name: 'record',
        guard: 'SELECT id FROM r WHERE id = $1 FOR UPDATE',
        sql: 'UPDATE r SET v = (SELECT id FROM main), w = $2 FROM record_guard g WHERE r.id = g.id RETURNING v',
        output: 'v',
        params: [7, 'w'],
      },
      { name: 'outbox', sql: 'INSERT INTO o (x) SELECT $1 FROM main RETURNING 1', params: ['x'] },
    ]);
    expect(params).toEqual(['a', 7, 'w', 'x']);
    expect(sql).toBe(
      'WITH record_guard AS MATERIALIZED (SELECT id FROM r WHERE id = $2 FOR UPDATE),\n' +
        'main AS (INSERT INTO t (a) SELECT $1 WHERE EXISTS (SELECT 1 FROM record_guard) RETURNING id),\n' +
        'record AS (UPDATE r SET v = (SELECT id FROM main), w = $3 FROM record_guard g WHERE r.id = g.id RETURNING v),\n' +
        'outbox AS (INSERT INTO o (x) SELECT $4 FROM main RETURNING 1)\n' +
        'SELECT main.*, (SELECT v FROM record) AS "record" FROM (SELECT) AS one LEFT JOIN main ON true',
    );
  });

  it.each(['main', 'one', 'Bad', 'x; DROP TABLE t'])(
    'refuses the attached write name %j',
    (name) => {
      expect(() => withAttachedWrites(insert, [{ name, sql: 'SELECT 1', params: [] }])).toThrow(
        /attached write name/,
      );
    },
  );
});
