import type { NextFunction, Request, Response } from 'express';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import type { ReadRouter } from './read-router.js';
import { ServedRequest, serving } from './served-request.js';

/** Methods that never write. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * With read routing on: serves each request with the request known to the ReadRouter (its reads
 * know their key, once the guard has found it). As its answer's head is written, before any
 * byte of it, the served request lets go of the request (ServedRequest.close), and after a
 * request that may have written and sent a statement that may commit, success or error (an
 * error can follow a commit), the caller's write is recorded (ReadRouter.recordWrite): the
 * key's next read, through any instance, goes to a replica only once that replica has it. A
 * middleware rather than a Nest interceptor: an interceptor puts every request through an
 * Observable pipeline (docs/performance.md, The service's pieces).
 */
export function readYourWritesMiddleware(router: ReadRouter) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const served = new ServedRequest(
      request as AuthenticatedRequest,
      !READ_METHODS.has(request.method),
    );
    // Every answer's head goes through writeHead (Node's implicit header calls it too).
    // eslint-disable-next-line @typescript-eslint/unbound-method -- applied to this response
    const writeHead = response.writeHead;
    response.writeHead = function (this: Response, ...args: unknown[]) {
      if (!served.closed) {
        served.close();
        const keyId = served.keyId;
        if (served.committed && keyId !== undefined) router.recordWrite(keyId);
      }
      return Reflect.apply(writeHead, this, args) as Response;
    } as Response['writeHead'];
    serving(served, next);
  };
}
