import type { INestApplication } from '@nestjs/common';
import type { Request, Response } from 'express';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ApiVersion } from '../api-version.js';

/*
 * The API reference at /reference: Redoc over each version's OpenAPI document, one page per
 * version with a switch between them. Every byte comes from the service (docs/api.md): the
 * page, Redoc's standalone bundle and the documents; no fonts, logos or scripts from elsewhere.
 */

/** Where the reference is served; /reference itself redirects to the newest version. */
export const REFERENCE_PATHNAME = '/reference';

/** Redoc's self-contained bundle (React and its styles included), and its licence notices. */
const REDOC_FILES = ['redoc.standalone.js', 'redoc.standalone.js.LICENSE.txt'] as const;

/** The documents in the version switch, the newest first (openapi-documents.ts). */
export type DocumentMenu = ReadonlyArray<{ version: ApiVersion; name: string }>;

/**
 * The one address outside the service the bundle loads: the Redocly logo beside "API docs by
 * Redocly" at the foot of the menu. An empty image in its place keeps the page's loads at home
 * (the link stays; a reader follows it by choice).
 */
const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const NO_LOGO = "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg'/>";

/**
 * A Redoc file: the copy `npm run build` puts beside the compiled code (the image keeps no
 * devDependencies, redoc among them), else node_modules' own (running from the sources, as
 * the tests do).
 */
function redocFile(name: (typeof REDOC_FILES)[number]): Buffer {
  const built = join(import.meta.dirname, '..', '..', 'reference', name);
  const path = existsSync(built)
    ? built
    : createRequire(import.meta.url).resolve(`redoc/bundles/${name}`);
  return readFileSync(path);
}

/** One version's page: the switch, then Redoc, which reads its options from the element. */
function referencePage(menu: DocumentMenu, version: ApiVersion): string {
  const current = menu.find((entry) => entry.version === version)!;
  const links = menu
    .map(({ version: other, name }) =>
      other === version
        ? `<a href="v${other}" aria-current="page">${name}</a>`
        : `<a href="v${other}">${name}</a>`,
    )
    .join(' ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Pet store API ${current.name}: reference</title>`,
    // No icon, rather than a request for /favicon.ico that the service answers 404.
    '<link rel="icon" href="data:,">',
    '<style>',
    'body{margin:0}',
    'nav.versions{font:14px/1.5 system-ui,sans-serif;padding:8px 20px;background:#263238;color:#fff}',
    'nav.versions a{color:#cfd8dc;margin-left:12px}',
    'nav.versions a[aria-current]{color:#fff;font-weight:bold;text-decoration:none}',
    '</style>',
    '</head>',
    '<body>',
    `<nav class="versions">Pet store API reference: ${links}` +
      ' <a href="../docs">Swagger UI (try it out)</a></nav>',
    // Relative addresses: the page works wherever the service is mounted.
    `<redoc spec-url="../openapi/v${version}.json" expand-responses="200,201"` +
      ' required-props-first="true" sort-required-props-first="true"></redoc>',
    // The bundle starts Redoc on the <redoc> element by itself: no inline script is needed.
    '<script src="redoc.standalone.js"></script>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Serves /reference/vN for each version, Redoc's bundle beside them, and /reference as a
 * redirect to v2. Like /docs they are outside every API version and need no key.
 */
export function setupReference(app: INestApplication, menu: DocumentMenu): void {
  const http = app.getHttpAdapter();
  // An hour, as the changelog: the pages and the bundle change only with a deployment.
  const cache = 'public, max-age=3600';
  for (const { version } of menu) {
    const page = referencePage(menu, version);
    http.get(`${REFERENCE_PATHNAME}/v${version}`, (_request: Request, response: Response) => {
      response.setHeader('Cache-Control', cache);
      response.type('html').send(page);
    });
  }
  for (const name of REDOC_FILES) {
    const body =
      name === 'redoc.standalone.js'
        ? redocFile(name).toString('utf8').replaceAll(REDOCLY_LOGO, NO_LOGO)
        : redocFile(name);
    const type = name.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/plain';
    http.get(`${REFERENCE_PATHNAME}/${name}`, (_request: Request, response: Response) => {
      response.setHeader('Cache-Control', cache);
      response.type(type).send(body);
    });
  }
  const newest = `v${menu[0].version}`;
  http.get(REFERENCE_PATHNAME, (request: Request, response: Response) => {
    // /reference and /reference/ alike: the address relative to the page's own.
    response.redirect(302, request.path.endsWith('/') ? newest : `reference/${newest}`);
  });
}
