/** The versions the API serves, each under its own path prefix (`/v1`, `/v2`). */
export const API_VERSIONS = ['1', '2'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** The path prefixes of API_VERSIONS: `/v1`, `/v2`. */
export const API_VERSION_PREFIXES = API_VERSIONS.map((version) => `/v${version}`);
