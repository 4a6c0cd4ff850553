import type { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  SwaggerModule,
  type HeaderObject,
  type OpenAPIObject,
  type OperationObject,
  type PathItemObject,
  type ResponseObject,
} from '@nestjs/swagger';
import type { AppConfig } from '../../config/app-config.js';
import { unversionedBaseUrl } from '../../config/base-url.js';
import { API_VERSIONS, type ApiVersion } from '../api-version.js';
import { errorExample } from '../errors/api-error-responses.decorator.js';
import { ErrorCode } from '../errors/error-code.js';
import {
  downloadUrlPlugin,
  STABILITY_BADGE_CSS,
  stabilityBadgePlugin,
} from './swagger-ui-plugins.js';
import { setupReference, type DocumentMenu } from './reference.js';

/*
 * The OpenAPI documents, one per version, cut from one scan of every controller, and Swagger
 * UI over them. What each document holds is described in docs/api.md.
 */

/**
 * `https://api.example` → `https://api.example/v2`: a base URL's trailing version, if any, is
 * replaced by the document's, so one PUBLIC_BASE_URL serves every version's `servers`.
 */
function withVersionPrefix(baseUrl: string, version: ApiVersion): string {
  return `${unversionedBaseUrl(baseUrl)}/v${version}`;
}

/** What each version's document says of itself; the paths are scanned from the controllers. */
const DOCUMENT_INFO: Record<
  ApiVersion,
  { version: string; description: string; tags: Array<[name: string, description: string]> }
> = {
  '1': {
    version: '1.1.0',
    description:
      'Store orders, pet categories and the deprecated pet read. Every operation needs ' +
      '`Authorization: Bearer <API_KEY>`. Operations marked `x-stability: experimental` go beyond ' +
      'the original interface and may still change. Errors always have the body `{code, message, status}`.',
    tags: [
      ['store', 'Store orders: list, place, read, ship and cancel'],
      ['categories', 'Pet categories: list and create'],
      ['pets', 'Pets: the deprecated read of one pet'],
    ],
  },
  '2': {
    version: '2.0.0-beta.1',
    description:
      'Version 2, in beta: the store and category operations of v1 and the pets to order from, ' +
      'whose lists answer pages ' +
      '(`{data, nextCursor}` and a `Link: rel="next"` header) and take filters, and webhook ' +
      'subscriptions for events. Every operation ' +
      'needs `Authorization: Bearer <API_KEY>` and is marked `x-stability: beta` until v2 is ' +
      'declared stable. Errors always have the body `{code, message, status}`.',
    tags: [
      ['store', 'Store orders: list (paged, filtered), place, read, ship and cancel'],
      ['categories', 'Pet categories: list (paged) and create'],
      ['pets', 'Pets: list (paged, filtered) and read one'],
      [
        'webhooks',
        'Webhook subscriptions: signed events for every order and category change (docs/webhooks.md)',
      ],
    ],
  },
};

function documentConfig(config: AppConfig, version: ApiVersion): Omit<OpenAPIObject, 'paths'> {
  const info = DOCUMENT_INFO[version];
  const builder = new DocumentBuilder()
    .setTitle('Pet store API')
    .setDescription(info.description)
    .setVersion(info.version)
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key (psk_…)',
        description: 'An API key: psk_ followed by 43 characters',
      },
      'bearer',
    )
    .addSecurityRequirements('bearer');
  for (const [name, description] of info.tags) builder.addTag(name, description);
  // A relative server works wherever this instance is reached, so "Try it out" does too.
  builder.addServer(
    `/v${version}`,
    'This instance, wherever it runs (local, staging or production)',
  );
  if (config.publicBaseUrl) {
    builder.addServer(withVersionPrefix(config.publicBaseUrl, version), 'Production');
  }
  if (config.stagingBaseUrl) {
    builder.addServer(withVersionPrefix(config.stagingBaseUrl, version), 'Staging');
  }
  const options = builder.build();
  // The document is served to anyone, so every server it lists is meant for its readers.
  options.servers = options.servers?.map((server) =>
    Object.assign(server, { 'x-internal': false }),
  );
  return options;
}

/**
 * One version's document cut from the scan of every controller: its paths without their
 * `/vN` prefix, and only the schemas they reach. Keys keep the scan's order, so the v1
 * document is exactly what it was when v1 was the only version.
 */
function versionDocument(
  scanned: OpenAPIObject,
  config: Omit<OpenAPIObject, 'paths'>,
  version: ApiVersion,
): OpenAPIObject {
  const prefix = `/v${version}`;
  const paths = Object.fromEntries(
    Object.entries(scanned.paths)
      .filter(([path]) => path.startsWith(`${prefix}/`))
      .map(([path, item]) => [path.slice(prefix.length), item]),
  );
  const schemas = scanned.components?.schemas ?? {};
  const reached = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      const name =
        key === '$ref' && typeof child === 'string'
          ? /^#\/components\/schemas\/(.+)$/.exec(child)?.[1]
          : undefined;
      if (name === undefined) visit(child);
      else if (!reached.has(name)) {
        reached.add(name);
        visit(schemas[name]);
      }
    }
  };
  visit(paths);
  return {
    ...scanned,
    info: config.info,
    tags: config.tags,
    servers: config.servers,
    paths,
    components: {
      ...scanned.components,
      schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => reached.has(name))),
    },
  };
}

/**
 * The documents as both readers offer them, Swagger UI's selector and the reference's switch:
 * the newest first, each with its name.
 */
const DOCUMENT_MENU: DocumentMenu = [
  { version: '2', name: 'v2 (beta)' },
  { version: '1', name: 'v1' },
];

/**
 * Serves each version's document at /openapi/vN.json (v1 also at /docs-json, its address
 * before v2), Swagger UI at /docs with a choice between them, and Redoc's reference at
 * /reference/vN (reference.ts).
 */
export function setupOpenApi(
  app: INestApplication,
  config: AppConfig,
): Record<ApiVersion, OpenAPIObject> {
  const scanned = SwaggerModule.createDocument(app, documentConfig(config, '1'));
  const documents = Object.fromEntries(
    API_VERSIONS.map((version) => {
      const document = versionDocument(scanned, documentConfig(config, version), version);
      documentCommonResponses(document);
      closeRequestBodies(document);
      return [version, document];
    }),
  ) as Record<ApiVersion, OpenAPIObject>;
  for (const version of API_VERSIONS) {
    SwaggerModule.setup(`openapi/v${version}`, app, documents[version], {
      ui: false,
      raw: ['json'],
      jsonDocumentUrl: `openapi/v${version}.json`,
    });
  }
  SwaggerModule.setup('docs', app, documents['1'], {
    jsonDocumentUrl: 'docs-json',
    raw: ['json'],
    customSiteTitle: 'Pet store API',
    // The selector in the top bar: Swagger UI loads the first of these documents.
    explorer: true,
    customCss: STABILITY_BADGE_CSS,
    swaggerOptions: {
      persistAuthorization: true,
      displayOperationId: true,
      plugins: [downloadUrlPlugin, stabilityBadgePlugin],
      urls: DOCUMENT_MENU.map(({ version, name }) => ({
        url: `/openapi/v${version}.json`,
        name,
      })),
    },
  });
  setupReference(app, DOCUMENT_MENU);
  return documents;
}

/**
 * Headers the global guard (ApiKeyGuard, through RateLimiter) sends on every answer it has
 * counted, while limiting is on (a limit of 0 turns it off). The guard runs before pipes,
 * interceptors and handlers, so that is every answer of an operation: 2xx and 4xx, the 401 and
 * the 429 included, and a 5xx from anything after the guard. Not the 431, which the HTTP server answers before any route.
 */
const RATE_LIMIT_HEADERS: Record<string, HeaderObject> = {
  'X-RateLimit-Limit': {
    description:
      'Requests allowed per minute to this API key (without a valid key: to this client address)',
    // RATE_LIMIT_PER_MINUTE and RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE are at most 1 000 000.
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 1_000_000, example: 600 },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current one-minute window',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 1_000_000, example: 599 },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the current window ends',
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: 60, example: 42 },
  },
};

/** Sent on every answer (errors too) to a browser whose Origin is one of CORS_ORIGINS. */
const CORS_HEADERS: Record<string, HeaderObject> = {
  'Access-Control-Allow-Origin': {
    description: "The caller's Origin, when CORS_ORIGINS lists it (CORS is off unless configured)",
    schema: { type: 'string', format: 'uri', maxLength: 2048, example: 'https://app.example.com' },
  },
};

/** Sent on every answer, the 431 included (src/common/http/request-id.middleware.ts). */
const REQUEST_ID_HEADERS: Record<string, HeaderObject> = {
  'X-Request-Id': {
    description:
      "The request's id, also in the service's log line for it: the caller's X-Request-Id when " +
      'it is 1 to 128 of A-Z a-z 0-9 . _ : - (and could not be an API key), else a new UUID. ' +
      'Quote it when reporting a problem.',
    required: true,
    schema: {
      type: 'string',
      pattern: '^[A-Za-z0-9._:-]{1,128}$',
      minLength: 1,
      maxLength: 128,
      example: '3f8e2c1a-7b4d-4e5f-9a6b-0c1d2e3f4a5b',
    },
  },
};

/**
 * Request headers over 16 KiB: the HTTP server answers 431 before any route is chosen, so any
 * operation can get it (docs/api.md, Errors), and it closes the connection.
 */
const HEADERS_TOO_LARGE = 'HeadersTooLarge';
const HEADERS_TOO_LARGE_RESPONSE: ResponseObject = {
  description: `${ErrorCode.HEADERS_TOO_LARGE}: the request's headers are larger than 16 KiB; answered before any route, and the connection is closed`,
  headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } },
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      examples: { [ErrorCode.HEADERS_TOO_LARGE]: errorExample(ErrorCode.HEADERS_TOO_LARGE) },
    },
  },
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

function operationsOf(document: OpenAPIObject): OperationObject[] {
  return Object.values<PathItemObject>(document.paths).flatMap((item) =>
    HTTP_METHODS.flatMap((method) => item[method] ?? []),
  );
}

/**
 * Documents what app-wide machinery adds to every operation, once, as components referenced
 * from each: the headers on every response (the request id, the rate limiter's, CORS) and
 * the 431 of the HTTP server. A decorator could not do it: nestjs/swagger replaces a status's
 * whole response entry when a second decorator describes it, so the headers of its own
 * (Location, Deprecation, Retry-After) would be lost.
 */
function documentCommonResponses(document: OpenAPIObject): void {
  document.components = {
    ...document.components,
    headers: {
      ...document.components?.headers,
      ...REQUEST_ID_HEADERS,
      ...RATE_LIMIT_HEADERS,
      ...CORS_HEADERS,
    },
    responses: {
      ...document.components?.responses,
      [HEADERS_TOO_LARGE]: HEADERS_TOO_LARGE_RESPONSE,
    },
  };
  const refs = (headers: Record<string, HeaderObject>) =>
    Object.fromEntries(
      Object.keys(headers).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
    );
  for (const operation of operationsOf(document)) {
    for (const response of Object.values(operation.responses)) {
      if (response === undefined || '$ref' in response) continue;
      response.headers = {
        ...response.headers,
        ...refs(REQUEST_ID_HEADERS),
        ...refs(RATE_LIMIT_HEADERS),
        ...refs(CORS_HEADERS),
      };
    }
    // An integer-like key: it takes its place among the statuses by itself.
    operation.responses['431'] = { $ref: `#/components/responses/${HEADERS_TOO_LARGE}` };
  }
}

/**
 * Every request body refuses fields it does not name (the validation pipe's whitelist), so
 * each body's schema says `additionalProperties: false`.
 */
function closeRequestBodies(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  for (const { requestBody } of operationsOf(document)) {
    if (requestBody === undefined || '$ref' in requestBody) continue;
    for (const { schema } of Object.values(requestBody.content)) {
      const name = schema && '$ref' in schema ? /[^/]+$/.exec(schema.$ref)?.[0] : undefined;
      const target = name === undefined ? undefined : schemas[name];
      if (target !== undefined && !('$ref' in target)) target.additionalProperties = false;
    }
  }
}
