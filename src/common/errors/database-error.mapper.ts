import { QueryFailedError } from 'typeorm';
import { DomainError, ServiceUnavailableError, ValidationFailedError } from './domain-error.js';
import { ErrorCode } from './error-code.js';

/**
 * Constraints whose violation is a client mistake rather than a bug, by the names the
 * migrations give them. The database is the last word on these rules, so a race that slips
 * past a service check still gets the right answer.
 */
const CONSTRAINT_ERRORS: Record<string, () => DomainError> = {
  uq_categories_name_lower: () =>
    new DomainError(ErrorCode.CATEGORY_EXISTS, 'A category with this name already exists.'),
  fk_orders_pet: () =>
    new DomainError(ErrorCode.PET_NOT_FOUND, 'The pet of this order does not exist.', {
      status: 422,
    }),
};

/** PostgreSQL SQLSTATEs for values the database cannot store (NUL, bad encoding, overflow). */
const INVALID_VALUE_STATES = new Set([
  '22001',
  '22003',
  '22007',
  '22008',
  '22021',
  '22P02',
  '22P05',
]);

/** SQLSTATE classes and driver codes meaning "the database is not reachable right now". */
const UNAVAILABLE_STATES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08006',
  // PgBouncer: no server connection in time (query_wait_timeout), too many clients, pool errors.
  '08P01',
]);
/** The statement was cancelled: by the statement timeout, or a cancel request. */
const QUERY_CANCELED = '57014';
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
]);

interface PgErrorFields {
  code?: string;
  constraint?: string;
  message?: string;
}

function pgFields(error: unknown): PgErrorFields | null {
  if (error instanceof QueryFailedError) {
    return error.driverError as PgErrorFields;
  }
  if (error instanceof Error && 'code' in error) {
    return error as PgErrorFields;
  }
  return null;
}

/**
 * Turns a database or driver error into the DomainError a client should see, or null when
 * the error is a bug (answered 500 by the filter).
 */
export function mapDatabaseError(error: unknown): DomainError | null {
  const fields = pgFields(error);
  const code = fields?.code;
  if (code === '23505' || code === '23503') {
    const make = fields?.constraint ? CONSTRAINT_ERRORS[fields.constraint] : undefined;
    return make ? make() : null;
  }
  if (code === '23514' || (code !== undefined && INVALID_VALUE_STATES.has(code))) {
    return new ValidationFailedError('A value in the request cannot be stored.');
  }
  if (code !== undefined && (UNAVAILABLE_STATES.has(code) || UNAVAILABLE_NODE_CODES.has(code))) {
    return new ServiceUnavailableError();
  }
  if (code === QUERY_CANCELED) {
    // DB_STATEMENT_TIMEOUT_MS cut the statement (a busy database, a lock held elsewhere): the
    // request did nothing and may succeed when retried, so it is not answered as a bug.
    return new ServiceUnavailableError('The database did not answer in time; retry shortly.');
  }
  const message = error instanceof Error ? error.message : '';
  if (
    /Connection terminated|timeout exceeded when trying to connect|Connection is not established/i.test(
      message,
    )
  ) {
    return new ServiceUnavailableError();
  }
  return null;
}
