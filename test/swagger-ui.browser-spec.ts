import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { categoryRow, insertOrder, insertPet } from './support/factories.js';
import { createTestApp, listeningOrigin, type TestApp } from './support/test-app.js';

/** The v1 operations docs/api.md names (documented at /reference/v1): operationId → method and relative path. */
const CONTRACT_OPERATIONS: Record<string, [method: string, path: string]> = {
  listOrders: ['GET', '/store/orders'],
  placeOrder: ['POST', '/store/orders'],
  getOrderById: ['GET', '/store/orders/{orderId}'],
  shipOrder: ['POST', '/store/orders/{orderId}/ship'],
  cancelOrder: ['DELETE', '/store/orders/{orderId}'],
  listCategories: ['GET', '/categories'],
  createCategory: ['POST', '/categories'],
  getPetById: ['GET', '/pets/{petId}'],
};

/**
 * The few browser globals that code run inside the page uses; the project compiles without the
 * DOM library (it is a Node service), so they are described here.
 */
interface PageGlobals {
  cspViolations: string[];
  document: {
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { violatedDirective: string; blockedURI: string }) => void,
    ): void;
  };
  getComputedStyle(element: unknown): { textDecorationLine: string };
}

const SCREENSHOT = resolve('test-output', 'swagger-ui.png');

/**
 * A name that is not loopback, resolved to 127.0.0.1 by Chromium itself: Swagger UI skips its
 * online validator badge (an image from validator.swagger.io) on localhost and 127.0.0.1 only,
 * so the page is also opened the way a deployed instance is reached.
 */
const PUBLIC_NAME = 'docs.petstore.test';

/**
 * Swagger UI at /docs in a real browser (Debian's Chromium driven by playwright-core), as a
 * developer meets it: every operation listed, Authorize with an API key, "Try it out" on a read
 * and on a write, and nothing loaded from anywhere but the service itself. The steps run in
 * order on one page, as a person goes through them: the "Try it out" steps use the key that
 * "Authorize" entered.
 */
describe('Swagger UI at /docs in Chromium (browser)', () => {
  let t: TestApp | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let port: number;
  let orders: Array<{ id: number; petId: number; quantity: number; status: string }>;
  /** The documents the top bar offers, in its order, when the page opens. */
  let offered: string[];
  /** The badge text beside each operation of the v2 document (null: none). */
  let v2Badges: Record<string, string | null>;
  /** Every request made by the page, and what went wrong with any of them. */
  const requests: Array<{ method: string; url: string; authorization?: string }> = [];
  const failures: string[] = [];
  const errorResponses: string[] = [];
  /** Console errors, uncaught page errors and Content-Security-Policy violations. */
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];

  beforeAll(async () => {
    // The browser first: without it there is nothing to test, and the message says why.
    browser = await launchChromium([`--host-resolver-rules=MAP ${PUBLIC_NAME} 127.0.0.1`]);
    t = await createTestApp();
    const petId = await insertPet(t.db, { name: 'Swagger' });
    orders = [];
    for (const [quantity, status] of [
      [2, 'pending'],
      [5, 'shipped'],
      [7, 'cancelled'],
    ] as const) {
      orders.push({
        id: await insertOrder(t.db, { petId, quantity, status }),
        petId,
        quantity,
        status,
      });
    }
    origin = await listeningOrigin(t);
    port = Number(new URL(origin).port);

    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.on('request', (request) => {
      requests.push({
        method: request.method(),
        url: request.url(),
        authorization: request.headers()['authorization'],
      });
    });
    context.on('requestfailed', (request) =>
      failures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
    );
    context.on('response', (response) => {
      if (response.status() >= 400) errorResponses.push(`${response.status()} ${response.url()}`);
    });
    // Reported by the document itself, whatever the console says: every blocked load or script.
    await context.addInitScript(() => {
      const inPage = globalThis as unknown as PageGlobals;
      const seen: string[] = [];
      inPage.cspViolations = seen;
      inPage.document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} blocked ${event.blockedURI || '(inline)'}`),
      );
    });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(`${origin}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor();
    offered = await page.locator('.topbar select option').allTextContents();
    // The first document offered, v2: each operation with its stability badge, as shown.
    await page.locator('.opblock-summary-operation-id', { hasText: /^listOrders$/ }).waitFor();
    v2Badges = await badgesByOperation();
    // The v1 document, as a reader of v1 chooses it in the top bar.
    await page.locator('.topbar select').selectOption({ label: 'v1' });
    await operation('getPetById').waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** operationId → the text of the stability badge beside its path, or null, for every operation shown. */
  async function badgesByOperation(): Promise<Record<string, string | null>> {
    const blocks = await page.locator('.opblock').all();
    const entries: Array<[string, string | null]> = [];
    for (const block of blocks) {
      const id = (await block.locator('.opblock-summary-operation-id').textContent())?.trim();
      const badge = block.locator('.opblock-summary .stability-badge');
      entries.push([
        id ?? '?',
        (await badge.count()) === 0 ? null : ((await badge.textContent())?.trim() ?? ''),
      ]);
    }
    return Object.fromEntries(entries);
  }

  /** The operation block whose displayed operationId is `operationId`. */
  function operation(operationId: string): Locator {
    return page.locator('.opblock', {
      has: page.locator('.opblock-summary-operation-id', {
        hasText: new RegExp(`^${operationId}$`),
      }),
    });
  }

  /** Expands the operation, presses "Try it out", lets `fill` enter the inputs, then Execute. */
  async function tryItOut(
    operationId: string,
    fill: (block: Locator) => Promise<void> = () => Promise.resolve(),
  ): Promise<{ code: string; body: unknown }> {
    const block = operation(operationId);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn', { hasText: 'Try it out' }).click();
    await fill(block);
    await block.locator('button.execute').click();
    const live = block.locator('.live-responses-table .response').first();
    await live.waitFor();
    const code = (await live.locator('.response-col_status').textContent())?.trim() ?? '';
    const body = await live
      .locator('xpath=.//h5[normalize-space()="Response body"]/following-sibling::*[1]')
      .locator('code, pre')
      .first()
      .textContent();
    return { code, body: JSON.parse(body ?? 'null') as unknown };
  }

  it('offers the v2 (beta) document first, then v1', () => {
    expect(offered.map((name) => name.trim())).toEqual(['v2 (beta)', 'v1']);
  });

  it('shows a beta badge beside every v2 operation', () => {
    // Exactly v2's operations, the pets' and webhooks' included (docs/api.md,
    // docs/webhooks.md): one more or one missing from the page fails here, so none goes
    // unchecked.
    expect(Object.keys(v2Badges).sort()).toEqual(
      [
        'listOrders',
        'placeOrder',
        'getOrderById',
        'shipOrder',
        'cancelOrder',
        'listCategories',
        'createCategory',
        'listPets',
        'getPet',
        'createWebhook',
        'listWebhooks',
        'getWebhook',
        'updateWebhook',
        'deleteWebhook',
        'rotateWebhookSecret',
        'listWebhookDeliveries',
        'getWebhookDelivery',
        'redeliverWebhookDelivery',
        'recoverWebhookDeliveries',
      ].sort(),
    );
    for (const [operationId, badge] of Object.entries(v2Badges)) {
      expect({ operationId, badge }).toEqual({ operationId, badge: 'beta' });
    }
  });

  it('shows an experimental badge beside the experimental v1 operations, and none elsewhere', async () => {
    await expect(badgesByOperation()).resolves.toEqual({
      listOrders: null,
      placeOrder: 'experimental',
      getOrderById: 'experimental',
      shipOrder: 'experimental',
      cancelOrder: null,
      listCategories: null,
      createCategory: null,
      getPetById: null,
    });
    // Visible to a reader: laid out, with a colour of its own.
    const badge = operation('placeOrder').locator('.stability-badge');
    await expect(badge.isVisible()).resolves.toBe(true);
  });

  it('lists every operation of docs/api.md, with getPetById marked deprecated', async () => {
    const shown = await page.locator('.opblock-summary-operation-id').allTextContents();
    expect(shown.map((id) => id.trim()).sort()).toEqual(Object.keys(CONTRACT_OPERATIONS).sort());
    for (const [operationId, [method, path]] of Object.entries(CONTRACT_OPERATIONS)) {
      const block = operation(operationId);
      await expect(block.locator('.opblock-summary-method').textContent()).resolves.toBe(method);
      await expect(block.locator('[data-path]').first().getAttribute('data-path')).resolves.toBe(
        path,
      );
      const classes = (await block.getAttribute('class')) ?? '';
      expect({
        operationId,
        deprecated: classes.split(/\s+/).includes('opblock-deprecated'),
      }).toEqual({ operationId, deprecated: operationId === 'getPetById' });
    }
    // Struck through, as a reader sees it.
    const deprecatedPath = operation('getPetById').locator('.opblock-summary-path__deprecated');
    await expect(
      deprecatedPath.evaluate(
        (element) =>
          (globalThis as unknown as PageGlobals).getComputedStyle(element).textDecorationLine,
      ),
    ).resolves.toBe('line-through');
  });

  it('takes an API key through Authorize', async () => {
    await page.locator('.scheme-container button.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input#auth-bearer-value').fill(t!.apiKey);
    await dialog.locator('button.modal-btn.authorize').click();
    // Authorized: the key is masked and Logout replaces Authorize.
    await dialog.locator('button', { hasText: 'Logout' }).waitFor();
    await dialog.locator('button.btn-done').click();
    await dialog.waitFor({ state: 'detached' });
    await expect(page.locator('.scheme-container button.authorize.locked').count()).resolves.toBe(
      1,
    );
  });

  it('runs listOrders through "Try it out": 200 with the seeded orders', async () => {
    const { code, body } = await tryItOut('listOrders');
    expect(code).toBe('200');
    const shown = body as Array<Record<string, unknown>>;
    expect(
      shown.map(({ id, petId, quantity, status, complete }) => ({
        id,
        petId,
        quantity,
        status,
        complete,
      })),
    ).toEqual(orders.map((order) => ({ ...order, complete: order.status === 'shipped' })));
    // A shipped order shows its ship date; the others have none.
    expect(shown.map((order) => typeof order.shipDate)).toEqual(
      orders.map((order) => (order.status === 'shipped' ? 'string' : 'undefined')),
    );
    // The key went with the request, as a Bearer token.
    const sent = requests.filter((request) => request.url === `${origin}/v1/store/orders`);
    expect(sent).toEqual([
      { method: 'GET', url: `${origin}/v1/store/orders`, authorization: t!.auth },
    ]);
  });

  it('runs createCategory through "Try it out": 201 with the new category, stored', async () => {
    const name = `swagger-ui-${randomBytes(4).toString('hex')}`;
    const description = 'Created from Swagger UI in Chromium';
    const { code, body } = await tryItOut('createCategory', async (block) => {
      await block.locator('textarea.body-param__text').fill(JSON.stringify({ name, description }));
    });
    expect(code).toBe('201');
    expect(body).toEqual({ id: expect.any(Number), name, description });
    const { id } = body as { id: number };
    await expect(categoryRow(t!.db, id)).resolves.toEqual({ name, description });
    const sent = requests.filter((request) => request.url === `${origin}/v1/categories`);
    expect(sent).toEqual([
      { method: 'POST', url: `${origin}/v1/categories`, authorization: t!.auth },
    ]);
  });

  describe('the v2 (beta) document, as /docs opens', () => {
    // A fresh page: switching documents in the top bar carries each operation's expanded and
    // try-out state, and its last response, over from v1.
    beforeAll(async () => {
      await page.goto(`${origin}/docs`, { waitUntil: 'load' });
      await operation('listWebhooks').waitFor();
    });

    it('still holds the API key given before (persistAuthorization): Authorize shows it locked', async () => {
      await expect(page.locator('.scheme-container button.authorize.locked').count()).resolves.toBe(
        1,
      );
    });

    it('runs v2 listOrders through "Try it out" with filters: 200, the matching page, sent to /v2', async () => {
      // Swagger UI fills each filter with its documented example; a reader sets their own.
      const petId = orders[0].petId;
      const { code, body } = await tryItOut('listOrders', async (block) => {
        const field = (name: string) => block.locator(`tr[data-param-name="${name}"] input`);
        await field('status').fill('pending,shipped');
        await field('petId').fill(String(petId));
        await field('shipDateFrom').fill('');
        await field('shipDateTo').fill('');
      });
      expect(code).toBe('200');
      const shown = body as { data: Array<Record<string, unknown>>; nextCursor: unknown };
      expect(Object.keys(shown).sort()).toEqual(['data', 'nextCursor']);
      expect(shown.nextCursor).toBeNull();
      expect(shown.data.map(({ id, status }) => ({ id, status }))).toEqual(
        orders
          .filter((order) => order.status !== 'cancelled')
          .map(({ id, status }) => ({ id, status })),
      );
      const sent = requests
        .filter((request) => request.url.startsWith(`${origin}/v2/store/orders`))
        .map(({ method, url, authorization }) => {
          const { pathname, searchParams } = new URL(url);
          return { method, pathname, query: Object.fromEntries(searchParams), authorization };
        });
      expect(sent).toEqual([
        {
          method: 'GET',
          pathname: '/v2/store/orders',
          query: { limit: '100', order: 'asc', status: 'pending,shipped', petId: String(petId) },
          authorization: t!.auth,
        },
      ]);
    });

    it('runs v2 createCategory through "Try it out": 201, stored, sent to /v2', async () => {
      const name = `swagger-ui-v2-${randomBytes(4).toString('hex')}`;
      const { code, body } = await tryItOut('createCategory', async (block) => {
        await block.locator('textarea.body-param__text').fill(JSON.stringify({ name }));
      });
      expect(code).toBe('201');
      expect(body).toEqual({ id: expect.any(Number), name });
      await expect(categoryRow(t!.db, (body as { id: number }).id)).resolves.toEqual({
        name,
        description: null,
      });
      const sent = requests.filter((request) => request.url === `${origin}/v2/categories`);
      expect(sent).toEqual([
        { method: 'POST', url: `${origin}/v2/categories`, authorization: t!.auth },
      ]);
    });
  });

  it('saves a full-page screenshot of the executed operations', async () => {
    mkdirSync(resolve('test-output'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    // A PNG file, signature first.
    expect(readFileSync(SCREENSHOT).subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
  });

  it('loaded nothing from outside the service, and the security policy blocked nothing', async () => {
    const violations = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).cspViolations,
    );
    cspViolations.push(...violations);
    expect(requests.length).toBeGreaterThan(0);
    // data: URLs (Swagger UI's inline icons, allowed by the policy) go nowhere.
    const elsewhere = requests
      .filter((request) => !request.url.startsWith('data:'))
      .filter((request) => new URL(request.url).origin !== origin)
      .map((request) => `${request.method} ${request.url}`);
    // One assertion, so that a failure shows everything that went wrong at once.
    expect({
      elsewhere,
      failures,
      errorResponses,
      cspViolations,
      consoleErrors,
      pageErrors,
    }).toEqual({
      elsewhere: [],
      failures: [],
      errorResponses: [],
      cspViolations: [],
      consoleErrors: [],
      pageErrors: [],
    });
  });

  it('loads nothing from elsewhere when reached under a host name that is not loopback', async () => {
    const publicOrigin = `http://${PUBLIC_NAME}:${port}`;
    const elsewhere = await browser!.newContext();
    try {
      const requested: string[] = [];
      elsewhere.on('request', (request) => requested.push(request.url()));
      const other = await elsewhere.newPage();
      other.setDefaultTimeout(10_000);
      expect((await other.goto(`${publicOrigin}/docs`))?.status()).toBe(200);
      await other.locator('.opblock').first().waitFor();
      await other.waitForLoadState('networkidle');
      expect(requested.length).toBeGreaterThan(0);
      expect(
        requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== publicOrigin),
      ).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });
});
