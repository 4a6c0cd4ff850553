import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { isUnderPath } from './path-prefix.js';

/**
 * Helmet decides the headers; this sets them. Helmet's policy does not depend on the request,
 * so it runs once against a stand-in response at start-up, and each request then gets the
 * resulting fixed list in one loop: about a dozen middleware calls fewer per request, which the
 * benchmark showed is a large share of a small request's cost.
 */
function helmetHeaders(options: HelmetOptions): ReadonlyArray<readonly [string, string]> {
  const headers: Array<[string, string]> = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers.push([name, Array.isArray(value) ? value.join(', ') : String(value)]);
    },
    removeHeader: () => undefined,
  };
  helmet(options)({} as Request, recorder as unknown as Response, () => undefined);
  return headers;
}

function settingHeaders(headers: ReadonlyArray<readonly [string, string]>): RequestHandler {
  return (_request: Request, response: Response, next: NextFunction) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    next();
  };
}

/**
 * A JSON API needs no scripts, styles or frames: the strictest policy. Exported for the
 * bench, whose floor sends the API's answers byte for byte (bench/README.md).
 */
export const API_SECURITY_HEADERS = helmetHeaders({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
});
const apiHeaders = settingHeaders(API_SECURITY_HEADERS);

/** What the documentation pages may load: their own scripts and styles (served by us, no CDN). */
const DOCS_POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
};

/** Swagger UI: its own scripts and styles, inline styles, data: icons. */
const docsHeaders = settingHeaders(
  helmetHeaders({
    // No upgrade-insecure-requests: TLS ends at the balancer, and a local http:// must work.
    contentSecurityPolicy: { useDefaults: false, directives: DOCS_POLICY },
  }),
);

/** Redoc: as Swagger UI, and its search index is built in a worker it starts from a blob. */
const referenceHeaders = settingHeaders(
  helmetHeaders({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { ...DOCS_POLICY, workerSrc: ["'self'", 'blob:'] },
    },
  }),
);

/**
 * Security headers on every answer: Swagger UI's policy under /docs, Redoc's under /reference,
 * the API's elsewhere.
 */
export function securityHeaders(request: Request, response: Response, next: NextFunction): void {
  const path = request.path;
  const headers = isUnderPath(path, '/docs')
    ? docsHeaders
    : isUnderPath(path, '/reference')
      ? referenceHeaders
      : apiHeaders;
  headers(request, response, next);
}
