// One HTTP request for the loopback harnesses (scripts/test-soak.mjs, test-hostile.mjs): an
// outcome to count, never an exception.
import http from 'node:http';

/**
 * One request to 127.0.0.1:`port`. `body` is sent as JSON; `rawBody` (a Buffer or a string) as
 * it is, labelled JSON too. `abandonAfter`: hang up once that many body bytes arrived. Never
 * rejects: the outcome `{ started, ended, status, headers, body, bytes }` carries the status,
 * or `error` when there was no complete answer. `localAddress`: the loopback address to send
 * from (all of 127.0.0.0/8 is loopback), so a client can be told apart from the others.
 */
export function call({
  port,
  method = 'GET',
  path,
  headers = {},
  body,
  rawBody,
  abandonAfter,
  timeoutMs = 30000,
  agent,
  localAddress,
}) {
  return new Promise((resolve) => {
    const started = Date.now();
    let settled = false;
    const done = (outcome) => {
      if (settled) return;
      settled = true;
      resolve({ started, ended: Date.now(), ...outcome });
    };
    const payload = rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        localAddress,
        timeout: timeoutMs,
        headers: {
          ...headers,
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        },
      },
      (response) => {
        const chunks = [];
        let received = 0;
        const answer = { status: response.statusCode, headers: response.headers };
        response.on('data', (chunk) => {
          received += chunk.length;
          if (abandonAfter !== undefined && received >= abandonAfter) {
            request.destroy();
            done({ ...answer, abandoned: true, bytes: received });
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => done({ ...answer, body: Buffer.concat(chunks), bytes: received }));
        response.on('error', (error) => done({ ...answer, error: error.code ?? error.message }));
        response.on('aborted', () => done({ ...answer, error: 'aborted' }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => done({ error: error.code ?? error.message }));
    request.end(payload);
  });
}
