import type { AppConfig } from '../config/app-config.js';

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
