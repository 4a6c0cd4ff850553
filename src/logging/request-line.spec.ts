import { Writable } from 'node:stream';
import { pino, type Level } from 'pino';
import { requestLineWriter, type RequestLine } from './request-line.js';

/** A pino logger whose lines land in `lines`, with a clock that stands still. */
function capturingLogger(lines: string[]) {
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return pino({ level: 'info', timestamp: () => ',"time":1796610491843' }, destination);
}

/** The object the request log middleware handed pino before it built its lines itself. */
function asPinoFields(line: RequestLine): object {
  return {
    req: { id: line.requestId, method: line.method, url: line.url },
    res:
      line.bytesSent === undefined
        ? { statusCode: line.statusCode }
        : { statusCode: line.statusCode, aborted: true, bytesSent: line.bytesSent },
    responseTime: line.responseTimeMs,
    route: line.route,
    keyPrefix: line.keyPrefix,
    err: line.err,
    ...line.traceIds,
  };
}

const CASES: [string, Level, RequestLine][] = [
  [
    'a finished answer with a key',
    'info',
    {
      requestId: '6f1c0d2e-8a44-4c7b-9a55-0c2d7d3f1b2a',
      method: 'GET',
      url: '/v1/categories',
      statusCode: 200,
      responseTimeMs: 3,
      route: '/v1/categories',
      keyPrefix: 'psk_AbC-_12',
      msg: 'GET /v1/categories 200',
    },
  ],
  [
    'a refusal without a key',
    'warn',
    {
      requestId: 'trace-abc-1',
      method: 'DELETE',
      url: '/v1/store/orders/9223372036854775807',
      statusCode: 401,
      responseTimeMs: 0,
      route: '/v1/store/orders/:orderId',
      msg: 'DELETE /v1/store/orders/:orderId 401',
    },
  ],
  [
    'an answer the client abandoned',
    'warn',
    {
      requestId: 'r-2',
      method: 'GET',
      url: '/v2/store/orders',
      statusCode: 499,
      bytesSent: 16384,
      responseTimeMs: 1250,
      route: '/v2/store/orders',
      keyPrefix: 'psk_zz',
      msg: 'GET /v2/store/orders 499 aborted by the client after 16384 bytes',
    },
  ],
  [
    'an answer the service cut, traced',
    'error',
    {
      requestId: 'r-3',
      method: 'GET',
      url: '/v1/store/orders',
      statusCode: 499,
      bytesSent: 0,
      responseTimeMs: 5001,
      route: '/v1/store/orders',
      err: 'Connection terminated unexpectedly',
      traceIds: { trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', span_id: '00f067aa0ba902b7' },
      msg: 'GET /v1/store/orders 499 cut by the service after 0 bytes: Connection terminated unexpectedly',
    },
  ],
  [
    'text a client chose: quotes, backslashes, control characters, non-ASCII',
    'warn',
    {
      requestId: 'id "quoted" \\ back\tslash\u0001',
      method: 'PATCH',
      url: '/v1/pets/%22%5C/caf\u00e9/\u2028/\ud83d\udc3e/' + 'x'.repeat(60),
      statusCode: 404,
      responseTimeMs: 12,
      route: 'unmatched',
      msg: 'PATCH unmatched 404',
    },
  ],
];

describe('requestLineWriter', () => {
  it.each(CASES)('writes %s byte for byte as pino does', (_name, level, line) => {
    const ours: string[] = [];
    const pinos: string[] = [];
    requestLineWriter(capturingLogger(ours))(level, line);
    capturingLogger(pinos)[level](asPinoFields(line), line.msg);
    expect(ours).toHaveLength(1);
    expect(ours).toEqual(pinos);
    expect(JSON.parse(ours[0])).toMatchObject({ req: { id: line.requestId }, msg: line.msg });
  });

  it("writes each level's number, and the time and bindings of the logger", () => {
    const lines: string[] = [];
    const logger = capturingLogger(lines).child({ service: 'petstore' });
    const write = requestLineWriter(logger);
    for (const level of ['info', 'warn', 'error'] as const) write(level, CASES[0][2]);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual(
      [30, 40, 50].map((level): unknown =>
        expect.objectContaining({ level, time: 1796610491843, service: 'petstore' }),
      ),
    );
  });
});
