import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * The middlewares every request passes, in order, mounted as one Express layer. Express's
 * router spends more on each layer it passes (matching its path, its parameters, its prefix)
 * than most of these middlewares spend on their work, and every request passes all of them
 * (docs/performance.md, One guard, one middleware layer). A middleware here behaves as it
 * would in its own layer: `next()` runs the one after it, `next(error)` (or a throw, or a
 * rejected promise) skips the rest and hands the error to Express.
 */
export class MiddlewareChain {
  private readonly middlewares: RequestHandler[] = [];

  /** Adds `middleware` after the ones already added. */
  use(middleware: RequestHandler): this {
    this.middlewares.push(middleware);
    return this;
  }

  /** The one Express middleware that runs them all. */
  handler(): RequestHandler {
    const middlewares = [...this.middlewares];
    return (request: Request, response: Response, next: NextFunction): void => {
      let index = 0;
      const step = (error?: unknown): void => {
        // As Express's own next: only a truthy value is an error.
        if (error) return next(error);
        if (index === middlewares.length) return next();
        const middleware = middlewares[index++];
        try {
          const result: unknown = middleware(request, response, step);
          if (result instanceof Promise) result.catch(step);
        } catch (thrown) {
          step(thrown);
        }
      };
      step();
    };
  }
}
