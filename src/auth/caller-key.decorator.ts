import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthenticatedRequest } from './api-key.guard.js';

/**
 * The id of the API key that sent the request, for resources owned by a key. The global
 * ApiKeyGuard has set it on every route that is not @Public().
 */
export const CallerKeyId = createParamDecorator((_: unknown, context: ExecutionContext): number => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().apiKey;
  if (!principal) throw new Error('CallerKeyId on a route without an authenticated key');
  return principal.keyId;
});
