import { createHash, randomBytes } from 'node:crypto';

/** Keys look like `psk_` + 43 base64url characters: 256 random bits. */
export const API_KEY_PREFIX = 'psk_';
const API_KEY_PATTERN = /^psk_[A-Za-z0-9_-]{22,128}$/;
const DISPLAY_PREFIX_LENGTH = 12;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** What logs and `apikey list` show of a key: enough to recognise it, useless to an attacker. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
