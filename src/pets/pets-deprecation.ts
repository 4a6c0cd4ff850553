import type { AppConfig } from '../config/app-config.js';
import { unversionedBaseUrl } from '../config/base-url.js';

/**
 * The headers announcing that GET /pets/{petId} is deprecated and when it goes away:
 * Deprecation (RFC 9745, `@` + Unix seconds), Sunset (RFC 8594, an HTTP-date) and a Link to
 * the changelog. The config guarantees the sunset is not before the deprecation.
 */
export function deprecationHeaders(config: AppConfig): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(config.petsDeprecatedAt.getTime() / 1000)}`,
    Sunset: config.petsSunsetAt.toUTCString(),
    Link: `<${config.changelogUrl}>; rel="deprecation"; type="text/html"`,
  };
}

/**
 * Where v1's pet reads are answered in v2, for the Link of rel="successor-version" (RFC 5829):
 * `{base}/v2/pets/{petId}`, relative unless PUBLIC_BASE_URL says where clients reach the
 * service, like the changelog link and the next-page links.
 */
export function successorBase(config: AppConfig): string {
  const base = config.publicBaseUrl === undefined ? '' : unversionedBaseUrl(config.publicBaseUrl);
  return `${base}/v2/pets/`;
}
