import { readFileSync } from 'node:fs';
import { CHANGELOG_PATH } from '../src/changelog/changelog.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** The text of the page's `<pre>`, unescaped: what a reader of the page sees. */
function shownText(html: string): string {
  const pre = /<pre>([\s\S]*)<\/pre>/.exec(html)?.[1];
  if (pre === undefined) throw new Error(`no <pre> in ${html.slice(0, 200)}`);
  const entities: Record<string, string> = {
    '&lt;': '<',
    '&gt;': '>',
    '&quot;': '"',
    '&#39;': "'",
    '&amp;': '&',
  };
  return pre.replace(/&(lt|gt|quot|#39|amp);/g, (entity) => entities[entity]);
}

describe('changelog (e2e)', () => {
  let t: TestApp;
  const changelog = readFileSync('CHANGELOG.md', 'utf8');

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('serves CHANGELOG.md as an HTML page at /changelog, without an API key', async () => {
    const res = await t.http.get('/changelog').expect(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.text).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(shownText(res.text)).toBe(changelog);
    // Escaped: the Markdown's own `<…>` cannot open a tag.
    expect(/<pre>([\s\S]*)<\/pre>/.exec(res.text)?.[1]).not.toMatch(/[<>]/);
  });

  it('has an ETag, and answers 304 without a body to a request that holds the same page', async () => {
    const first = await t.http.get('/changelog').expect(200);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await t.http.get('/changelog').set('If-None-Match', etag).expect(304);
    expect(again.text ?? '').toBe('');
    expect(again.headers.etag).toBe(etag);
    // Another page (an older deployment's) gets the whole page.
    const other = await t.http.get('/changelog').set('If-None-Match', '"older"').expect(200);
    expect(shownText(other.text)).toBe(changelog);
  });

  it('answers HEAD too, and ignores an API key that is not valid (the route needs none)', async () => {
    const head = await t.http.head('/changelog').expect(200);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
    await t.http.get('/changelog').set('Authorization', 'Bearer psk_not-a-key').expect(200);
  });

  it('is outside every API version and in neither OpenAPI document', async () => {
    for (const path of ['/v1/changelog', '/v2/changelog', '/changelog/v1']) {
      const res = await t.http.get(path).set('Authorization', t.auth).expect(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
    for (const document of ['/openapi/v1.json', '/openapi/v2.json', '/docs-json']) {
      const { body } = await t.http.get(document).expect(200);
      expect(JSON.stringify(Object.keys(body.paths))).not.toContain('changelog');
    }
  });

  it("has a dated release for each OpenAPI document's version, newest first, and nothing else unreleased", async () => {
    const changelog = readFileSync(CHANGELOG_PATH, 'utf8');
    const releases = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map(
      ([, version, date]) => ({ version, date }),
    );
    expect(releases[0]).toEqual({ version: 'Unreleased', date: undefined });
    const released = releases.slice(1);
    expect(released.every((release) => release.date !== undefined)).toBe(true);
    const dates = released.map((release) => release.date ?? '');
    expect(dates).toEqual([...dates].sort().reverse());
    for (const document of ['/openapi/v1.json', '/openapi/v2.json']) {
      const { body } = await t.http.get(document).expect(200);
      expect(released.map((release) => release.version)).toContain(body.info.version);
    }
  });

  it("leads the deprecated pet read's default Link to a page that answers 200", async () => {
    const res = await t.http.get('/v1/pets/424242').set('Authorization', t.auth).expect(404);
    // The first link-value; the successor in v2 (rel="successor-version") follows it.
    const target = /^<([^>]+)>; rel="deprecation"; type="text\/html"(, |$)/.exec(
      res.headers.link,
    )?.[1];
    expect(target).toBe('/changelog');
    // Resolved against the request's own address, as a client resolves a relative reference.
    const followed = await t.http.get(
      new URL(target!, 'http://petstore.test/v1/pets/424242').pathname,
    );
    expect(followed.status).toBe(200);
    expect(followed.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(shownText(followed.text)).toBe(changelog);
  });
});
