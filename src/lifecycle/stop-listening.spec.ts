import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { pendingConnections, stopListening } from './stop-listening.js';

/**
 * A client in its own process, so it connects while this one's event loop is held: it sends a
 * GET and prints the status line it gets back, or the error code of its connection.
 */
const CLIENT = `
const socket = require('node:net').connect(Number(process.argv[1]), '127.0.0.1');
socket.on('connect', () => socket.write('GET / HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'));
let data = '';
socket.on('data', (chunk) => (data += chunk));
socket.on('error', (error) => { process.stdout.write(error.code); process.exit(0); });
socket.on('close', () => process.stdout.write(data.split('\\r\\n')[0]));
`;

/** Holds this process's event loop: nothing is accepted meanwhile. */
function holdEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function listening(host: string): Promise<Server> {
  const server = createServer((_request, response) => response.end('served'));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return server;
}

/**
 * Starts a client, holds the event loop until the kernel has queued the client's connection
 * for `server` and its request has had time to arrive, then runs `close` in that same turn.
 * Answers what the client printed.
 */
async function clientQueuedAtClose(server: Server, close: () => void): Promise<string> {
  const { port } = server.address() as { port: number };
  const client = spawn(process.execPath, ['-e', CLIENT, String(port)]);
  let output = '';
  client.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => client.on('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (pendingConnections(server) !== 1) {
    if (Date.now() > deadline) throw new Error('the client never connected');
    holdEventLoop(5);
  }
  holdEventLoop(200);
  close();
  await exited;
  return output;
}

/**
 * stopListening(server, maxWaitMs) called while a client's connection waits in the queue: what
 * the client got, what stopListening answered, and whether the server still listens after.
 */
async function stopWithClientQueued(
  maxWaitMs: number,
): Promise<{ answer: string; reset: number; stillListening: boolean }> {
  const server = await listening('127.0.0.1');
  let stopped: Promise<number> | undefined;
  const answer = await clientQueuedAtClose(server, () => {
    stopped = stopListening(server, maxWaitMs);
  });
  return { answer, reset: await stopped!, stillListening: server.listening };
}

describe('stopListening', () => {
  it.each(['127.0.0.1', '::'])('reads the accept queue of a listener on %s', async (host) => {
    const server = await listening(host);
    try {
      expect(pendingConnections(server)).toBe(0);
      const answer = clientQueuedAtClose(server, () => {
        expect(pendingConnections(server)).toBe(1);
      });
      expect(await answer).toBe('HTTP/1.1 200 OK');
    } finally {
      server.close();
    }
  });

  it('without it: closing a listener resets the connection the kernel had queued', async () => {
    const server = await listening('127.0.0.1');
    const answer = await clientQueuedAtClose(server, () => NetServer.prototype.close.call(server));
    expect(answer).toBe('ECONNRESET');
  });

  it('serves the connection queued when it is asked to stop, then closes the listener', async () => {
    const { answer, reset, stillListening } = await stopWithClientQueued(5000);
    expect(answer).toBe('HTTP/1.1 200 OK');
    expect(reset).toBe(0);
    expect(stillListening).toBe(false);
  });

  it('closes anyway once the wait runs out, and says how many connections that reset', async () => {
    const { answer, reset, stillListening } = await stopWithClientQueued(0);
    expect(answer).toBe('ECONNRESET');
    expect(reset).toBe(1);
    expect(stillListening).toBe(false);
  });
});
