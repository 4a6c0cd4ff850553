// Receives the service's webhooks and verifies each one before trusting it.
// Run: PETSTORE_BASE_URL=http://localhost:3000 PETSTORE_API_KEY=psk_… node examples/webhook-receiver.mjs
// It subscribes itself at http://127.0.0.1:$PORT/webhooks (PORT defaults to 4000; a service on
// the same machine needs WEBHOOK_ALLOW_PRIVATE_TARGETS=true to send there), or, with
// WEBHOOK_SECRET set, uses a subscription you made. Ctrl-C unsubscribes and stops.
import { createServer } from 'node:http';
import { PetstoreClient, verifyWebhook } from '@petstore/client';

const port = Number(process.env.PORT ?? 4000);
const client = new PetstoreClient();

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    try {
      // The exact bytes received: the signature covers them, not a re-serialised JSON.
      const event = verifyWebhook(secret, request.headers, Buffer.concat(chunks));
      console.log(`verified ${event.type} ${event.id}: ${JSON.stringify(event.data)}`);
      response.writeHead(204).end(); // answer at once; do the work afterwards
    } catch (error) {
      console.log(`refused a delivery: ${error.message}`);
      response.writeHead(400).end();
    }
  });
});
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));

let secret = process.env.WEBHOOK_SECRET;
let subscription;
if (!secret) {
  subscription = await client.v2.webhooks.create({
    url: `http://127.0.0.1:${port}/webhooks`,
    events: ['order.placed', 'order.shipped', 'order.cancelled', 'category.created'],
    description: 'examples/webhook-receiver.mjs',
  });
  secret = subscription.secret;
  console.log(`subscribed as webhook ${subscription.id}`);
}
console.log(`listening on http://127.0.0.1:${port}/webhooks`);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    if (subscription) await client.v2.webhooks.delete(subscription.id);
    server.close();
  });
}
