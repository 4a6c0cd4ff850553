import type { Server } from 'node:net';
import { Server as NetServer } from 'node:net';
import { listeningSockets } from './listening-sockets.js';

/**
 * How many connections the kernel has completed for this listener that Node has not accepted
 * yet (the listener's accept queue), or undefined where that cannot be read: Linux shows it as
 * a listening socket's rx_queue in /proc/self/net/tcp (tcp6 for `::`).
 */
export function pendingConnections(server: Server): number | undefined {
  const address = server.address();
  // Not listening, or on a pipe.
  if (address === null || typeof address === 'string') return undefined;
  const table = address.family === 'IPv6' ? '/proc/self/net/tcp6' : '/proc/self/net/tcp';
  const queued = listeningSockets(table)?.find(({ port }) => port === address.port)?.acceptQueue;
  return queued === undefined || Number.isNaN(queued) ? undefined : queued;
}

/**
 * Closes the listener without resetting the connections in its accept queue. Closing a
 * listening socket makes the kernel reset every connection it completed that the process had
 * not accepted yet; a balancer that opened one of those has already sent its request, and
 * cannot pass a POST on to another instance (docs/operating.md, Running behind a load
 * balancer). So the listener closes when the queue is empty: at once if it is, else right
 * after accepting a connection leaves it empty (in the 'connection' event, which Node emits
 * inside its accept loop, before any other work of the turn can let the queue fill again).
 * After `maxWaitMs` of a queue that never empties, it closes anyway.
 *
 * Resolves once the listener is closed (its connections may still be open), with the number
 * of queued connections that closing reset: 0 unless the wait ran out.
 */
export function stopListening(server: Server, maxWaitMs: number): Promise<number> {
  return new Promise((resolve) => {
    const pending = pendingConnections(server) ?? 0;
    if (pending === 0 || maxWaitMs <= 0) {
      closeListener(server);
      resolve(pending);
      return;
    }
    const deadline = setTimeout(() => close(pendingConnections(server) ?? 0), maxWaitMs);
    const close = (reset: number): void => {
      server.off('connection', closeIfEmpty);
      clearTimeout(deadline);
      closeListener(server);
      resolve(reset);
    };
    const closeIfEmpty = (): void => {
      if (!pendingConnections(server)) close(0);
    };
    server.on('connection', closeIfEmpty);
  });
}

/**
 * net.Server#close, not http.Server#close: the latter also drops idle keep-alive connections
 * at once, racing requests a balancer is sending on them right now.
 */
function closeListener(server: Server): void {
  NetServer.prototype.close.call(server);
}
