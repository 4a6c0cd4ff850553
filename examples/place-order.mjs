// Finds an available pet, orders it, ships the order, and lists the pending orders.
// Run: PETSTORE_BASE_URL=http://localhost:3000 PETSTORE_API_KEY=psk_… node examples/place-order.mjs
import { PetstoreClient, PetstoreError } from '@petstore/client';

const client = new PetstoreClient(); // the address and the key from the environment

let pet;
for await (const candidate of client.v2.pets.list({ status: ['available'] })) {
  pet = candidate;
  break; // the list is read page by page, only as far as needed
}
if (!pet) throw new Error('no pet is available');

// A retry after a lost answer reuses the call's Idempotency-Key: still one order.
const order = await client.v2.orders.place({ petId: pet.id, quantity: 1 });
console.log(`placed order ${order.id} for ${pet.name} (${order.status})`);

const shipped = await client.v2.orders.ship(order.id);
console.log(`shipped order ${shipped.id} on ${shipped.shipDate}`);

try {
  await client.v2.orders.cancel(order.id);
} catch (error) {
  if (!(error instanceof PetstoreError) || error.code !== 'ORDER_ALREADY_SHIPPED') throw error;
  console.log(`cannot cancel it any more: ${error.code}`);
}

let pending = 0;
for await (const { id, petId, quantity } of client.v2.orders.list({ status: ['pending'] })) {
  if (pending++ < 5) console.log(`pending: order ${id}, pet ${petId}, quantity ${quantity}`);
}
console.log(`${pending} pending orders`);
