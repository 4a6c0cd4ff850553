/**
 * The floor: a bare NestJS app on Express serving the GETs the bench loads (GET /v1/categories,
 * GET /v1/store/orders, GET /v1/pets/{id}) with the raw baseline's work for each
 * (baseline-endpoints.ts: the same bearer check, SQL, JSON and headers), and Nest's own
 * machinery around it: routing, one guard (the bearer check and the key's count for the
 * rate-limit headers), controllers, Nest's default exception filter. Nothing else: no
 * versioning, pipes, interceptors, logging, metrics or Swagger. Its settings are the
 * service's where they touch every answer: no body parser (no GET has a body), no ETag, no
 * X-Powered-By, the same Keep-Alive timeout.
 *
 * service ÷ bare Nest is what the service adds to the framework; bare Nest ÷ raw is what the
 * framework costs. Environment: see baseline-endpoints.ts, and PORT.
 */
import 'reflect-metadata';
import {
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  HttpException,
  Injectable,
  Module,
  Param,
  Res,
  UseGuards,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import {
  HttpError,
  openEndpoints,
  requestId,
  type CategoryJson,
  type PetJson,
} from './baseline-endpoints.js';

const endpoints = await openEndpoints(process.env);

/** The API's errors as Nest answers them: an HttpException's object is the body as it is. */
function nestError(error: unknown): unknown {
  return error instanceof HttpError ? new HttpException(error.body(), error.status) : error;
}

@Injectable()
class BearerGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    try {
      const keyHash = await endpoints.authenticate(
        http.getRequest<Request>().headers.authorization,
      );
      endpoints.countRequest(keyHash, http.getResponse<Response>());
      return true;
    } catch (error) {
      if (error instanceof HttpError) http.getResponse<Response>().set(error.headers);
      throw nestError(error);
    }
  }
}

@Controller('v1')
@UseGuards(BearerGuard)
class V1Controller {
  @Get('categories')
  listCategories(): Promise<CategoryJson[]> {
    return endpoints.listCategories();
  }

  @Get('store/orders')
  async listOrders(@Res() response: Response): Promise<void> {
    try {
      await endpoints.sendOrderList(response);
    } catch (error) {
      if (!response.headersSent) throw nestError(error);
      response.destroy();
    }
  }

  @Get('pets/:petId')
  async getPet(
    @Param('petId') petId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PetJson> {
    for (const [name, value] of endpoints.petDeprecationHeaders(petId)) {
      response.setHeader(name, value);
    }
    try {
      return await endpoints.getPet(petId);
    } catch (error) {
      throw nestError(error);
    }
  }
}

@Controller('health')
class HealthController {
  @Get('ready')
  async ready(): Promise<{ status: string }> {
    await endpoints.ready();
    return { status: 'ok' };
  }
}

@Module({ controllers: [V1Controller, HealthController], providers: [BearerGuard] })
class BareModule {}

const app = await NestFactory.create<NestExpressApplication>(BareModule, {
  bodyParser: false,
  logger: ['error', 'warn'],
});
app.disable('x-powered-by');
app.set('etag', false);
app.use((request: Request, response: Response, next: NextFunction) => {
  response.setHeader('X-Request-Id', requestId(request));
  endpoints.setSecurityHeaders(response);
  next();
});
app.getHttpServer().keepAliveTimeout = endpoints.keepAliveTimeoutMs;
const port = Number(process.env.PORT ?? 3200);
await app.listen(port);
process.stdout.write(`bare Nest listening on ${port}\n`);

function shutdown(): void {
  app
    .close()
    .then(() => endpoints.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
