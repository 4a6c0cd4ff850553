import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What the receiver does with a request: answer a status, or never answer (`hang`). */
export type ReceiverAnswer = number | 'hang';

/**
 * A real HTTP receiver on loopback: records every request to its current `url` and answers as
 * the test says (200 unless told otherwise). Each `reset` gives it a new `url`, so a delivery
 * still in flight from an earlier test's subscription is answered but not recorded.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private generation = 0;
  answer: (request: ReceivedWebhook, index: number) => ReceiverAnswer = () => 200;
  private readonly hanging = new Set<ServerResponse>();
  private readonly server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== this.path) {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('stale');
        return;
      }
      const entry = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      this.received.push(entry);
      const answer = this.answer(entry, this.received.length - 1);
      if (answer === 'hang') {
        this.hanging.add(response);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });

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

  private get path(): string {
    return `/hooks/${this.generation}`;
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
    this.answer = () => 200;
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}

/** Waits until `condition` holds (polled every 25 ms), or fails after `timeoutMs`. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((wait) => setTimeout(wait, 25));
  }
}
