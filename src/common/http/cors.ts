import type { CorsOptions } from '@nestjs/common/internal';

/** Headers a browser client may read on a cross-origin answer. */
const EXPOSED_HEADERS = [
  'Location',
  'Retry-After',
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Deprecation',
  'Sunset',
  'Link',
  'WWW-Authenticate',
  'Idempotent-Replayed',
];

/** CORS for the browser origins of CORS_ORIGINS (docs/operating.md). */
export function corsOptions(origins: string[]): CorsOptions {
  return { origin: origins, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 };
}
