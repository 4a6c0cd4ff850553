import { ValidationFailedError } from '../errors/domain-error.js';

/** How a list is cut into pages: by id, from a cursor, in an order (docs/api.md, Pages). */
export interface PageQuery {
  limit: number;
  /** A nextCursor from an earlier page of the same query, still unverified. */
  cursor: string | undefined;
  order: 'asc' | 'desc';
}

export const PAGE_LIMIT = { min: 1, max: 1000, default: 100 } as const;
export const PAGE_QUERY_PARAMETERS = ['limit', 'cursor', 'order'] as const;

/**
 * The query string as the list operations accept it: only the parameters named, each at most
 * once and never empty (docs/api.md, Pages). Every rejection names the parameter.
 */
export class QueryParameters {
  private readonly values = new Map<string, string>();

  constructor(query: unknown, accepted: readonly string[]) {
    const entries = query !== null && typeof query === 'object' ? Object.entries(query) : [];
    for (const [name, value] of entries) {
      if (!accepted.includes(name)) {
        throw new ValidationFailedError(
          `${describeName(name)} is not a query parameter of this operation (accepted: ${accepted.join(', ')})`,
        );
      }
      if (typeof value !== 'string') {
        throw new ValidationFailedError(`${name} must be given at most once`);
      }
      if (value === '') {
        throw new ValidationFailedError(`${name} must not be empty`);
      }
      this.values.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }
}

/** A parameter name as the message quotes it: short, printable. */
function describeName(name: string): string {
  const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
  return `The query parameter ${shown}`;
}

/** limit (1..1000, default 100, decimal digits without a leading zero), cursor and order. */
export function readPageQuery(parameters: QueryParameters): PageQuery {
  const limit = parameters.get('limit');
  if (limit !== undefined && !/^[1-9][0-9]{0,3}$/.test(limit)) {
    throw new ValidationFailedError(
      `limit must be a whole number from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} written in decimal digits`,
    );
  }
  if (limit !== undefined && Number(limit) > PAGE_LIMIT.max) {
    throw new ValidationFailedError(`limit must not be greater than ${PAGE_LIMIT.max}`);
  }
  const order = parameters.get('order') ?? 'asc';
  if (order !== 'asc' && order !== 'desc') {
    throw new ValidationFailedError('order must be asc or desc');
  }
  return {
    limit: limit === undefined ? PAGE_LIMIT.default : Number(limit),
    cursor: parameters.get('cursor'),
    order,
  };
}

/**
 * A filter of one or more of `allowed`, comma-separated, each at most once (listOrders' and
 * listPets' `status`): the values named, in `allowed`'s order; undefined when not given.
 */
export function readValueList<Value extends string>(
  parameters: QueryParameters,
  name: string,
  allowed: readonly Value[],
): Value[] | undefined {
  const text = parameters.get(name);
  if (text === undefined) return undefined;
  const given = text.split(',');
  for (const value of given) {
    if (!allowed.includes(value as Value)) {
      throw new ValidationFailedError(
        `${name} must be one or more of ${allowed.join(', ')}, separated by commas`,
      );
    }
  }
  if (new Set(given).size !== given.length) {
    throw new ValidationFailedError(`${name} must not name a ${name} twice`);
  }
  return allowed.filter((value) => given.includes(value));
}
