import type { NextFunction, Request, Response } from 'express';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ReadRouter } from './read-router.js';
import { readYourWritesMiddleware } from './read-your-writes.middleware.js';
import { servedRequest, type ServedRequest } from './served-request.js';

// A full collection on demand, to see what an answered request's context still keeps alive.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** The keys whose writes the middleware recorded. */
function recordingRouter(): { router: ReadRouter; recorded: number[] } {
  const recorded: number[] = [];
  const router = { recordWrite: (keyId: number) => recorded.push(keyId) };
  return { router: router as unknown as ReadRouter, recorded };
}

interface Served {
  /** The request, weakly: alive only while something else holds it. */
  request: WeakRef<object>;
  served: ServedRequest;
  /** A timer made while serving, as the socket's keep-alive timer is: it keeps the context. */
  timer: NodeJS.Timeout;
}

/**
 * Serves one request of `method` by key 7 through the middleware, which (for a write) commits,
 * and writes its answer's head.
 */
function serveOne(router: ReadRouter, method: string): Served {
  const request = { method, apiKey: { keyId: 7 } };
  const response = { writeHead: () => response };
  let served: ServedRequest | undefined;
  let timer: NodeJS.Timeout | undefined;
  const next: NextFunction = () => {
    served = servedRequest();
    if (served?.writes) served.committed = true;
    timer = setTimeout(() => undefined, 60000);
  };
  readYourWritesMiddleware(router)(
    request as unknown as Request,
    response as unknown as Response,
    next,
  );
  response.writeHead();
  return { request: new WeakRef(request), served: served!, timer: timer! };
}

/** After the current job (a WeakRef's target is kept to its end), a full collection. */
async function afterCollection(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
}

describe('readYourWritesMiddleware', () => {
  it.each(['POST', 'GET'])(
    'lets go of a %s request once its answer is written, though work it started goes on',
    async (method) => {
      const { router } = recordingRouter();
      const { request, served, timer } = serveOne(router, method);
      try {
        await afterCollection();
        expect(request.deref()).toBeUndefined();
        expect(served.closed).toBe(true);
        // A streamed answer goes on reading after its head: its reads still know the caller.
        expect(served.keyId).toBe(7);
      } finally {
        clearTimeout(timer);
      }
    },
  );

  it("records a write's key as its answer is written, and a read's not at all", () => {
    const { router, recorded } = recordingRouter();
    const write = serveOne(router, 'POST');
    expect(recorded).toEqual([7]);
    const read = serveOne(router, 'GET');
    expect(read.served.committed).toBe(false);
    expect(recorded).toEqual([7]);
    clearTimeout(write.timer);
    clearTimeout(read.timer);
  });
});
