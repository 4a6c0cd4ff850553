// Test-only: `npm run test:soak` and `test:hostile` preload this into the instances they start
// (`node --expose-gc --import <this file> dist/main.js`, with SOAK_GC_PORT set), so that their
// memory readings count what is still referenced rather than garbage that V8 has not collected
// yet. It is never loaded by the image, `npm start` or any production path: production runs
// without --expose-gc and without this file.
//
// GET http://127.0.0.1:$SOAK_GC_PORT/gc runs two full collections and answers with
// process.memoryUsage(). The listener is
// unref'd: it keeps no instance alive at shutdown and is not among the event-loop handles
// that prom-client counts (nodejs_active_handles_total).
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

const port = Number(process.env.SOAK_GC_PORT);
const gc = globalThis.gc;
if (!port || typeof gc !== 'function') {
  throw new Error('soak-gc-hook: needs SOAK_GC_PORT and node --expose-gc');
}

const server = createServer((request, response) => {
  if (request.url !== '/gc') {
    response.writeHead(404, { connection: 'close' }).end();
    return;
  }
  void (async () => {
    // The first collection frees the ArrayBuffers of dead Buffers (their memory is returned by
    // a background task); the second, a moment later, catches what their finalizers released.
    gc();
    await sleep(100);
    gc();
    response
      .writeHead(200, { 'content-type': 'application/json', connection: 'close' })
      .end(JSON.stringify(process.memoryUsage()));
  })();
});
server.listen(port, '127.0.0.1');
server.unref();
