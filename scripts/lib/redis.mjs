// A private redis-server on loopback for the harnesses (scripts/test-soak.mjs, test-hostile.mjs):
// no persistence, its files and log in the scratch folder.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

/**
 * Starts redis-server on 127.0.0.1:`redis.port`, registered with `run.track`; sets redis.child
 * and redis.exited (resolves at its exit). Call again to restart it after it exited.
 */
export function startRedis(run, { work, redis }) {
  const log = openSync(`${work}/redis.log`, 'a');
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(redis.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      work,
    ],
    { stdio: ['ignore', log, log] },
  );
  run.track(child);
  redis.child = child;
  redis.exited = new Promise((resolve) => child.on('exit', resolve));
}

/** Resolves once Redis on `port` answers PING; rejects after 10 s. */
export async function waitRedis(port) {
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      client.disconnect();
    }
    await sleep(50);
  }
  throw new Error('Redis did not start within 10 s');
}
