import { SetMetadata, type ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

export const IS_PUBLIC = 'petstore:isPublic';

/** Exempts a route from the API key guard and the rate limiter (health checks). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** Per controller class, per handler: metadata is fixed once the app starts, so read it once. */
const publicRoutes = new WeakMap<object, WeakMap<object, boolean>>();

export function isPublicRoute(reflector: Reflector, context: ExecutionContext): boolean {
  const handler = context.getHandler();
  const controller = context.getClass();
  let handlers = publicRoutes.get(controller);
  if (!handlers) {
    handlers = new WeakMap();
    publicRoutes.set(controller, handlers);
  }
  let isPublic = handlers.get(handler);
  if (isPublic === undefined) {
    isPublic = reflector.getAllAndOverride<boolean>(IS_PUBLIC, [handler, controller]) === true;
    handlers.set(handler, isPublic);
  }
  return isPublic;
}
