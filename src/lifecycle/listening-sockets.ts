import { closeSync, openSync, readSync } from 'node:fs';

/** A TCP socket's state in /proc/net/tcp: 0A is LISTEN. */
const LISTEN = '0A';
const READ_CHUNK_BYTES = 2048;

/** A listening socket as Linux lists it in /proc/<pid>/net/tcp (or tcp6). */
export interface ListeningSocket {
  port: number;
  /** Connections the kernel has completed that the process has not accepted yet (rx_queue). */
  acceptQueue: number;
  /** The socket's inode: /proc/<pid>/fd/N links to `socket:[inode]` in the process holding it. */
  inode: string;
}

/**
 * The listening sockets of the network namespace `table` belongs to (`/proc/self/net/tcp`,
 * `/proc/<pid>/net/tcp6`), or undefined where it cannot be read (not Linux, no /proc, no such
 * process). The kernel lists listening sockets first, so the read stops at the first socket
 * that is not one: the file can hold thousands of connections on a shared host, and the answer
 * must be fresh when the caller acts on it.
 */
export function listeningSockets(table: string): ListeningSocket[] | undefined {
  let fd: number;
  try {
    fd = openSync(table, 'r');
  } catch {
    return undefined;
  }
  try {
    const sockets: ListeningSocket[] = [];
    const buffer = Buffer.alloc(READ_CHUNK_BYTES);
    let rest = '';
    let header = true;
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) return sockets;
      const lines = (rest + buffer.toString('latin1', 0, read)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        if (header) {
          header = false;
          continue;
        }
        // sl local_address rem_address st tx_queue:rx_queue tr:when retrnsmt uid timeout inode
        const [, local, , state, queues, , , , , inode] = line.trim().split(/\s+/);
        if (state !== LISTEN) return sockets;
        sockets.push({
          port: parseInt(local?.split(':')[1] ?? '', 16),
          acceptQueue: parseInt(queues?.split(':')[1] ?? '', 16),
          inode: inode ?? '',
        });
      }
    }
  } finally {
    closeSync(fd);
  }
}
