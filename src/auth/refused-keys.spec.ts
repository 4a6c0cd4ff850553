import { RefusedKeys } from './refused-keys.js';

describe('RefusedKeys', () => {
  it('remembers a refused key for the TTL, then forgets it', () => {
    const refused = new RefusedKeys(10, 1000);
    refused.add('a', 5000);
    expect(refused.has('a', 5000)).toBe(true);
    expect(refused.has('a', 5999)).toBe(true);
    expect(refused.has('b', 5000)).toBe(false);
    expect(refused.has('a', 6000)).toBe(false);
    expect(refused.size).toBe(0);
  });

  it('holds at most maxEntries keys, dropping the oldest: 100 000 distinct keys keep 1 000', () => {
    const refused = new RefusedKeys(1000, 60_000);
    for (let i = 0; i < 100_000; i++) refused.add(`k${i}`, 1000);
    expect(refused.size).toBe(1000);
    expect(refused.has('k98999', 1000)).toBe(false);
    expect(refused.has('k99000', 1000)).toBe(true);
    expect(refused.has('k99999', 1000)).toBe(true);
  });

  it('drops expired entries as it adds, so idle keys do not stay', () => {
    const refused = new RefusedKeys(1000, 100);
    for (let i = 0; i < 500; i++) refused.add(`k${i}`, 0);
    refused.add('late', 100);
    expect(refused.size).toBe(1);
    expect(refused.has('late', 150)).toBe(true);
  });

  it('adding a key again restarts its TTL and keeps one entry', () => {
    const refused = new RefusedKeys(10, 1000);
    refused.add('a', 0);
    refused.add('b', 500);
    refused.add('a', 900);
    expect(refused.size).toBe(2);
    expect(refused.has('a', 1500)).toBe(true);
    expect(refused.has('b', 1500)).toBe(false);
  });

  it('forgets a key on delete, and remembers nothing with a TTL of 0', () => {
    const refused = new RefusedKeys(10, 1000);
    refused.add('a', 0);
    refused.delete('a');
    expect(refused.has('a', 1)).toBe(false);
    const off = new RefusedKeys(10, 0);
    off.add('a', 0);
    expect(off.size).toBe(0);
    expect(off.has('a', 0)).toBe(false);
  });
});
