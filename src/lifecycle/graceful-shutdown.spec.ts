import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { eventually } from '../../test/support/eventually.js';
import { prepareServer, type Connections } from './graceful-shutdown.js';

describe('prepareServer: what each connection is doing', () => {
  let server: Server;
  let connections: Connections;
  /** Answers under way, in arrival order; the test ends them. */
  let answers: ServerResponse[];
  let client: Socket;
  let received: string;

  beforeEach(async () => {
    answers = [];
    server = createServer((_request, response) => answers.push(response));
    connections = prepareServer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    client = connect(port, '127.0.0.1');
    received = '';
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => (received += chunk));
    await new Promise<void>((resolve) => client.once('connect', resolve));
  });

  afterEach(async () => {
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const state = () => {
    const [only] = connections.sockets.values();
    if (only === undefined) throw new Error('no connection tracked');
    return only;
  };
  const answersReceived = () => received.split('HTTP/1.1 200').length - 1;

  it('counts pipelined answers, keeps the newest, and is idle only once the last has closed', async () => {
    await eventually(() => connections.sockets.size === 1);
    const connectedAt = state().idleSince;
    client.write('GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually(() => answers.length === 2);
    expect(state().answering).toBe(2);
    expect(state().newest).toBe(answers[1]);

    answers[0]?.end('a');
    await eventually(() => answersReceived() === 1);
    expect(state().answering).toBe(1);
    expect(state().newest).toBe(answers[1]);
    expect(state().idleSince).toBe(connectedAt);

    const beforeLast = Date.now();
    answers[1]?.end('b');
    await eventually(() => answersReceived() === 2 && state().answering === 0);
    // No answer stays reachable from the bookkeeping once it has closed.
    expect(state().newest).toBeNull();
    expect(state().idleSince).toBeGreaterThanOrEqual(beforeLast);

    client.destroy();
    await eventually(() => connections.sockets.size === 0);
  });

  it('tells every answer after the listener closed to close its connection', async () => {
    connections.closing = true;
    client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await eventually(() => answers.length === 1);
    answers[0]?.end('done');
    await eventually(() => answersReceived() === 1);
    expect(received).toMatch(/\r\nConnection: close\r\n/i);
  });
});
