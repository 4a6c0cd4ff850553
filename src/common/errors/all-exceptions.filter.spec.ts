import { jest } from '@jest/globals';
import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import { AllExceptionsFilter } from './all-exceptions.filter.js';
import { DomainError } from './domain-error.js';
import { ErrorCode } from './error-code.js';

/** A minimal Express response that records what the filter sends. */
function fakeHttp(requestId = 'req-123') {
  const sent: {
    status?: number;
    headers: Record<string, string>;
    body?: unknown;
    destroyed: boolean;
  } = {
    headers: {},
    destroyed: false,
  };
  const response = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    set(headers: Record<string, string>) {
      Object.assign(sent.headers, headers);
      return this;
    },
    json(body: unknown) {
      sent.body = body;
      return this;
    },
    destroy() {
      sent.destroyed = true;
    },
  };
  const request = {
    method: 'GET',
    path: '/v1/store/orders',
    headers: { 'x-request-id': requestId },
  };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
  return { host, sent, response };
}

describe('AllExceptionsFilter', () => {
  const filter = new AllExceptionsFilter();
  let logged: string[];

  beforeEach(() => {
    logged = [];
    jest
      .spyOn(Logger.prototype, 'error')
      .mockImplementation((message: unknown, stack?: unknown) => {
        logged.push(`${String(message)} ${String(stack)}`);
      });
  });
  afterEach(() => jest.restoreAllMocks());

  it('answers a DomainError with its code, message, status and headers', () => {
    const { host, sent } = fakeHttp();
    filter.catch(
      new DomainError(ErrorCode.UNAUTHORIZED, 'no key', {
        headers: { 'WWW-Authenticate': 'Bearer realm="petstore"' },
      }),
      host,
    );
    expect(sent).toMatchObject({
      status: 401,
      headers: { 'WWW-Authenticate': 'Bearer realm="petstore"' },
      body: { code: 'UNAUTHORIZED', message: 'no key', status: 401 },
    });
  });

  it("turns Nest's route 404 into NOT_FOUND without echoing the path", () => {
    const { host, sent } = fakeHttp();
    filter.catch(new NotFoundException('Cannot GET /v1/<script>'), host);
    expect(sent.body).toEqual({ code: 'NOT_FOUND', message: 'No such route.', status: 404 });
  });

  it('answers an unknown error with 500 INTERNAL_ERROR, leaking nothing, and logs it with the request id', () => {
    const { host, sent } = fakeHttp('req-abc');
    filter.catch(new Error('column "secret_sauce" does not exist at /srv/app/x.js:12'), host);
    expect(sent.status).toBe(500);
    expect(sent.body).toEqual({
      code: 'INTERNAL_ERROR',
      message: 'An unexpected error occurred; it has been logged.',
      status: 500,
    });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('req-abc');
    expect(logged[0]).toContain('secret_sauce');
  });

  it('cuts the connection when the response had already started (a failed stream), never a silent success', () => {
    const { host, sent, response } = fakeHttp();
    response.headersSent = true;
    filter.catch(new Error('connection lost mid-stream'), host);
    expect(sent.destroyed).toBe(true);
    expect(sent.body).toBeUndefined();
  });
});
