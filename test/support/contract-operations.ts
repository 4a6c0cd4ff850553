import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { insertOrder } from './factories.js';
import type { OpenApiValidator } from './openapi-validator.js';

export type Method = 'get' | 'post' | 'patch' | 'delete';

/** One operation of docs/api.md's table, with a request it answers successfully. */
export interface ContractOperation {
  operationId: string;
  /** The API version it is called in; its name in test titles (`listOrders`, `v2 listOrders`). */
  version: '1' | '2';
  name: string;
  method: Method;
  /** Its status when called with a valid key. */
  success: number;
  /** The table a success writes to, if any. */
  writes?: 'orders' | 'categories';
  /** A request that succeeds with a valid key (fresh rows for the operations that change them). */
  arrange(): Promise<{ path: string; body?: object }>;
}

/** The validator of the document that describes `operation`'s version. */
export function specOf(
  t: { spec: OpenApiValidator; specV2: OpenApiValidator },
  operation: Pick<ContractOperation, 'version'>,
): OpenApiValidator {
  return operation.version === '1' ? t.spec : t.specV2;
}

/**
 * The eight v1 operations of docs/api.md, then v2's nine (the same operations under /v2,
 * without the deprecated pet read, then listPets and getPet, its successor). `fixture` is read
 * only when a request is arranged: the database and the pet exist once the suite's beforeAll
 * has run.
 */
export function contractOperations(
  fixture: () => { db: pg.Pool; petId: number },
): ContractOperation[] {
  const v1 = v1Operations(fixture).map((operation): ContractOperation => ({
    ...operation,
    version: '1',
    name: operation.operationId,
  }));
  const v2 = v1
    .filter((operation) => operation.operationId !== 'getPetById')
    .map((operation): ContractOperation => ({
      ...operation,
      version: '2',
      name: `v2 ${operation.operationId}`,
      arrange: async () => {
        const request = await operation.arrange();
        return { ...request, path: request.path.replace(/^\/v1\//, '/v2/') };
      },
    }));
  const pets: ContractOperation[] = [
    {
      operationId: 'listPets',
      version: '2',
      name: 'v2 listPets',
      method: 'get',
      success: 200,
      arrange: () => Promise.resolve({ path: '/v2/pets' }),
    },
    {
      operationId: 'getPet',
      version: '2',
      name: 'v2 getPet',
      method: 'get',
      success: 200,
      arrange: () => Promise.resolve({ path: `/v2/pets/${fixture().petId}` }),
    },
  ];
  return [...v1, ...v2, ...pets];
}

function v1Operations(
  fixture: () => { db: pg.Pool; petId: number },
): Array<Omit<ContractOperation, 'version' | 'name'>> {
  const freshOrder = () => insertOrder(fixture().db, { petId: fixture().petId });
  return [
    {
      operationId: 'listOrders',
      method: 'get',
      success: 200,
      arrange: () => Promise.resolve({ path: '/v1/store/orders' }),
    },
    {
      operationId: 'placeOrder',
      method: 'post',
      success: 201,
      writes: 'orders',
      arrange: () =>
        Promise.resolve({
          path: '/v1/store/orders',
          body: { petId: fixture().petId, quantity: 1 },
        }),
    },
    {
      operationId: 'getOrderById',
      method: 'get',
      success: 200,
      arrange: async () => ({ path: `/v1/store/orders/${await freshOrder()}` }),
    },
    {
      operationId: 'shipOrder',
      method: 'post',
      success: 200,
      writes: 'orders',
      arrange: async () => ({ path: `/v1/store/orders/${await freshOrder()}/ship` }),
    },
    {
      operationId: 'cancelOrder',
      method: 'delete',
      success: 204,
      writes: 'orders',
      arrange: async () => ({ path: `/v1/store/orders/${await freshOrder()}` }),
    },
    {
      operationId: 'listCategories',
      method: 'get',
      success: 200,
      arrange: () => Promise.resolve({ path: '/v1/categories' }),
    },
    {
      operationId: 'createCategory',
      method: 'post',
      success: 201,
      writes: 'categories',
      arrange: () =>
        Promise.resolve({
          path: '/v1/categories',
          body: { name: `op-${randomBytes(6).toString('hex')}` },
        }),
    },
    {
      operationId: 'getPetById',
      method: 'get',
      success: 200,
      arrange: () => Promise.resolve({ path: `/v1/pets/${fixture().petId}` }),
    },
  ];
}

/**
 * v2's webhook operations (docs/webhooks.md), for the suites that cover every operation's
 * authentication. Their URL is a public address: test apps refuse private targets.
 */
export function webhookOperations(fixture: () => { db: pg.Pool }): ContractOperation[] {
  const freshSubscription = async (): Promise<number> => {
    const { rows } = await fixture().db.query<{ id: string }>(
      `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
       VALUES ((SELECT min(id) FROM api_keys), 'https://93.184.216.34/hooks', '{order.placed}', $1)
       RETURNING id`,
      [randomBytes(32)],
    );
    await fixture().db.query(
      `DELETE FROM webhook_subscriptions WHERE id NOT IN
         (SELECT id FROM webhook_subscriptions ORDER BY id DESC LIMIT 10)`,
    );
    return Number(rows[0].id);
  };
  const operations: Array<Omit<ContractOperation, 'version' | 'name'>> = [
    {
      operationId: 'createWebhook',
      method: 'post',
      success: 201,
      arrange: async () => {
        // Room under the 20-per-key limit.
        await fixture().db.query('DELETE FROM webhook_subscriptions');
        return {
          path: '/v2/webhooks',
          body: { url: 'https://93.184.216.34/hooks', events: ['order.placed'] },
        };
      },
    },
    {
      operationId: 'listWebhooks',
      method: 'get',
      success: 200,
      arrange: () => Promise.resolve({ path: '/v2/webhooks' }),
    },
    {
      operationId: 'getWebhook',
      method: 'get',
      success: 200,
      arrange: async () => ({ path: `/v2/webhooks/${await freshSubscription()}` }),
    },
    {
      operationId: 'deleteWebhook',
      method: 'delete',
      success: 204,
      arrange: async () => ({ path: `/v2/webhooks/${await freshSubscription()}` }),
    },
    {
      operationId: 'listWebhookDeliveries',
      method: 'get',
      success: 200,
      arrange: async () => ({ path: `/v2/webhooks/${await freshSubscription()}/deliveries` }),
    },
  ];
  return operations.map((operation) => ({
    ...operation,
    version: '2',
    name: `v2 ${operation.operationId}`,
  }));
}
