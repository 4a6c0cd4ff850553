import { connect, type Socket } from 'node:net';

/** The commands a Redis server runs, as MONITOR lists them, each as its arguments. */
export interface RedisMonitor {
  onCommand(listener: (args: string[]) => void): void;
  stop(): void;
}

/**
 * MONITOR on its own connection, read line by line. Not ioredis's monitor(): it enters its
 * monitoring state only after the OK reply's promise settles, so when the server is busy the
 * first listed commands arrive before that and ioredis throws "Command queue state error"
 * (redis/ioredis#1981) — the local Redis is shared by every test file running at once.
 */
export function monitorRedis(url: string): Promise<RedisMonitor> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port || 6379), hostname || '127.0.0.1');
  const listeners: ((args: string[]) => void)[] = [];
  let buffered = '';
  return new Promise((resolve, reject) => {
    let started = false;
    socket.setEncoding('latin1');
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!started) {
          if (line !== '+OK') {
            reject(new Error(`MONITOR answered ${line}`));
            socket.destroy();
            return;
          }
          started = true;
          resolve({
            onCommand: (listener) => listeners.push(listener),
            stop: () => socket.destroy(),
          });
          continue;
        }
        const args = monitoredArgs(line);
        for (const listener of listeners) listener(args);
      }
    });
    socket.write('MONITOR\r\n');
  });
}

const ESCAPED: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };

/**
 * The arguments of one MONITOR line, `+<time> [<db> <client>] "arg" "arg" …`, each quoted
 * with Redis's escapes (\\, \", \n, \r, \t, \a, \b, \xHH).
 */
function monitoredArgs(line: string): string[] {
  const args: string[] = [];
  let at = line.indexOf('] ');
  if (at < 0) return args;
  at += 2;
  while (at < line.length) {
    if (line[at] !== '"') {
      at++;
      continue;
    }
    let arg = '';
    at++;
    while (at < line.length && line[at] !== '"') {
      if (line[at] === '\\') {
        const next = line[at + 1];
        if (next === 'x') {
          arg += String.fromCharCode(parseInt(line.slice(at + 2, at + 4), 16));
          at += 4;
        } else {
          arg += ESCAPED[next] ?? next;
          at += 2;
        }
      } else {
        arg += line[at];
        at++;
      }
    }
    args.push(arg);
    at++;
  }
  return args;
}
