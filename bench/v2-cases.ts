/**
 * The v2 list queries the harnesses measure, on the orders seed.ts writes (1 000 000 of them:
 * 60 % pending, a third of those with a ship date in the 30 days after SEED_NOW; 25 % shipped
 * in the year before it; 15 % cancelled; pets uniformly, 1 % each) and, for listPets, the pets
 * growPets writes (60 % available, 25 % pending, 15 % sold; each of 96 categories about 1 %).
 */
import { DAY_MS, SEED_NOW } from './seed.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The orders the deep page follows. */
export const DEEP_AFTER = 990_000;

/**
 * Ship date filters: 14.6 of the 365 days of shipped orders (25 % of all) is 1 % of the table;
 * the second half of the planned ship dates (20 % of all) is 10 %; shipped more than 300 days
 * before SEED_NOW is 4.5 %.
 */
export const SHIP_RANGE_1PCT = `shipDateFrom=${iso(SEED_NOW - 100 * DAY_MS)}&shipDateTo=${iso(SEED_NOW - 85.4 * DAY_MS)}`;
/** One day of shipped orders: 0.07 %, narrow enough for the ship date index to pay. */
export const SHIP_RANGE_1DAY = `shipDateFrom=${iso(SEED_NOW - 100 * DAY_MS)}&shipDateTo=${iso(SEED_NOW - 99 * DAY_MS)}`;
export const SHIP_FROM_10PCT = `shipDateFrom=${iso(SEED_NOW + 15 * DAY_MS)}`;
export const SHIP_TO_4PCT = `shipDateTo=${iso(SEED_NOW - 300 * DAY_MS)}`;

export interface ListCase {
  name: string;
  /** The table the list reads. */
  table: 'orders' | 'categories' | 'pets';
  /** Path and query string, without limit and cursor. */
  path: string;
  /** Share of the table the filters match (by the seed's construction), for the report. */
  matches: string;
  /** Continue after this many matching items (a cursor the service issued). */
  after?: number;
}

/** Every case of `npm run bench:explain`: each filter alone, the common combinations, pages. */
export function listCases(petId: number, categoryId: number): ListCase[] {
  const orders = '/v2/store/orders';
  const pets = '/v2/pets';
  const orderCases: Array<Omit<ListCase, 'table'>> = [
    { name: 'no filter, asc', path: orders, matches: '100 %' },
    { name: 'no filter, desc', path: `${orders}?order=desc`, matches: '100 %' },
    {
      name: `no filter, after ${DEEP_AFTER.toLocaleString('en')}`,
      path: orders,
      matches: '100 %',
      after: DEEP_AFTER,
    },
    { name: 'status (one)', path: `${orders}?status=cancelled`, matches: '15 %' },
    { name: 'status (two)', path: `${orders}?status=shipped,cancelled`, matches: '40 %' },
    { name: 'petId', path: `${orders}?petId=${petId}`, matches: '1 %' },
    { name: 'shipDateFrom', path: `${orders}?${SHIP_FROM_10PCT}`, matches: '10 %' },
    { name: 'shipDateTo', path: `${orders}?${SHIP_TO_4PCT}`, matches: '4.5 %' },
    { name: 'ship date range', path: `${orders}?${SHIP_RANGE_1PCT}`, matches: '1 %' },
    { name: 'ship date range, one day', path: `${orders}?${SHIP_RANGE_1DAY}`, matches: '0.07 %' },
    { name: 'status + petId', path: `${orders}?status=pending&petId=${petId}`, matches: '0.6 %' },
    {
      name: 'status + ship date range',
      path: `${orders}?status=shipped&${SHIP_RANGE_1PCT}`,
      matches: '1 %',
    },
    {
      name: 'petId + ship date range',
      path: `${orders}?petId=${petId}&${SHIP_RANGE_1PCT}`,
      matches: '0.01 %',
    },
    {
      name: 'status + petId + ship date range',
      path: `${orders}?status=shipped&petId=${petId}&${SHIP_RANGE_1PCT}`,
      matches: '0.01 %',
    },
  ];
  const petCases: Array<Omit<ListCase, 'table'>> = [
    { name: 'pets: no filter, asc', path: pets, matches: '100 %' },
    { name: 'pets: no filter, desc', path: `${pets}?order=desc`, matches: '100 %' },
    {
      name: `pets: no filter, after ${DEEP_AFTER.toLocaleString('en')}`,
      path: pets,
      matches: '100 %',
      after: DEEP_AFTER,
    },
    { name: 'pets: status (one)', path: `${pets}?status=sold`, matches: '15 %' },
    { name: 'pets: status (two)', path: `${pets}?status=pending,sold`, matches: '40 %' },
    { name: 'pets: categoryId', path: `${pets}?categoryId=${categoryId}`, matches: '1 %' },
    {
      name: 'pets: status + categoryId',
      path: `${pets}?status=available&categoryId=${categoryId}`,
      matches: '0.6 %',
    },
    {
      name: 'pets: status (two) + categoryId',
      path: `${pets}?status=pending,sold&categoryId=${categoryId}`,
      matches: '0.4 %',
    },
  ];
  return [
    ...orderCases.map((c): ListCase => ({ ...c, table: 'orders' })),
    { name: 'categories', table: 'categories', path: '/v2/categories', matches: '100 %' },
    ...petCases.map((c): ListCase => ({ ...c, table: 'pets' })),
  ];
}
