import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './support/browser.js';
import { createTestApp, listeningOrigin, type TestApp } from './support/test-app.js';

/** The few browser globals that code run inside the page uses (the project has no DOM types). */
interface PageGlobals {
  cspViolations: string[];
  document: {
    addEventListener(
      type: 'securitypolicyviolation',
      listener: (event: { violatedDirective: string; blockedURI: string }) => void,
    ): void;
  };
}

interface MediaType {
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** A name that is not loopback, resolved to 127.0.0.1 by Chromium: as a deployment is reached. */
const PUBLIC_NAME = 'reference.petstore.test';

/** Redoc's section of each operation: `tag/<tag>/operation/<operationId>`. */
const OPERATION_SECTION = '[data-section-id^="tag/"][data-section-id*="/operation/"]';

/** An example's JSON with no white space, as it is compared with what the page shows. */
function compact(value: unknown): string {
  return JSON.stringify(value).replace(/\s+/g, '');
}

/** The first example of a media type. */
function firstExample(media: MediaType | undefined): unknown {
  return media?.example ?? Object.values(media?.examples ?? {})[0]?.value;
}

/**
 * operationId → the examples the reference must show beside it: the request body's, if it
 * takes one, and its success answer's (the first response, which Redoc opens), if it has a body.
 */
function shownExamples(document: OpenApiDocument): Record<string, string[]> {
  return Object.fromEntries(
    Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => {
        const request = firstExample(operation.requestBody?.content['application/json']);
        const [, success] = Object.entries(operation.responses).sort(([a], [b]) =>
          a.localeCompare(b),
        )[0];
        const answer = firstExample(success.content?.['application/json']);
        return [
          operation.operationId!,
          [request, answer].filter((example) => example !== undefined).map(compact),
        ];
      }),
    ),
  );
}

/** Every operationId of a document, in its order. */
function operationIds(document: OpenApiDocument): string[] {
  return Object.values(document.paths).flatMap((item) =>
    Object.values(item).flatMap((operation) => operation.operationId ?? []),
  );
}

/**
 * Redoc's reference at /reference in a real browser (Debian's Chromium driven by
 * playwright-core), as a reader meets it: /reference opens v2, every operation of each document
 * is rendered, the switch leads to v1, and nothing is loaded from anywhere but the service.
 */
describe('The API reference at /reference in Chromium (browser)', () => {
  let t: TestApp | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const documents: Record<string, OpenApiDocument> = {};
  /** The operations Redoc rendered, per version, in the page's order. */
  const rendered: Record<string, string[]> = {};
  /** Per version, operationId → the JSON samples shown beside it, white space removed. */
  const samples: Record<string, Record<string, string[]>> = {};
  /** The address /reference led to. */
  let landed: string;
  /** Every request made by the pages, and what went wrong with any of them. */
  const requests: string[] = [];
  const failures: string[] = [];
  const errorResponses: string[] = [];
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];

  /** The operationIds of the operations shown on the page, read from Redoc's section ids. */
  async function renderedOperations(): Promise<string[]> {
    const ids = await page
      .locator(OPERATION_SECTION)
      .evaluateAll((sections) =>
        sections.map((section) => (section as unknown as { id: string }).id),
      );
    return ids.map((id) => id.replace(/^.*operation\//, ''));
  }

  /** Waits until Redoc has rendered the document's operations, and collects CSP reports. */
  async function awaitRendered(version: string): Promise<void> {
    const last = operationIds(documents[version]).at(-1)!;
    await page.locator(`${OPERATION_SECTION}[data-section-id$="/operation/${last}"]`).waitFor();
    rendered[version] = await renderedOperations();
    samples[version] = {};
    for (const id of rendered[version]) {
      const section = page.locator(`${OPERATION_SECTION}[data-section-id$="/operation/${id}"]`);
      const texts = await section.locator('.redoc-json').allTextContents();
      samples[version][id] = texts.map((text) => text.replace(/\s+/g, ''));
    }
  }

  beforeAll(async () => {
    browser = await launchChromium([`--host-resolver-rules=MAP ${PUBLIC_NAME} 127.0.0.1`]);
    t = await createTestApp();
    origin = await listeningOrigin(t);
    for (const version of ['1', '2']) {
      documents[version] = (await t.http.get(`/openapi/v${version}.json`).expect(200))
        .body as OpenApiDocument;
    }
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.on('request', (request) => requests.push(request.url()));
    context.on('requestfailed', (request) =>
      failures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
    );
    context.on('response', (response) => {
      if (response.status() >= 400) errorResponses.push(`${response.status()} ${response.url()}`);
    });
    await context.addInitScript(() => {
      const inPage = globalThis as unknown as PageGlobals;
      const seen: string[] = [];
      inPage.cspViolations = seen;
      inPage.document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} blocked ${event.blockedURI || '(inline)'}`),
      );
    });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const response = await page.goto(`${origin}/reference`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    landed = page.url();
    await awaitRendered('2');
    await collectViolations();
    // The v1 reference, as a reader chooses it in the switch.
    await page.locator('nav.versions a', { hasText: /^v1$/ }).click();
    await page.waitForURL(`${origin}/reference/v1`);
    await awaitRendered('1');
    await collectViolations();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The page's own CSP reports, gathered before it is left. */
  async function collectViolations(): Promise<void> {
    cspViolations.push(
      ...(await page.evaluate(() => (globalThis as unknown as PageGlobals).cspViolations)),
    );
  }

  it('opens the v2 reference at /reference', () => {
    expect(landed).toBe(`${origin}/reference/v2`);
  });

  it.each(['2', '1'])('renders every operation of the v%s document', (version) => {
    expect(rendered[version]).toEqual(operationIds(documents[version]));
    expect(rendered[version].length).toBeGreaterThanOrEqual(8);
  });

  it.each(['2', '1'])(
    "shows each operation's example request body and success answer (v%s)",
    (version) => {
      const expected = shownExamples(documents[version]);
      const operations = Object.keys(expected);
      expect(operations.length).toBeGreaterThanOrEqual(8);
      let shown = 0;
      for (const id of operations) {
        for (const example of expected[id]) {
          expect({ id, shown: samples[version][id] }).toEqual({
            id,
            shown: expect.arrayContaining([example]),
          });
          shown++;
        }
      }
      // A success example on every operation but the 204s, and a request example per body.
      expect(shown).toBeGreaterThan(operations.length);
    },
  );

  it('loaded nothing from outside the service, and the security policy blocked nothing', () => {
    expect(requests.length).toBeGreaterThan(0);
    // Redoc's search worker starts from a blob: URL, which goes nowhere.
    const elsewhere = requests.filter(
      (url) => !/^(data|blob):/.test(url) && new URL(url).origin !== origin,
    );
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
    const publicOrigin = `http://${PUBLIC_NAME}:${new URL(origin).port}`;
    const other = await browser!.newContext();
    try {
      const requested: string[] = [];
      other.on('request', (request) => requested.push(request.url()));
      const otherPage = await other.newPage();
      otherPage.setDefaultTimeout(15_000);
      expect((await otherPage.goto(`${publicOrigin}/reference/v2`))?.status()).toBe(200);
      await otherPage.locator(OPERATION_SECTION).first().waitFor();
      await otherPage.waitForLoadState('networkidle');
      expect(requested.length).toBeGreaterThan(0);
      expect(
        requested.filter(
          (url) => !/^(data|blob):/.test(url) && new URL(url).origin !== publicOrigin,
        ),
      ).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
