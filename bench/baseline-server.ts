/**
 * The raw baseline, the practical limit: the benchmarked endpoints on bare `node:http` + `pg`
 * (baseline-endpoints.ts: the same bearer check, SQL, JSON and headers as the service, and
 * nothing else), routed by hand. `npm run bench` runs it in its own process beside the service
 * and reports the service's numbers as a ratio of these. Environment: see
 * baseline-endpoints.ts, and PORT.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  HttpError,
  JSON_TYPE,
  openEndpoints,
  readJsonObject,
  requestId,
} from './baseline-endpoints.js';

const endpoints = await openEndpoints(process.env);

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const known =
    error instanceof HttpError
      ? error
      : new HttpError(500, 'INTERNAL_ERROR', 'An unexpected error occurred; it has been logged.');
  if (!(error instanceof HttpError)) {
    process.stderr.write(`baseline: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  for (const [name, value] of Object.entries(known.headers)) response.setHeader(name, value);
  sendJson(response, known.status, known.body());
}

const ORDER_PATH = /^\/v1\/store\/orders\/([^/]+)$/;
const PET_PATH = /^\/v1\/pets\/([^/]+)$/;

async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
  response.setHeader('X-Request-Id', requestId(request));
  endpoints.setSecurityHeaders(response);
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const method = request.method ?? 'GET';

  if (path === '/health/live' || path === '/health/ready') {
    if (path === '/health/ready') await endpoints.ready();
    return sendJson(response, 200, { status: 'ok' });
  }
  const pet = PET_PATH.exec(path);
  if (pet) {
    for (const [name, value] of endpoints.petDeprecationHeaders(pet[1])) {
      response.setHeader(name, value);
    }
  }
  const order = ORDER_PATH.exec(path);
  const known =
    (path === '/v1/categories' && (method === 'GET' || method === 'POST')) ||
    (path === '/v1/store/orders' && method === 'GET') ||
    (order !== null && method === 'DELETE') ||
    (pet !== null && method === 'GET');
  if (!known) {
    throw new HttpError(404, 'NOT_FOUND', 'No such route.');
  }
  endpoints.countRequest(await endpoints.authenticate(request.headers.authorization), response);
  if (path === '/v1/categories') {
    return method === 'GET'
      ? sendJson(response, 200, await endpoints.listCategories())
      : sendJson(response, 201, await endpoints.createCategory(await readJsonObject(request)));
  }
  if (path === '/v1/store/orders') return endpoints.sendOrderList(response);
  if (order?.[1] !== undefined) {
    await endpoints.cancelOrder(order[1]);
    response.writeHead(204);
    response.end();
    return;
  }
  if (pet?.[1] !== undefined) return sendJson(response, 200, await endpoints.getPet(pet[1]));
}

const server = createServer((request, response) => {
  route(request, response).catch((error: unknown) => sendError(response, error));
});

server.keepAliveTimeout = endpoints.keepAliveTimeoutMs;
const port = Number(process.env.PORT ?? 3100);
server.listen(port, () => {
  process.stdout.write(`baseline listening on ${port}\n`);
});

function shutdown(): void {
  server.close();
  server.closeAllConnections();
  endpoints.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
