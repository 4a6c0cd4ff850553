import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually.js';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** The request's path and query, as sent. */
  url: string;
}

/**
 * What the receiver does with a request: answer a status (with headers, such as a redirect's
 * Location), or never answer (`hang`). A promise answers when it settles: a receiver that
 * holds its answer for a while.
 */
export type ReceiverAnswer =
  | number
  | 'hang'
  | { status: number; headers: Record<string, string> }
  | Promise<number | { status: number; headers: Record<string, string> }>;

/**
 * A real HTTP receiver on loopback: records every request to its current `url` (whatever the
 * query) and answers as the test says (200 unless told otherwise). Each `reset` gives it a new
 * `url`, so a delivery still in flight from an earlier test's subscription is answered but not
 * recorded. Requests to `otherUrl`, another path of the same generation, are recorded in
 * `elsewhere` and answered 200: where a redirect can point.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  readonly elsewhere: ReceivedWebhook[] = [];
  /** Requests to `url` not yet answered, and the most there have been at once since `reset`. */
  inFlight = 0;
  maxInFlight = 0;
  /** Connections opened to the receiver since `reset`. */
  connections = 0;
  private generation = 0;
  answer: (request: ReceivedWebhook, index: number) => ReceiverAnswer = () => 200;
  private readonly hanging = new Set<ServerResponse>();
  private readonly server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    const pathname = new URL(request.url ?? '/', 'http://receiver').pathname;
    const generation = this.generation;
    if (pathname === this.path) {
      // From the request's arrival until its answer is sent or its connection closes.
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      response.once('close', () => {
        if (generation === this.generation) this.inFlight--;
      });
    }
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        url: request.url ?? '/',
      };
      if (pathname === this.otherPath) {
        this.elsewhere.push(entry);
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      }
      if (pathname !== this.path) {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('stale');
        return;
      }
      this.received.push(entry);
      const answer = this.answer(entry, this.received.length - 1);
      if (answer === 'hang') {
        this.hanging.add(response);
        return;
      }
      void Promise.resolve(answer).then((settled) => {
        const { status, headers } =
          typeof settled === 'number' ? { status: settled, headers: {} } : settled;
        response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('ok');
      });
    });
  });

  constructor() {
    this.server.on('connection', () => this.connections++);
  }

  /** Answers every request left hanging so far with `status`. */
  answerHanging(status: number): void {
    for (const response of this.hanging) {
      response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    }
    this.hanging.clear();
  }

  async start(): Promise<this> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.path}`;
  }

  /** Another path of this generation, answered 200 and recorded in `elsewhere`. */
  get otherUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.otherPath}`;
  }

  private get path(): string {
    return `/hooks/${this.generation}`;
  }

  private get otherPath(): string {
    return `/elsewhere/${this.generation}`;
  }

  /** Requests whose webhook-id is `eventId`. */
  forEvent(eventId: string): ReceivedWebhook[] {
    return this.received.filter((entry) => entry.headers['webhook-id'] === eventId);
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
    await eventually(() => this.received.length >= count, timeoutMs);
    return this.received;
  }

  reset(): void {
    this.generation++;
    this.received.length = 0;
    this.elsewhere.length = 0;
    this.inFlight = 0;
    this.maxInFlight = 0;
    this.connections = 0;
    this.answer = () => 200;
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}
