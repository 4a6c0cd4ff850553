import type { AppConfig } from '../config/app-config.js';
import { unversionedBaseUrl } from '../config/base-url.js';
import { isInt64Id } from '../common/http/int64-id.pipe.js';

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

/**
 * Every header of the deprecation that one answer of GET /v1/pets/{petId} carries, as
 * [name, value] pairs: Deprecation, Sunset, and one Link, which also names the successor in v2
 * when `petId` is a pet id (an answer to a malformed id has none to name). What
 * PetsDeprecationMiddleware sets, and what the bench's bare servers send, so that theirs are the
 * same bytes.
 */
export function petDeprecationHeaders(
  config: AppConfig,
): (petId: unknown) => ReadonlyArray<readonly [string, string]> {
  const { Deprecation, Sunset, Link } = deprecationHeaders(config);
  const base = successorBase(config);
  const withoutSuccessor = [
    ['Deprecation', Deprecation],
    ['Sunset', Sunset],
    ['Link', Link],
  ] as const;
  return (petId) =>
    !isInt64Id(petId)
      ? withoutSuccessor
      : [
          withoutSuccessor[0],
          withoutSuccessor[1],
          ['Link', `${Link}, <${base}${petId}>; rel="successor-version"`],
        ];
}
