import type { Server } from 'node:http';
import type { AppConfig } from '../../config/app-config.js';
import { sendClientErrorsAsJson, type Rejection } from './client-error.js';

/**
 * How often Node looks for requests past HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS. Node's
 * default, 30 s, would let a slow request live up to 30 s past its limit; the check walks only
 * the connections that are receiving a request, so once a second costs nothing.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/** Options of Node's HTTP server that its type leaves out (both are read at run time). */
interface ServerOptions {
  /** Read when the server starts listening. */
  connectionsCheckingInterval: number;
  /** Read for each request. */
  requireHostHeader: boolean;
}

/**
 * Node's HTTP server as this service runs it (main.ts and the tests alike, before it listens):
 * its timeouts (docs/configuration.md), and the Error body (docs/api.md, Errors) on the answers
 * Node would otherwise write bare: client errors (`onRejected` reports the ones no request
 * carries), a missing Host and an unmet Expect (answered by the app, see
 * http-semantics.middleware.ts, so they are logged and counted like any other answer).
 */
export function configureHttpServer(
  server: Server,
  http: AppConfig['http'],
  onRejected: (rejection: Rejection) => void,
): void {
  // Keep-alive longer than the balancer's idle timeout: the balancer, not us, closes idle sockets.
  server.keepAliveTimeout = http.keepAliveTimeoutMs;
  // A request is timed from its first byte; an idle keep-alive connection is not timed by either.
  server.headersTimeout = http.headersTimeoutMs;
  server.requestTimeout = http.requestTimeoutMs;
  const options = server as Server & ServerOptions;
  options.connectionsCheckingInterval = TIMEOUT_CHECK_INTERVAL_MS;
  // Node answers a missing Host with a bare 400 of its own, which no middleware sees.
  options.requireHostHeader = false;
  // With a listener, Node leaves an Expect other than 100-continue to us: the app answers it.
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  sendClientErrorsAsJson(server, onRejected);
}
