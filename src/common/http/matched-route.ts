import type { IncomingMessage } from 'node:http';

/**
 * The route pattern a request matched (`/v1/store/orders/:orderId`), not its raw URL: it groups
 * well and holds no ids. Undefined when no controller route matched (a 404). nestjs-pino mounts
 * its middleware as a route on a wildcard (`{/*splat}`), which sets `request.route` too; no
 * controller route has a wildcard, so one means nothing matched.
 */
export function matchedRoute(request: IncomingMessage): string | undefined {
  const path = (request as { route?: { path?: unknown } }).route?.path;
  return typeof path === 'string' && !path.includes('*') ? path : undefined;
}
