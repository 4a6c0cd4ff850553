import { afterEach, describe, expect, it } from '@jest/globals';
import { MemoryRateLimitStorage } from './memory-rate-limit.storage.js';

const MINUTE = 60_000;

describe('MemoryRateLimitStorage', () => {
  let clock = 1_000_000;
  let storage: MemoryRateLimitStorage;
  const create = () => {
    clock = 1_000_000;
    storage = new MemoryRateLimitStorage(MINUTE, () => clock);
    return storage;
  };
  afterEach(() => storage.onApplicationShutdown());

  it('counts hits in a fixed window and reports the seconds left in it', () => {
    create();
    expect(storage.hit('a', MINUTE, 3, MINUTE)).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    clock += 20_500;
    expect(storage.hit('a', MINUTE, 3, MINUTE)).toMatchObject({ totalHits: 2, timeToExpire: 40 });
    expect(storage.hit('b', MINUTE, 3, MINUTE)).toMatchObject({ totalHits: 1, timeToExpire: 60 });
  });

  it('blocks past the limit for the block time, without counting the blocked hits', () => {
    create();
    for (let i = 0; i < 3; i++) expect(storage.hit('a', MINUTE, 3, MINUTE).isBlocked).toBe(false);
    clock += 10_000;
    expect(storage.hit('a', MINUTE, 3, MINUTE)).toEqual({
      totalHits: 4,
      timeToExpire: 50,
      isBlocked: true,
      timeToBlockExpire: 60,
    });
    clock += 30_000;
    expect(storage.hit('a', MINUTE, 3, MINUTE)).toEqual({
      totalHits: 4,
      timeToExpire: 20,
      isBlocked: true,
      timeToBlockExpire: 30,
    });
    // The window is over, the block is not: still blocked, no hits in a window.
    clock += 25_000;
    expect(storage.hit('a', MINUTE, 3, MINUTE)).toEqual({
      totalHits: 0,
      timeToExpire: 0,
      isBlocked: true,
      timeToBlockExpire: 5,
    });
    clock += 5_000;
    expect(storage.hit('a', MINUTE, 3, MINUTE)).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  it('tells how long a caller is blocked for, without counting a hit', () => {
    create();
    expect(storage.blockedFor('a')).toBe(0);
    storage.hit('a', MINUTE, 1, MINUTE);
    expect(storage.blockedFor('a')).toBe(0);
    storage.hit('a', MINUTE, 1, MINUTE);
    clock += 15_500;
    expect(storage.blockedFor('a')).toBe(45);
    expect(storage.blockedFor('a')).toBe(45);
    expect(storage.hit('a', MINUTE, 1, MINUTE).totalHits).toBe(2);
    clock += 44_500;
    expect(storage.blockedFor('a')).toBe(0);
  });

  it('starts a new window once the old one is over', () => {
    create();
    storage.hit('a', MINUTE, 5, MINUTE);
    storage.hit('a', MINUTE, 5, MINUTE);
    clock += MINUTE;
    expect(storage.hit('a', MINUTE, 5, MINUTE)).toMatchObject({ totalHits: 1, timeToExpire: 60 });
  });

  it('keeps one entry per caller, whatever the limit or the number of hits', () => {
    create();
    for (let i = 0; i < 10_000; i++) storage.hit('a', MINUTE, 1_000_000, MINUTE);
    expect(storage.size).toBe(1);
    expect(storage.hit('a', MINUTE, 1_000_000, MINUTE).totalHits).toBe(10_001);
  });

  it('forgets idle callers: 100 000 distinct callers leave nothing behind once their windows end', () => {
    create();
    for (let i = 0; i < 100_000; i++) storage.hit(`ip:10.0.${i}`, MINUTE, 10, MINUTE);
    expect(storage.size).toBe(100_000);
    clock += 30_000;
    storage.sweep();
    expect(storage.size).toBe(100_000);
    // One caller active in the next window, and one still blocked, are kept.
    clock += 30_000;
    storage.hit('ip:10.0.1', MINUTE, 10, MINUTE);
    for (let i = 0; i < 11; i++) storage.hit('key:busy', MINUTE, 10, MINUTE);
    storage.sweep();
    expect(storage.size).toBe(2);
    clock += MINUTE;
    storage.sweep();
    expect(storage.size).toBe(0);
  });

  it('sweeps on its own every interval', async () => {
    storage = new MemoryRateLimitStorage(20);
    storage.hit('a', 1, 10, 1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(storage.size).toBe(0);
  });
});
