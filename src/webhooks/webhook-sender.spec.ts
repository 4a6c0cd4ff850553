import { retryDelay } from './webhook-dispatcher.js';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from './webhook-sender.js';

describe('retryAfterMs (a receiver’s Retry-After)', () => {
  const now = Date.parse('2026-11-27T10:00:00Z');

  it.each([
    ['0', 0],
    ['120', 120_000],
    [' 7 ', 7000],
    ['3600', 3_600_000],
    ['86400', MAX_RETRY_AFTER_MS],
    ['Fri, 27 Nov 2026 10:02:00 GMT', 120_000],
    ['Fri, 27 Nov 2026 09:00:00 GMT', 0],
    ['Sat, 28 Nov 2026 10:00:00 GMT', MAX_RETRY_AFTER_MS],
  ])('reads %j as %d ms', (value, expected) => {
    expect(retryAfterMs(value, now)).toBe(expected);
  });

  it.each([undefined, '', 'soon', '-5', '1.5', '2026-11-27T10:02:00Z'])('ignores %j', (value) => {
    expect(retryAfterMs(value, now)).toBeNull();
  });
});

describe('retryDelay', () => {
  const schedule = [5000, 30_000];

  it('waits the schedule’s delay for the attempt since the delivery was last sent', () => {
    expect(retryDelay(schedule, 1, null)).toBe(5000);
    expect(retryDelay(schedule, 2, null)).toBe(30_000);
    expect(retryDelay(schedule, 3, null)).toBeNull();
  });

  it('waits longer when Retry-After asks, never shorter than the schedule', () => {
    expect(retryDelay(schedule, 1, 60_000)).toBe(60_000);
    expect(retryDelay(schedule, 2, 1000)).toBe(30_000);
    expect(retryDelay(schedule, 3, 60_000)).toBeNull();
  });
});
