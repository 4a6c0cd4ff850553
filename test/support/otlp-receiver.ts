import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An attribute as OTLP/JSON writes it: one of the AnyValue fields. */
interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

/** One span as a test reads it, from OTLP/JSON (ids in hex, as OTLP/JSON writes them). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean | unknown[]>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
  resource: Record<string, string | number | boolean | unknown[]>;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}
interface OtlpTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/**
 * A real OTLP/HTTP receiver on loopback (`POST /v1/traces`, OTLP/JSON: the service runs with
 * OTEL_EXPORTER_OTLP_PROTOCOL=http/json). Keeps every request's raw text, for the test that
 * searches all of it for secrets, and the spans decoded.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly rawBodies: string[] = [];
  /** Requests to any path, counted: a service with tracing off must send none. */
  requests = 0;
  private readonly server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.requests++;
      const body = Buffer.concat(chunks).toString('utf8');
      this.rawBodies.push(body);
      if (request.url === '/v1/traces' && request.headers['content-type'] === 'application/json') {
        this.spans.push(...decode(JSON.parse(body) as OtlpTraceRequest));
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }
}

function decode(request: OtlpTraceRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributes(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: attributes(span.attributes),
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
        status: span.status ?? {},
        resource,
      })),
    );
  });
}

function attributes(list: OtlpAttribute[] = []): ReceivedSpan['attributes'] {
  return Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));
}

function plain(value: OtlpValue): string | number | boolean | unknown[] {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return (value.arrayValue?.values ?? []).map(plain);
}
