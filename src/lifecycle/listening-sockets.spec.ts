import { readdirSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { listeningSockets } from './listening-sockets.js';

describe('listeningSockets (Linux /proc)', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("lists this process's listener with its port, an empty accept queue and the inode its fd links to", () => {
    const { port } = server.address() as { port: number };
    const mine = listeningSockets('/proc/self/net/tcp')?.filter((socket) => socket.port === port);
    expect(mine).toEqual([{ port, acceptQueue: 0, inode: expect.stringMatching(/^\d+$/) }]);
    const links = readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/self/fd/${fd}`)];
      } catch {
        return [];
      }
    });
    expect(links).toContain(`socket:[${mine![0].inode}]`);
  });

  it('answers undefined where the table cannot be read', () => {
    expect(listeningSockets('/proc/no-such-process/net/tcp')).toBeUndefined();
  });
});
