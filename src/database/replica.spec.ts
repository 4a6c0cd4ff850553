import { replicaLagMs, type PrimarySample } from './replica.js';
import { parseWalPosition, walPositionFromText, walPositionText } from './wal-position.js';

describe('WAL positions', () => {
  it('reads PostgreSQL text and keeps an order that text comparison agrees with', () => {
    const low = parseWalPosition('0/16B3748');
    const high = parseWalPosition('1/0');
    expect(low).toBe(0x16b3748n);
    expect(high).toBe(0x100000000n);
    expect(walPositionText(low) < walPositionText(high)).toBe(true);
    expect(walPositionText(high)).toBe('0000000100000000');
    expect(walPositionFromText(walPositionText(high))).toBe(high);
    expect(parseWalPosition('FFFFFFFF/FFFFFFFF')).toBe(2n ** 64n - 1n);
  });

  it('refuses what is not one', () => {
    expect(() => parseWalPosition('16B3748')).toThrow('not a WAL position');
    expect(() => parseWalPosition('0/xyz')).toThrow('not a WAL position');
  });
});

describe('replicaLagMs', () => {
  const samples: PrimarySample[] = [
    { at: 1000, position: 100n },
    { at: 1100, position: 100n },
    { at: 1200, position: 150n },
    { at: 1300, position: 200n },
  ];

  it('is 0 for a replica with everything the primary had at its last sample', () => {
    expect(replicaLagMs(200n, samples, 1350)).toBe(0);
    expect(replicaLagMs(250n, samples, 1350)).toBe(0);
  });

  it('is the age of the first sample at which the primary had more', () => {
    expect(replicaLagMs(100n, samples, 1350)).toBe(150);
    expect(replicaLagMs(160n, samples, 1350)).toBe(50);
  });

  it('is at least the age of the oldest sample when the primary was ahead at all of them', () => {
    expect(replicaLagMs(50n, samples, 2000)).toBe(1000);
  });

  it('is unknown (infinite) before the primary was ever sampled', () => {
    expect(replicaLagMs(50n, [], 2000)).toBe(Infinity);
  });
});
