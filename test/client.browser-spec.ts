import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { launchChromium } from './support/browser.js';
import { insertPet } from './support/factories.js';
import { createTestApp, listeningOrigin, type TestApp } from './support/test-app.js';

/*
 * @petstore/client in a real browser (Debian's Chromium): bundled by esbuild for the browser
 * platform, where any Node-only import fails the build, then used from a page on the service's
 * own origin to place and read an order, walk a v2 list, get a typed error and verify a
 * webhook signed by the Standard Webhooks library.
 */

let t: TestApp;
let browser: Browser;
let page: Page;
let origin: string;
let petId: number;

/** What the page's script leaves on `window.result`. */
interface BrowserRun {
  placed: { id: number; petId: number; status: string };
  read: { id: number };
  listed: number[];
  error: { name: string; status: number; code: string; requestId: string };
  event: { id: string; type: string };
  refused: string;
}

beforeAll(async () => {
  t = await createTestApp();
  origin = await listeningOrigin(t);
  petId = await insertPet(t.db, { name: 'Browser' });
  const bundle = await build({
    entryPoints: ['packages/client/src/index.ts'],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  browser = await launchChromium();
  page = await browser.newPage();
  // The page and the bundle are served on the service's origin, so the calls are same-origin.
  await page.route(`${origin}/client-test/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path.endsWith('/client.js')) {
      return route.fulfill({ contentType: 'text/javascript', body: bundle.outputFiles[0].text });
    }
    return route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><title>client</title><p>client test</p>',
    });
  });
  await page.goto(`${origin}/client-test/index.html`);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

it('runs in a browser: calls, pages, typed errors and webhook verification', async () => {
  const secret = `whsec_${Buffer.from('a browser test secret of 32 bytes').toString('base64')}`;
  const body = JSON.stringify({
    id: 'evt_browser',
    type: 'order.placed',
    createdAt: new Date().toISOString(),
    data: { id: 1, petId, quantity: 1, complete: false, status: 'pending' },
  });
  const timestamp = new Date();
  const headers = {
    'webhook-id': 'evt_browser',
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('evt_browser', timestamp, body),
  };

  const result = await page.evaluate(
    async ({ origin, apiKey, petId, secret, headers, body }) => {
      // A module the page loads, as an application would (the bundle is ESM).
      const url = `${origin}/client-test/client.js`;
      const client = (await import(url)) as typeof import('@petstore/client');
      const petstore = new client.PetstoreClient({ baseUrl: origin, apiKey });
      const placed = await petstore.v2.orders.place({ petId, quantity: 1 });
      const read = await petstore.v2.orders.get(placed.id);
      const listed: number[] = [];
      for await (const order of petstore.v2.orders.list({ petId, limit: 1 })) listed.push(order.id);
      const error = await petstore.v2.orders.get(999_999_999).catch((e: unknown) => e);
      const { name, status, code, requestId } = error as InstanceType<typeof client.PetstoreError>;
      const event = client.verifyWebhook(secret, headers, new TextEncoder().encode(body));
      let refused = '';
      try {
        client.verifyWebhook(secret, headers, body.replace('pending', 'shipped'));
      } catch (e) {
        refused = (e as Error).name;
      }
      return { placed, read, listed, error: { name, status, code, requestId }, event, refused };
    },
    { origin, apiKey: t.apiKey, petId, secret, headers, body },
  );
  const run = result as BrowserRun;
  expect(run.placed).toMatchObject({ petId, status: 'pending' });
  expect(run.read.id).toBe(run.placed.id);
  expect(run.listed).toEqual([run.placed.id]);
  expect(run.error).toEqual({
    name: 'PetstoreError',
    status: 404,
    code: 'ORDER_NOT_FOUND',
    requestId: expect.stringMatching(/\S/),
  });
  expect(run.event).toMatchObject({ id: 'evt_browser', type: 'order.placed' });
  expect(run.refused).toBe('WebhookVerificationError');
});
