import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { ResolvedAddress } from './webhook-target.js';

/**
 * How long a connection to a receiver stays open unused. Under the 5 s that Node's servers keep
 * one (the agent also closes a connection a second before the `Keep-Alive: timeout` a
 * receiver announces), so the receiver rarely closes one just as an attempt reuses it.
 */
export const KEEP_ALIVE_IDLE_MS = 4000;

/** Receivers (an origin and its checked addresses) with open connections at most; the least recently used is closed beyond. */
const MAX_RECEIVERS = 256;

/** Told each time an attempt opens a connection or reuses one (for the metrics). */
export interface ConnectionCounter {
  opened(): void;
  reused(): void;
}

/**
 * Keep-alive connections to receivers, one pool (an http or https Agent) per origin and set of
 * addresses that the SSRF check passed (docs/webhooks.md, Delivery). The pool connects only to
 * those addresses, never to a second answer from DNS; a check that gives other addresses gets
 * another pool, so no attempt goes over a connection opened to an address that was not just
 * checked. Idle connections close after KEEP_ALIVE_IDLE_MS; `close` ends them all (shutdown).
 */
export class ReceiverConnections {
  private readonly pools = new Map<string, http.Agent>();
  private readonly known = new WeakSet<Socket>();

  constructor(private readonly counter?: ConnectionCounter) {}

  /** The pool for `target` at `addresses` (checked, in the order to try), made when new. */
  poolFor(target: URL, addresses: readonly ResolvedAddress[]): http.Agent {
    const key = `${target.protocol}//${target.host} ${addresses
      .map((entry) => entry.address)
      .sort()
      .join(' ')}`;
    const pool = this.pools.get(key);
    if (pool !== undefined) {
      // Most recently used last: the Map's order is the eviction order.
      this.pools.delete(key);
      this.pools.set(key, pool);
      return pool;
    }
    const options = {
      keepAlive: true,
      timeout: KEEP_ALIVE_IDLE_MS,
      scheduling: 'lifo' as const,
      lookup: pinnedLookup(addresses),
    };
    const made = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    this.pools.set(key, made);
    if (this.pools.size > MAX_RECEIVERS) {
      const [oldestKey, oldest] = this.pools.entries().next().value as [string, http.Agent];
      this.pools.delete(oldestKey);
      retire(oldest);
    }
    return made;
  }

  /** Counts `request`'s connection as opened or reused, once it has one. */
  track(request: http.ClientRequest): void {
    request.once('socket', (socket: Socket) => {
      if (this.known.has(socket)) {
        this.counter?.reused();
      } else {
        this.known.add(socket);
        this.counter?.opened();
      }
    });
  }

  /** Closes every connection, idle or in use (after the attempts in flight, at shutdown). */
  close(): void {
    for (const pool of this.pools.values()) pool.destroy();
    this.pools.clear();
  }
}

/** A pool no longer looked up: its idle connections close now, those in use when their attempt ends. */
function retire(pool: http.Agent): void {
  // Read by the agent each time a connection is freed (Node's _http_agent), not in its types.
  (pool as http.Agent & { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(pool.freeSockets)) {
    for (const socket of sockets ?? []) socket.destroy();
  }
}

/** Hands a connection the addresses checked, never a second answer from DNS. */
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  const all = addresses.map(({ address, family }) => ({ address, family }));
  return (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all) {
      (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, all);
    } else {
      callback(null, all[0].address, all[0].family);
    }
  };
}
