import type { INestApplication, NestApplicationOptions } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { errorBody, routeNotFound } from './common/errors/all-exceptions.filter.js';
import { createValidationPipe } from './common/http/validation.pipe.js';
import { requestIdMiddleware } from './common/http/request-id.middleware.js';
import type { AppConfig } from './config/app-config.js';

export const API_PREFIX = 'v1';

/**
 * Options for NestFactory.create. No global body parser: JSON bodies are read by
 * JsonBodyInterceptor, after authentication, on the routes that take one.
 */
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false };

/**
 * Everything main.ts and the e2e tests do to the app alike, so the tests test what ships:
 * configure, document, initialise (routes are registered), then catch what no route serves.
 */
export async function configureApp(
  app: NestExpressApplication,
  config: AppConfig,
): Promise<OpenAPIObject> {
  app.disable('x-powered-by');
  app.use(requestIdMiddleware);
  app.setGlobalPrefix(API_PREFIX, { exclude: ['health/live', 'health/ready'] });
  app.useGlobalPipes(createValidationPipe());
  const document = setupSwagger(app, config);
  await app.init();
  // Nest's own not-found handler only covers the /v1 prefix; `/`, `/v2/…` and the rest get
  // the same Error body here, after every route.
  app.use((_request: Request, response: Response) => {
    const error = routeNotFound();
    response.status(error.status).json(errorBody(error));
  });
  return document;
}

/** `https://api.example` → `https://api.example/v1`; a URL already ending in /v1 is kept. */
function withApiPrefix(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(`/${API_PREFIX}`) ? trimmed : `${trimmed}/${API_PREFIX}`;
}

function setupSwagger(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Pet store API')
    .setDescription(
      'Store orders, pet categories and the deprecated pet read. Every operation needs ' +
        '`Authorization: Bearer <API_KEY>`. Operations marked `x-stability: experimental` go beyond ' +
        'the original interface and may still change. Errors always have the body `{code, message, status}`.',
    )
    .setVersion('1.0.0')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'API key (psk_…)',
        description: 'An API key: psk_ followed by 43 characters',
      },
      'bearer',
    )
    .addSecurityRequirements('bearer')
    // A relative server works wherever this instance is reached, so "Try it out" does too.
    .addServer(`/${API_PREFIX}`, 'This instance');
  if (config.publicBaseUrl) builder.addServer(withApiPrefix(config.publicBaseUrl), 'Production');
  if (config.stagingBaseUrl) builder.addServer(withApiPrefix(config.stagingBaseUrl), 'Staging');

  const document = SwaggerModule.createDocument(app, builder.build(), { ignoreGlobalPrefix: true });
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs-json',
    raw: ['json'],
    customSiteTitle: 'Pet store API',
    swaggerOptions: { persistAuthorization: true, displayOperationId: true },
  });
  return document;
}
