import type { LoggerService } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../config/app-config.js';
import { DrainState } from './drain-state.js';
import { stopListening } from './stop-listening.js';

/**
 * A connection is closed at shutdown only once it has been idle this long. Closing a keep-alive
 * connection that looks idle races a request the balancer may be sending on it right then (the
 * request is lost); a balancer that closes its own idle connections sooner than this never meets
 * that race, so the shipped nginx config closes them after 4 s (deploy/nginx/nginx.conf).
 */
const IDLE_BEFORE_CLOSE_MS = 5000;

/**
 * How long the listener may wait for its accept queue to be empty (see stop-listening.ts). It
 * usually is, or is after the next accept; this bound matters only under a flood of new
 * connections.
 */
const ACCEPT_QUEUE_WAIT_MS = 1000;

/** What one connection is doing. */
interface ConnectionState {
  /** Answers under way on it (more than one while requests are pipelined). */
  answering: number;
  /** When it last became idle (Date.now()); meaningful while `answering` is 0. */
  idleSince: number;
  /** Its newest answer under way: at shutdown, the one told to close the connection. */
  newest: ServerResponse | null;
}

/** The server's open connections, what each is doing, and whether the listener is closed. */
export interface Connections {
  sockets: Map<Socket, ConnectionState>;
  closing: boolean;
}

/**
 * Tracks connections and answers, for the shutdown. The server's timeouts are set by
 * configureApp (src/common/http/http-server.ts), for the tests too.
 *
 * A request's answer is remembered on its connection's state, never added to a collection of
 * its own: a Set that every answer enters and leaves leaves copies of its table in V8's old
 * generation, which keep the answers they held (and all they point to) through young
 * collections until the next full one. That doubled what each young collection copied (see
 * docs/performance.md, "Answers kept alive by the shutdown's bookkeeping").
 */
export function prepareServer(server: Server): Connections {
  const connections: Connections = { sockets: new Map(), closing: false };
  server.on('connection', (socket: Socket) => {
    connections.sockets.set(socket, { answering: 0, idleSince: Date.now(), newest: null });
    socket.once('close', () => connections.sockets.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const state = connections.sockets.get(request.socket);
    // After the listener closed, every answer closes its connection: reconnect elsewhere.
    if (connections.closing) response.setHeader('Connection', 'close');
    if (state === undefined) return;
    state.answering++;
    state.newest = response;
    // on, not once: a response closes once (see metrics/http-metrics.ts).
    response.on('close', () => {
      state.answering--;
      if (state.newest === response) state.newest = null;
      if (state.answering === 0) state.idleSince = Date.now();
    });
  });
  return connections;
}

/**
 * On SIGTERM: readiness fails at once, and requests are served as usual for the drain delay
 * (a balancer needs a few health checks to notice). Then the listener closes, once no
 * connection waits in its accept queue; answers carry Connection: close; connections idle
 * for 5 s are closed; in-flight requests finish; the app closes its pool and Redis; exit 0.
 * All of it within SHUTDOWN_TIMEOUT_MS, else exit 1.
 * SIGINT (Ctrl-C) and SIGHUP (the terminal closed) skip the delay; without SIGHUP handled, a
 * closed terminal would end the process at once and leave its embedded PostgreSQL running.
 */
export function exitGracefullyOnSignals(
  app: NestExpressApplication,
  connections: Connections,
  config: AppConfig,
  logger: LoggerService,
  afterClose: () => Promise<void> = () => Promise.resolve(),
): void {
  let started = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (started) return;
    started = true;
    const deadline = setTimeout(() => {
      logger.error(
        `shutdown took longer than ${config.shutdown.timeoutMs} ms; exiting`,
        undefined,
        'Shutdown',
      );
      process.exit(1);
    }, config.shutdown.timeoutMs);
    deadline.unref();

    const drain = app.get(DrainState);
    drain.begin();
    const delay = signal === 'SIGTERM' ? config.shutdown.drainDelayMs : 0;
    logger.log(`${signal}: not ready any more; serving for ${delay} ms, then closing`, 'Shutdown');
    await sleep(delay);

    const server = app.getHttpServer();
    // 'close' comes once the listener is closed and every connection has ended.
    const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
    const reset = await stopListening(server, ACCEPT_QUEUE_WAIT_MS);
    if (reset > 0) {
      logger.warn(
        `stopped listening with ${reset} connections still queued after ${ACCEPT_QUEUE_WAIT_MS} ms; the kernel reset them`,
        'Shutdown',
      );
    }
    connections.closing = true;
    // A pipelined answer ahead of the newest keeps the connection open; the newest closes it.
    for (const { newest } of connections.sockets.values()) {
      if (newest && !newest.headersSent) newest.setHeader('Connection', 'close');
    }
    // A connection looks idle from the timestamps; before closing it, let pending input be
    // read (setImmediate runs after this turn's I/O) and check that no new bytes arrived, so a
    // request the balancer sent while our event loop was busy is served, not reset.
    const sweep = setInterval(() => {
      const now = Date.now();
      for (const [socket, state] of connections.sockets) {
        const since = state.idleSince;
        if (state.answering > 0 || now - since < IDLE_BEFORE_CLOSE_MS) continue;
        const bytesRead = socket.bytesRead;
        setImmediate(() => {
          if (
            state.answering === 0 &&
            state.idleSince === since &&
            socket.bytesRead === bytesRead
          ) {
            socket.destroy();
          }
        });
      }
    }, 100);
    await closed;
    clearInterval(sweep);

    await app.close();
    await afterClose();
    logger.log('closed; exiting', 'Shutdown');
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      shutdown(signal).catch((error: unknown) => {
        logger.error(
          `shutdown failed: ${error instanceof Error ? error.message : String(error)}`,
          undefined,
          'Shutdown',
        );
        process.exit(1);
      });
    });
  }
}
