import type { INestApplication } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { context, trace } from '@opentelemetry/api';
import { routeTemplate } from './route-template.js';
import { tracedRequest } from './trace-context.js';

const tracer = trace.getTracer('petstore-api');

type Handler = (this: unknown, ...args: unknown[]) => unknown;

/**
 * The `handler /v2/store/orders/{orderId}` span (docs/operating.md, Tracing): the controller's
 * work, under the request's span. Each controller's route methods are wrapped before the routes
 * are registered (call it before app.init()), so a request the sampler dropped pays one check.
 * Not an interceptor: one global interceptor puts every request of every route through Nest's
 * Observable pipeline, sampled or not, which cost a read more than the rest of tracing off the
 * sampled path (docs/performance.md, Tracing). Not OpenTelemetry's Nest instrumentation: it
 * supports Nest up to 11.
 */
export function traceHandlers(app: INestApplication): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const { metatype } of module.controllers.values()) {
      if (typeof metatype !== 'function') continue;
      const prototype = metatype.prototype as object;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
        if (typeof handler !== 'function' || !Reflect.hasOwnMetadata(PATH_METADATA, handler)) {
          continue;
        }
        Object.defineProperty(prototype, name, { value: withHandlerSpan(handler as Handler) });
      }
    }
  }
}

function withHandlerSpan(handler: Handler): Handler {
  const traced = function (this: unknown, ...args: unknown[]): unknown {
    const request = tracedRequest();
    const route = request === undefined ? undefined : routeTemplate(request);
    if (route === undefined) return Reflect.apply(handler, this, args);
    const span = tracer.startSpan(`handler ${route}`, { attributes: { 'http.route': route } });
    // Its SQL and Redis spans are the handler span's children.
    return context.with(trace.setSpan(context.active(), span), () => {
      let answer: unknown;
      try {
        answer = Reflect.apply(handler, this, args);
      } catch (error) {
        span.end();
        throw error;
      }
      if (answer instanceof Promise) return answer.finally(() => span.end());
      span.end();
      return answer;
    });
  };
  // Nest and Swagger read a handler's decorators from the function itself.
  for (const key of Reflect.getOwnMetadataKeys(handler)) {
    Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, handler), traced);
  }
  Object.defineProperty(traced, 'name', { value: handler.name });
  return traced;
}
