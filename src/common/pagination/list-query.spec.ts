import { ValidationFailedError } from '../errors/domain-error.js';
import { idFilter, ListQueryPipe, statusFilter } from './list-query.js';

interface Filter {
  statuses?: Array<'a' | 'b' | 'c'>;
  ownerId?: string;
}

const pipe = new ListQueryPipe<Filter>(
  {
    statuses: statusFilter('things', ['a', 'b', 'c'], 'a'),
    ownerId: idFilter('ownerId', 'Only things of this owner', 1),
  },
  (filter) => {
    if (filter.ownerId === '13') throw new ValidationFailedError('ownerId must not be 13');
  },
);

describe('ListQueryPipe', () => {
  it('reads the page and each filter, recording the given ones in the filters’ order', () => {
    expect(pipe.transform({ ownerId: '7', status: 'c,a', limit: '5' })).toEqual({
      page: { limit: 5, cursor: undefined, order: 'asc' },
      filter: { statuses: ['a', 'c'], ownerId: '7' },
      canonical: [
        ['status', 'a,c'],
        ['ownerId', '7'],
      ],
    });
  });

  it('records every status named, and filters on none (that is no condition)', () => {
    const { filter, canonical } = pipe.transform({ status: 'b,c,a' });
    expect(filter).toEqual({});
    expect('statuses' in filter).toBe(false);
    expect(canonical).toEqual([['status', 'a,b,c']]);
  });

  it.each([
    [
      { colour: 'red' },
      /"colour" is not a query parameter.*accepted: limit, cursor, order, status, ownerId/,
    ],
    [{ status: 'a,d' }, /^status must be one or more of a, b, c/],
    [{ ownerId: '0' }, /^ownerId must be a whole number from 1 to 9223372036854775807/],
    [{ ownerId: '13' }, /^ownerId must not be 13$/],
  ])('refuses %j: %s', (query, message) => {
    expect(() => pipe.transform(query)).toThrow(ValidationFailedError);
    expect(() => pipe.transform(query)).toThrow(message);
  });
});
