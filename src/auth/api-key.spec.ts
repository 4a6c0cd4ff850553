import { createHash } from 'node:crypto';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  mayHoldApiKey,
  withoutApiKeys,
} from './api-key.js';

describe('API keys', () => {
  it('generates psk_ keys with 256 random bits, all different', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) {
      expect(key).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('stores a SHA-256 hex hash, never the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).not.toContain(key.slice(4));
  });

  it('shows only a short prefix', () => {
    expect(displayPrefix('psk_abcdefghijklmnop')).toBe('psk_abcdefgh');
  });

  it.each([
    '',
    'psk_',
    'psk_short',
    'pk_' + 'a'.repeat(43),
    'psk_' + 'a'.repeat(42) + '!',
    'psk_' + 'a'.repeat(129),
  ])('treats %j as malformed', (key) => {
    expect(isWellFormedApiKey(key)).toBe(false);
  });

  it('finds and redacts what could be a key in a text, however its _ is written', () => {
    const key = generateApiKey();
    const encoded = key.replace('psk_', 'psk%5F');
    expect([key, encoded, `x-${key}`].map(mayHoldApiKey)).toEqual([true, true, true]);
    expect(['psk_short', 'trace-abc-1', 'psk'].map(mayHoldApiKey)).toEqual([false, false, false]);
    expect(withoutApiKeys(`/v1/store/orders/${key}/ship`)).toBe(
      '/v1/store/orders/psk_[redacted]/ship',
    );
    expect(withoutApiKeys(`/a/${encoded}`)).toBe('/a/psk_[redacted]');
    expect(withoutApiKeys('/v1/store/orders/42')).toBe('/v1/store/orders/42');
  });
});
