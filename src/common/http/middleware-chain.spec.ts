import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { MiddlewareChain } from './middleware-chain.js';

/** A middleware that records its name in the X-Ran header, then goes on. */
const mark =
  (name: string): RequestHandler =>
  (_request, response, next) => {
    response.append('X-Ran', name);
    next();
  };

const CASES: Array<{ name: string; middlewares: RequestHandler[] }> = [
  { name: 'runs each in order, then the route', middlewares: [mark('a'), mark('b'), mark('c')] },
  {
    name: 'goes on when a middleware calls next later',
    middlewares: [mark('a'), (_q, _s, next) => void setImmediate(next), mark('b')],
  },
  {
    name: 'skips the rest and the route on next(error)',
    middlewares: [mark('a'), (_q, _s, next) => next(new Error('refused')), mark('b')],
  },
  {
    name: 'treats a throw as next(error)',
    middlewares: [
      mark('a'),
      () => {
        throw new Error('thrown');
      },
      mark('b'),
    ],
  },
  {
    // No Express frame is below a middleware run from a later turn: the chain must catch it.
    name: 'treats a throw after a later next as next(error)',
    middlewares: [
      (_q, _s, next) => void setImmediate(next),
      () => {
        throw new Error('thrown later');
      },
    ],
  },
  {
    name: 'treats a rejected promise as next(error)',
    middlewares: [
      mark('a'),
      async () => {
        await Promise.resolve();
        throw new Error('rejected');
      },
      mark('b'),
    ],
  },
  {
    name: 'stops where a middleware answers',
    middlewares: [mark('a'), (_q, response) => void response.status(401).send('no'), mark('b')],
  },
  { name: 'runs the route when empty', middlewares: [] },
];

const reportError: ErrorRequestHandler = (error: Error, _request, response, _next) => {
  response.status(500).send(error.message);
};

/** An app with `mount` applied before one route and an error handler. */
function app(mount: (app: express.Express) => void): express.Express {
  const app = express();
  mount(app);
  app.get('/x', (_request, response) => {
    response.send('route');
  });
  app.use(reportError);
  return app;
}

async function answer(app: express.Express) {
  const { status, text, headers } = await request(app).get('/x');
  return { status, text, ran: headers['x-ran'] as string | undefined };
}

describe('MiddlewareChain', () => {
  it.each(CASES)('$name, as the same middlewares in their own layers do', async (c) => {
    const layers = await answer(app((app) => c.middlewares.forEach((m) => app.use(m))));
    const chain = new MiddlewareChain();
    for (const middleware of c.middlewares) chain.use(middleware);
    const chained = await answer(app((app) => app.use(chain.handler())));
    expect(chained).toEqual(layers);
  });

  it('answers what the middlewares decided, not only what layers do', async () => {
    // The comparison above holds only if the cases differ: each shows its own outcome.
    const outcomes = await Promise.all(
      CASES.map(({ middlewares }) => {
        const chain = new MiddlewareChain();
        for (const middleware of middlewares) chain.use(middleware);
        return answer(app((app) => app.use(chain.handler())));
      }),
    );
    expect(outcomes).toEqual([
      { status: 200, text: 'route', ran: 'a, b, c' },
      { status: 200, text: 'route', ran: 'a, b' },
      { status: 500, text: 'refused', ran: 'a' },
      { status: 500, text: 'thrown', ran: 'a' },
      { status: 500, text: 'thrown later', ran: undefined },
      { status: 500, text: 'rejected', ran: 'a' },
      { status: 401, text: 'no', ran: 'a' },
      { status: 200, text: 'route', ran: undefined },
    ]);
  });
});
