import { hash, randomBytes } from 'node:crypto';

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

/** SHA-256, hex. The one-shot hash(): every request with a key pays it, createHash's object costs more. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/**
 * Anything in a text that could be a key: `psk_` (its `_` perhaps percent-encoded) and 22 or
 * more characters of a key or of percent-encoding.
 */
const KEY_LIKE = /psk(?:_|%5f)[A-Za-z0-9_%-]{22,}/i;
const EVERY_KEY_LIKE = new RegExp(KEY_LIKE.source, 'gi');

/** Whether a text holds something that could be a key (KEY_LIKE). */
export function mayHoldApiKey(text: string): boolean {
  return KEY_LIKE.test(text);
}

/** A text with whatever could be a key (KEY_LIKE) replaced, for the logs. */
export function withoutApiKeys(text: string): string {
  return text.replace(EVERY_KEY_LIKE, 'psk_[redacted]');
}

/** What logs and `apikey list` show of a key: enough to recognise it, useless to an attacker. */
export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}
