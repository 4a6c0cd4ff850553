import type { IncomingMessage } from 'node:http';
import { matchedRoute } from '../common/http/matched-route.js';

/**
 * The route a request matched as OpenAPI writes it (`/v2/store/orders/{orderId}`), for the
 * HTTP span's name and `http.route`; undefined when no route matched.
 */
export function routeTemplate(request: IncomingMessage): string | undefined {
  const route = matchedRoute(request);
  return route === undefined ? undefined : asTemplate(route);
}

/** Each route's template, made once: the routes are the service's own, a few dozen. */
const templates = new Map<string, string>();

/** An Express route (`/v2/store/orders/:orderId`) as OpenAPI writes it (`{orderId}`). */
export function asTemplate(route: string): string {
  let template = templates.get(route);
  if (template === undefined) {
    template = route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    templates.set(route, template);
  }
  return template;
}
