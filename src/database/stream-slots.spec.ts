import { loadConfig } from '../config/app-config.js';
import { DomainError } from '../common/errors/domain-error.js';
import { StreamSlots } from './stream-slots.js';

function slots(maxStreams: number, perKey: number): StreamSlots {
  const config = loadConfig({
    DB_POOL_SIZE: String(maxStreams),
    DB_MAX_STREAMS: String(maxStreams),
    DB_MAX_STREAMS_PER_KEY: String(perKey),
  });
  return new StreamSlots(config);
}

/** The status of the error acquire throws, or 'taken'. */
function tryAcquire(s: StreamSlots, keyId: number): number | 'taken' {
  try {
    s.acquire(keyId);
    return 'taken';
  } catch (error) {
    return (error as DomainError).status;
  }
}

describe('StreamSlots', () => {
  it('refuses a key past its share with 429, and the instance past its slots with 503', () => {
    const s = slots(3, 2);
    expect(tryAcquire(s, 1)).toBe('taken');
    expect(tryAcquire(s, 1)).toBe('taken');
    expect(tryAcquire(s, 1)).toBe(429);
    expect(tryAcquire(s, 2)).toBe('taken');
    expect(tryAcquire(s, 3)).toBe(503);
    // A key over its share hears 429 even when the instance is full: it is its own doing.
    expect(tryAcquire(s, 1)).toBe(429);
  });

  it('frees a slot once, however often its release is called, for its key and the instance', () => {
    const s = slots(2, 1);
    const release = s.acquire(1);
    s.acquire(2);
    expect(tryAcquire(s, 1)).toBe(429);
    release();
    release();
    expect(tryAcquire(s, 3)).toBe('taken');
    expect(tryAcquire(s, 1)).toBe(503);
  });

  it('tells beforehand, without taking a slot, whether acquire would refuse', () => {
    const s = slots(2, 1);
    const refusal = (keyId: number): number | 'none' => {
      try {
        s.refuseIfTaken(keyId);
        return 'none';
      } catch (error) {
        return (error as DomainError).status;
      }
    };
    expect(refusal(1)).toBe('none');
    expect(refusal(1)).toBe('none');
    s.acquire(1);
    expect(refusal(1)).toBe(429);
    expect(refusal(2)).toBe('none');
    s.acquire(2);
    expect(refusal(3)).toBe(503);
    expect(refusal(1)).toBe(429);
  });

  it('forgets a key that holds no slot (no entry per key ever seen)', () => {
    const s = slots(1, 1);
    for (let keyId = 0; keyId < 10_000; keyId++) s.acquire(keyId)();
    expect((s as unknown as { openByKey: Map<number, number> }).openByKey.size).toBe(0);
  });
});
