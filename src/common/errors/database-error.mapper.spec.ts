import { QueryFailedError } from 'typeorm';
import { mapDatabaseError } from './database-error.mapper.js';

function pgError(fields: {
  code: string;
  constraint?: string;
  message?: string;
}): QueryFailedError {
  const driverError = Object.assign(new Error(fields.message ?? 'db error'), fields);
  return new QueryFailedError('SELECT 1', [], driverError);
}

describe('mapDatabaseError', () => {
  it('maps the category name index to 409 CATEGORY_EXISTS', () => {
    expect(
      mapDatabaseError(pgError({ code: '23505', constraint: 'uq_categories_name_lower' })),
    ).toMatchObject({
      code: 'CATEGORY_EXISTS',
      status: 409,
    });
  });

  it('maps the order → pet foreign key to 422 PET_NOT_FOUND', () => {
    expect(mapDatabaseError(pgError({ code: '23503', constraint: 'fk_orders_pet' }))).toMatchObject(
      {
        code: 'PET_NOT_FOUND',
        status: 422,
      },
    );
  });

  it('leaves an unknown constraint to the 500 path (a bug, not a client error)', () => {
    expect(mapDatabaseError(pgError({ code: '23505', constraint: 'something_else' }))).toBeNull();
  });

  it.each(['22021', '22P05', '22001', '23514'])(
    'maps SQLSTATE %s (a value that cannot be stored) to 400',
    (code) => {
      const mapped = mapDatabaseError(
        pgError({ code, message: 'invalid byte sequence for encoding "UTF8": 0x00' }),
      );
      expect(mapped).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
      expect(mapped?.message).not.toMatch(/0x00|UTF8|byte/);
    },
  );

  it.each([
    pgError({ code: '57P01' }),
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    new Error('timeout exceeded when trying to connect'),
    // PgBouncer's own errors (SQLSTATE 08P01): PostgreSQL down, no server connection in time.
    pgError({
      code: '08P01',
      message: 'server login has been failing, try again later (server_login_retry)',
    }),
    pgError({ code: '08P01', message: 'query_wait_timeout' }),
    // What a statement that got no answer in time fails with (response-deadline.ts).
    new QueryFailedError('SELECT 1', [], new Error('Connection terminated')),
  ])('maps an unreachable database to 503 SERVICE_UNAVAILABLE with Retry-After', (error) => {
    expect(mapDatabaseError(error)).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      headers: { 'Retry-After': '5' },
    });
  });

  it('maps a statement cut off by the statement timeout (57014) to 503 with Retry-After', () => {
    const mapped = mapDatabaseError(
      pgError({ code: '57014', message: 'canceling statement due to statement timeout' }),
    );
    expect(mapped).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      headers: { 'Retry-After': '5' },
    });
    expect(mapped?.message).not.toMatch(/canceling|statement/);
  });

  it('returns null for errors that are not database errors', () => {
    expect(mapDatabaseError(new TypeError('x is undefined'))).toBeNull();
    expect(mapDatabaseError('a string')).toBeNull();
  });
});
