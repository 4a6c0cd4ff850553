/**
 * `https://api.example/v1/` → `https://api.example`: a base URL (PUBLIC_BASE_URL and the like)
 * without its trailing slash and version, where the service's own paths go.
 */
export function unversionedBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v[0-9]+$/, '');
}
