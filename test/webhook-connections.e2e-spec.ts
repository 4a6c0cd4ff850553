import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ReceiverConnections } from '../src/webhooks/webhook-connections.js';
import { sendDelivery, type SendOptions } from '../src/webhooks/webhook-sender.js';
import type { ResolvedAddress } from '../src/webhooks/webhook-target.js';
import { eventually } from './support/eventually.js';

/*
 * The dispatcher's keep-alive connections to receivers (docs/webhooks.md, Delivery): the
 * sender against real receivers on two loopback addresses (127.0.0.1 and 127.0.0.2, both
 * loopback on Linux) on the same port, behind one name whose DNS answer the test chooses.
 */

/** An HTTP receiver on `host`: counts its connections, those still open, and its requests. */
class CountingReceiver {
  connections = 0;
  open = 0;
  requests = 0;
  readonly server: Server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      this.requests++;
      response.writeHead(204).end();
    });
  });

  constructor() {
    this.server.on('connection', (socket: Socket) => {
      this.connections++;
      this.open++;
      socket.once('close', () => this.open--);
    });
  }

  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((done) => this.server.listen(port, host, done));
    return (this.server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }
}

describe('kept-alive connections to webhook receivers (real sockets on loopback)', () => {
  const first = new CountingReceiver();
  const second = new CountingReceiver();
  let url: string;
  /** What the receiver's name resolves to now. */
  let answer: ResolvedAddress[];
  let counts: { opened: number; reused: number };
  let connections: ReceiverConnections;

  beforeAll(async () => {
    const port = await second.listen('127.0.0.2', 0);
    await first.listen('127.0.0.1', port);
    url = `http://receiver.example:${port}/hooks`;
  });
  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
  });
  beforeEach(() => {
    answer = [{ address: '127.0.0.1', family: 4 }];
    counts = { opened: 0, reused: 0 };
    connections = new ReceiverConnections({
      opened: () => counts.opened++,
      reused: () => counts.reused++,
    });
  });
  afterEach(() => connections.close());

  const send = (options: Partial<SendOptions> = {}) =>
    sendDelivery(url, { 'content-type': 'application/json' }, '{"id":"evt_1"}', {
      timeoutMs: 2000,
      allowPrivateTargets: true,
      connections,
      lookupHost: () => Promise.resolve(answer),
      ...options,
    });

  it('sends several deliveries to one receiver over one connection', async () => {
    const before = { connections: first.connections, requests: first.requests };
    for (let i = 0; i < 5; i++) expect((await send()).ok).toBe(true);
    expect(first.requests - before.requests).toBe(5);
    expect(first.connections - before.connections).toBe(1);
    expect(counts).toEqual({ opened: 1, reused: 4 });
  });

  it('opens a new connection to the new address when the check gives another one', async () => {
    const before = { first: first.requests, second: second.requests };
    const secondConnections = second.connections;
    expect((await send()).ok).toBe(true);
    answer = [{ address: '127.0.0.2', family: 4 }];
    expect((await send()).ok).toBe(true);
    expect((await send()).ok).toBe(true);
    // The connection to 127.0.0.1 was open and idle; the requests went to 127.0.0.2.
    expect(first.requests - before.first).toBe(1);
    expect(second.requests - before.second).toBe(2);
    expect(second.connections - secondConnections).toBe(1);
    expect(counts).toEqual({ opened: 2, reused: 1 });
  });

  it('fails an attempt whose address is now refused, without a request, although a connection is open', async () => {
    expect((await send()).ok).toBe(true);
    const before = { connections: first.connections, requests: first.requests };
    // Loopback is the only place a real receiver can be here: the first attempt is allowed to
    // reach it; now the same address is refused as the rule stands by default.
    const refused = await send({ allowPrivateTargets: false });
    expect(refused).toMatchObject({
      ok: false,
      responseStatus: null,
      error: 'the target is a private, loopback or link-local address',
    });
    expect(first.requests).toBe(before.requests);
    expect(first.connections).toBe(before.connections);
    expect(counts).toEqual({ opened: 1, reused: 0 });
  });

  it('closes the kept-alive connections on close (shutdown)', async () => {
    expect((await send()).ok).toBe(true);
    answer = [{ address: '127.0.0.2', family: 4 }];
    expect((await send()).ok).toBe(true);
    expect(first.open).toBeGreaterThan(0);
    expect(second.open).toBeGreaterThan(0);
    connections.close();
    // Left open, an idle connection would last 4 s.
    await eventually(() => first.open === 0 && second.open === 0, 1000);
  });

  it('sends again over a new connection when a reused one was closed by the receiver', async () => {
    // A receiver that answers the first request of each connection and drops the second, as a
    // server does when its idle timeout fires just as the connection is reused.
    let opened = 0;
    const dropping = createTcpServer((socket) => {
      opened++;
      let requests = 0;
      socket.on('data', (chunk: Buffer) => {
        if (!chunk.toString('latin1').startsWith('POST ')) return;
        if (++requests === 1) {
          socket.write('HTTP/1.1 204 No Content\r\nKeep-Alive: timeout=60\r\n\r\n');
        } else {
          socket.destroy();
        }
      });
    });
    await new Promise<void>((done) => dropping.listen(0, '127.0.0.1', done));
    const port = (dropping.address() as AddressInfo).port;
    try {
      const target = `http://receiver.example:${port}/hooks`;
      const sendTo = () =>
        sendDelivery(target, {}, '{}', {
          timeoutMs: 2000,
          allowPrivateTargets: true,
          connections,
          lookupHost: () => Promise.resolve(answer),
        });
      expect((await sendTo()).ok).toBe(true);
      expect(await sendTo()).toMatchObject({ ok: true, responseStatus: 204 });
      expect(opened).toBe(2);
      expect(counts).toEqual({ opened: 2, reused: 1 });
    } finally {
      connections.close();
      await new Promise<void>((done) => dropping.close(() => done()));
    }
  });
});
