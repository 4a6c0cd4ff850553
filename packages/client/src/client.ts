import createClient, { type Client } from 'openapi-fetch';
import { PetstoreError } from './errors.js';
import type { components as V1, paths as V1Paths } from './generated/v1.js';
import type {
  components as V2,
  operations as V2Operations,
  paths as V2Paths,
} from './generated/v2.js';
import { PageIterator } from './pages.js';
import { retryingFetch, sleep, type RequestOptions, type RetryPolicy } from './retry.js';

export interface ClientOptions {
  /** The service's address without a version, e.g. `http://localhost:3000`; else PETSTORE_BASE_URL. */
  baseUrl?: string;
  /** An API key (`psk_…`); else PETSTORE_API_KEY. */
  apiKey?: string;
  /** Retries after the first attempt, for every call (default 2; each call may set its own). */
  maxRetries?: number;
  /** Time allowed for each attempt, in milliseconds (default 60 000). */
  timeoutMs?: number;
  /** The fetch to send with (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/** Options of a call that creates: its Idempotency-Key. */
export interface CreateOptions extends RequestOptions {
  /**
   * The Idempotency-Key sent with the create, and with each of its retries. By default a new
   * random key per call. `false` sends none: the create is then not retried once it may have
   * run (only a 429, or a connection that never opened, is retried).
   */
  idempotencyKey?: string | false;
}

type OrderStatus = V2['schemas']['OrderStatus'];
type PetStatus = V2['schemas']['PetStatus'];
type Query<Operation extends keyof V2Operations> = NonNullable<
  V2Operations[Operation]['parameters']['query']
>;

/** listOrders' filters and order; `status` may be a list, sent comma-separated. */
export type ListOrdersQuery = Omit<Query<'listOrders'>, 'cursor' | 'status'> & {
  status?: OrderStatus | readonly OrderStatus[];
};
export type ListCategoriesQuery = Omit<Query<'listCategories'>, 'cursor'>;
/** listPets' filters and order; `status` may be a list, sent comma-separated. */
export type ListPetsQuery = Omit<Query<'listPets'>, 'cursor' | 'status'> & {
  status?: PetStatus | readonly PetStatus[];
};
export type ListWebhooksQuery = Omit<Query<'listWebhooks'>, 'cursor'>;
export type ListWebhookDeliveriesQuery = Omit<Query<'listWebhookDeliveries'>, 'cursor'>;

const DEFAULTS = { maxRetries: 2, timeoutMs: 60_000 };

/**
 * The pet store API, both versions: `client.v2` (current, beta) and `client.v1` (deprecated
 * where the API says so). Each method answers the resource, or throws a PetstoreError with
 * the API's Error body; `client.v1.raw` and `client.v2.raw` are the underlying openapi-fetch
 * clients, typed from the OpenAPI documents, for anything the methods do not cover.
 */
export class PetstoreClient {
  readonly v1: PetstoreV1;
  readonly v2: PetstoreV2;

  constructor(options: ClientOptions = {}) {
    const baseUrl = (options.baseUrl ?? environment('PETSTORE_BASE_URL'))?.replace(/\/+$/, '');
    const apiKey = options.apiKey ?? environment('PETSTORE_API_KEY');
    if (!baseUrl) throw new TypeError('baseUrl is required (or set PETSTORE_BASE_URL)');
    if (!apiKey) throw new TypeError('apiKey is required (or set PETSTORE_API_KEY)');
    const policy: RetryPolicy = {
      maxRetries: options.maxRetries ?? DEFAULTS.maxRetries,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      fetch: options.fetch ?? ((request) => globalThis.fetch(request)),
      sleep,
      random: Math.random,
    };
    const headers = { Authorization: `Bearer ${apiKey}` };
    const fetch = retryingFetch(policy);
    const calls = new Calls(policy);
    this.v1 = new PetstoreV1(
      createClient<V1Paths>({ baseUrl: `${baseUrl}/v1`, headers, fetch }),
      calls,
    );
    this.v2 = new PetstoreV2(
      createClient<V2Paths>({ baseUrl: `${baseUrl}/v2`, headers, fetch }),
      calls,
    );
  }
}

/** How each call is sent: its retry rules, its Idempotency-Key, and its answer unwrapped. */
class Calls {
  constructor(private readonly policy: RetryPolicy) {}

  /** openapi-fetch's options for a call: the retrying fetch with the call's own settings. */
  send(options: RequestOptions = {}, repeatable = false) {
    return {
      fetch: retryingFetch(this.policy, { ...options, repeatable }),
      signal: options.signal,
    };
  }

  /**
   * A create's options and the header that carries its Idempotency-Key, the same across its
   * retries (none with `idempotencyKey: false`).
   */
  create(options: CreateOptions = {}) {
    const key =
      options.idempotencyKey === false
        ? undefined
        : (options.idempotencyKey ?? globalThis.crypto.randomUUID());
    const header: { 'Idempotency-Key'?: string } =
      key === undefined ? {} : { 'Idempotency-Key': key };
    return { ...this.send(options), header };
  }
}

/** The resource of a successful answer, or the PetstoreError of a failed one. */
function unwrap<Result extends { data?: unknown; error?: unknown; response: Response }>(
  result: Result,
): NonNullable<Result['data']> {
  if (!result.response.ok) throw PetstoreError.fromResponse(result.response, result.error);
  return result.data as NonNullable<Result['data']>;
}

function statusList(status: string | readonly string[] | undefined): string | undefined {
  return typeof status === 'string' ? status : status?.join(',');
}

function environment(name: string): string | undefined {
  // Read without importing node:process, so that the client runs in browsers too.
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
    ?.env;
  return env?.[name] || undefined;
}

/** Version 2: paged, filtered lists, pets and webhooks (beta). */
export class PetstoreV2 {
  readonly orders: OrdersV2;
  readonly categories: CategoriesV2;
  readonly pets: PetsV2;
  readonly webhooks: WebhooksV2;

  constructor(
    /** The openapi-fetch client of /v2, with the key and the retry rules. */
    readonly raw: Client<V2Paths>,
    calls: Calls,
  ) {
    this.orders = new OrdersV2(raw, calls);
    this.categories = new CategoriesV2(raw, calls);
    this.pets = new PetsV2(raw, calls);
    this.webhooks = new WebhooksV2(raw, calls);
  }
}

class OrdersV2 {
  constructor(
    private readonly raw: Client<V2Paths>,
    private readonly calls: Calls,
  ) {}

  /** Every order that matches, newest first unless `order: 'asc'`, page by page as needed. */
  list(
    query: ListOrdersQuery = {},
    options?: RequestOptions,
  ): PageIterator<V2['schemas']['Order']> {
    const { status, ...rest } = query;
    return new PageIterator(async (cursor) =>
      unwrap(
        await this.raw.GET('/store/orders', {
          params: { query: { ...rest, status: statusList(status), cursor } },
          ...this.calls.send(options),
        }),
      ),
    );
  }

  async get(orderId: number, options?: RequestOptions) {
    return unwrap(
      await this.raw.GET('/store/orders/{orderId}', {
        params: { path: { orderId } },
        ...this.calls.send(options),
      }),
    );
  }

  /** Places an order; retried safely with one Idempotency-Key (CreateOptions). */
  async place(order: V2['schemas']['NewOrder'], options?: CreateOptions) {
    const { header, ...send } = this.calls.create(options);
    return unwrap(
      await this.raw.POST('/store/orders', {
        body: order,
        params: { header },
        ...send,
      }),
    );
  }

  /** Ships a pending order. Safe to repeat: shipping a shipped order answers it again. */
  async ship(orderId: number, options?: RequestOptions) {
    return unwrap(
      await this.raw.POST('/store/orders/{orderId}/ship', {
        params: { path: { orderId } },
        ...this.calls.send(options, true),
      }),
    );
  }

  /** Cancels a pending order. Safe to repeat. */
  async cancel(orderId: number, options?: RequestOptions): Promise<void> {
    unwrap(
      await this.raw.DELETE('/store/orders/{orderId}', {
        params: { path: { orderId } },
        ...this.calls.send(options),
      }),
    );
  }
}

class CategoriesV2 {
  constructor(
    private readonly raw: Client<V2Paths>,
    private readonly calls: Calls,
  ) {}

  list(query: ListCategoriesQuery = {}, options?: RequestOptions) {
    return new PageIterator(async (cursor) =>
      unwrap(
        await this.raw.GET('/categories', {
          params: { query: { ...query, cursor } },
          ...this.calls.send(options),
        }),
      ),
    );
  }

  /** Creates a category; retried safely with one Idempotency-Key (CreateOptions). */
  async create(category: V2['schemas']['NewCategory'], options?: CreateOptions) {
    const { header, ...send } = this.calls.create(options);
    return unwrap(
      await this.raw.POST('/categories', {
        body: category,
        params: { header },
        ...send,
      }),
    );
  }
}

class PetsV2 {
  constructor(
    private readonly raw: Client<V2Paths>,
    private readonly calls: Calls,
  ) {}

  /** The pets to order from, filtered by status and category. */
  list(query: ListPetsQuery = {}, options?: RequestOptions) {
    const { status, ...rest } = query;
    return new PageIterator(async (cursor) =>
      unwrap(
        await this.raw.GET('/pets', {
          params: { query: { ...rest, status: statusList(status), cursor } },
          ...this.calls.send(options),
        }),
      ),
    );
  }

  async get(petId: number, options?: RequestOptions) {
    return unwrap(
      await this.raw.GET('/pets/{petId}', {
        params: { path: { petId } },
        ...this.calls.send(options),
      }),
    );
  }
}

class WebhooksV2 {
  constructor(
    private readonly raw: Client<V2Paths>,
    private readonly calls: Calls,
  ) {}

  list(query: ListWebhooksQuery = {}, options?: RequestOptions) {
    return new PageIterator(async (cursor) =>
      unwrap(
        await this.raw.GET('/webhooks', {
          params: { query: { ...query, cursor } },
          ...this.calls.send(options),
        }),
      ),
    );
  }

  /** Subscribes; the answer holds the signing secret, shown only here (and to a replay). */
  async create(webhook: V2['schemas']['NewWebhook'], options?: CreateOptions) {
    const { header, ...send } = this.calls.create(options);
    return unwrap(
      await this.raw.POST('/webhooks', {
        body: webhook,
        params: { header },
        ...send,
      }),
    );
  }

  async get(webhookId: number, options?: RequestOptions) {
    return unwrap(
      await this.raw.GET('/webhooks/{webhookId}', {
        params: { path: { webhookId } },
        ...this.calls.send(options),
      }),
    );
  }

  /**
   * Changes any of `url`, `events`, `description` (null removes it) and `enabled`. Safe to
   * repeat: the same change twice leaves the same subscription.
   */
  async update(
    webhookId: number,
    changes: V2['schemas']['WebhookChanges'],
    options?: RequestOptions,
  ) {
    return unwrap(
      await this.raw.PATCH('/webhooks/{webhookId}', {
        params: { path: { webhookId } },
        body: changes,
        ...this.calls.send(options, true),
      }),
    );
  }

  /**
   * A new signing secret, shown only in this answer; the previous one keeps signing for
   * `previousSecretExpiresInSeconds` (a day by default). Retried safely with one
   * Idempotency-Key: a lost answer's retry gets the same new secret.
   */
  async rotateSecret(
    webhookId: number,
    // Partial: openapi-typescript marks a property with a default as required.
    rotation: Partial<V2['schemas']['SecretRotation']> = {},
    options?: CreateOptions,
  ) {
    const { header, ...send } = this.calls.create(options);
    return unwrap(
      await this.raw.POST('/webhooks/{webhookId}/rotate-secret', {
        params: {
          path: { webhookId },
          header,
        },
        body: rotation as V2['schemas']['SecretRotation'],
        ...send,
      }),
    );
  }

  /** One delivery with the event as sent and its attempt log. */
  async getDelivery(webhookId: number, eventId: string, options?: RequestOptions) {
    return unwrap(
      await this.raw.GET('/webhooks/{webhookId}/deliveries/{eventId}', {
        params: { path: { webhookId, eventId } },
        ...this.calls.send(options),
      }),
    );
  }

  /**
   * Sends a finished delivery again (same event id and body). Not retried once it may have
   * run: a second one would answer 409 DELIVERY_PENDING.
   */
  async redeliver(webhookId: number, eventId: string, options?: RequestOptions) {
    return unwrap(
      await this.raw.POST('/webhooks/{webhookId}/deliveries/{eventId}/redeliver', {
        params: { path: { webhookId, eventId } },
        ...this.calls.send(options),
      }),
    );
  }

  /**
   * Sends again every failed delivery whose event was created at or after `since`; answers
   * how many. Safe to repeat: a second call finds them pending and requeues none.
   */
  async recover(webhookId: number, since: string | Date, options?: RequestOptions) {
    return unwrap(
      await this.raw.POST('/webhooks/{webhookId}/recover', {
        params: { path: { webhookId } },
        body: { since: typeof since === 'string' ? since : since.toISOString() },
        ...this.calls.send(options, true),
      }),
    );
  }

  async delete(webhookId: number, options?: RequestOptions): Promise<void> {
    unwrap(
      await this.raw.DELETE('/webhooks/{webhookId}', {
        params: { path: { webhookId } },
        ...this.calls.send(options),
      }),
    );
  }

  /** A subscription's deliveries, newest first, with their status and attempts. */
  deliveries(webhookId: number, query: ListWebhookDeliveriesQuery = {}, options?: RequestOptions) {
    return new PageIterator(async (cursor) =>
      unwrap(
        await this.raw.GET('/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId }, query: { ...query, cursor } },
          ...this.calls.send(options),
        }),
      ),
    );
  }
}

/** Version 1: whole lists, no pets but the deprecated read. Prefer `client.v2`. */
export class PetstoreV1 {
  readonly orders: OrdersV1;
  readonly categories: CategoriesV1;
  readonly pets: PetsV1;

  constructor(
    /** The openapi-fetch client of /v1, with the key and the retry rules. */
    readonly raw: Client<V1Paths>,
    calls: Calls,
  ) {
    this.orders = new OrdersV1(raw, calls);
    this.categories = new CategoriesV1(raw, calls);
    this.pets = new PetsV1(raw, calls);
  }
}

class OrdersV1 {
  constructor(
    private readonly raw: Client<V1Paths>,
    private readonly calls: Calls,
  ) {}

  /** Every order, in one answer (v2's list pages and filters). */
  async list(options?: RequestOptions) {
    return unwrap(await this.raw.GET('/store/orders', { ...this.calls.send(options) }));
  }

  async get(orderId: number, options?: RequestOptions) {
    return unwrap(
      await this.raw.GET('/store/orders/{orderId}', {
        params: { path: { orderId } },
        ...this.calls.send(options),
      }),
    );
  }

  async place(order: V1['schemas']['NewOrder'], options?: CreateOptions) {
    const { header, ...send } = this.calls.create(options);
    return unwrap(
      await this.raw.POST('/store/orders', {
        body: order,
        params: { header },
        ...send,
      }),
    );
  }

  async ship(orderId: number, options?: RequestOptions) {
    return unwrap(
      await this.raw.POST('/store/orders/{orderId}/ship', {
        params: { path: { orderId } },
        ...this.calls.send(options, true),
      }),
    );
  }

  async cancel(orderId: number, options?: RequestOptions): Promise<void> {
    unwrap(
      await this.raw.DELETE('/store/orders/{orderId}', {
        params: { path: { orderId } },
        ...this.calls.send(options),
      }),
    );
  }
}

class CategoriesV1 {
  constructor(
    private readonly raw: Client<V1Paths>,
    private readonly calls: Calls,
  ) {}

  async list(options?: RequestOptions) {
    return unwrap(await this.raw.GET('/categories', { ...this.calls.send(options) }));
  }

  async create(category: V1['schemas']['NewCategory'], options?: CreateOptions) {
    const { header, ...send } = this.calls.create(options);
    return unwrap(
      await this.raw.POST('/categories', {
        body: category,
        params: { header },
        ...send,
      }),
    );
  }
}

class PetsV1 {
  constructor(
    private readonly raw: Client<V1Paths>,
    private readonly calls: Calls,
  ) {}

  /** @deprecated The API deprecates GET /v1/pets/{petId}: use `client.v2.pets.get`. */
  async get(petId: number, options?: RequestOptions) {
    return unwrap(
      await this.raw.GET('/pets/{petId}', {
        params: { path: { petId } },
        ...this.calls.send(options),
      }),
    );
  }
}
