import { isoFromTimestamptz } from './timestamptz.js';

describe('isoFromTimestamptz', () => {
  it.each([
    ['2026-11-25 05:03:54.571234+00', '2026-11-25T05:03:54.571Z'],
    ['2026-11-25 05:03:54.5+00', '2026-11-25T05:03:54.500Z'],
    ['2026-11-25 05:03:54+00', '2026-11-25T05:03:54.000Z'],
    ['2026-11-25 05:03:54.999999+00', '2026-11-25T05:03:54.999Z'],
    ['0001-01-01 00:00:00+00', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31 23:59:59.999999+00', '9999-12-31T23:59:59.999Z'],
  ])('writes UTC text %s as %s with slices', (text, iso) => {
    expect(isoFromTimestamptz(text)).toBe(iso);
  });

  it.each([
    ['2026-11-25 10:33:54.571234+05:30', '2026-11-25T05:03:54.571Z'],
    ['2026-11-25 00:03:54-05', '2026-11-25T05:03:54.000Z'],
    ['0001-01-01 00:53:28+00:53:28', '0001-01-01T00:00:00.000Z'],
    ['0050-06-01 12:00:00.1+01', '0050-06-01T11:00:00.100Z'],
    ['10000-01-01 00:00:00+00', '+010000-01-01T00:00:00.000Z'],
  ])('converts offset text %s to UTC %s', (text, iso) => {
    expect(isoFromTimestamptz(text)).toBe(iso);
  });

  it('refuses text that is not an ISO timestamptz', () => {
    expect(() => isoFromTimestamptz('Wed Nov 25 05:03:54 2026 UTC')).toThrow(/unexpected/);
  });
});
