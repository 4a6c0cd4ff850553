import type { Response } from 'supertest';

/** A v2 list's answer (docs/api.md, Pages). */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** A v2 list's `Link` header toward the next page; its target is group 1. */
export const NEXT_LINK = /^<([^>]+)>; rel="next"$/;

/**
 * Follows nextCursor through the Link header, as a client can, from `first` to the end: every
 * page 200 with exactly `data` and `nextCursor`, a Link exactly while there is a next page,
 * naming that cursor, and at most `maxPages` pages. `between` runs after each page that has a
 * next one.
 */
export async function walkPages<T>(
  get: (path: string) => Promise<Response>,
  first: string,
  { maxPages, between }: { maxPages: number; between?: (page: number) => Promise<void> },
): Promise<T[]> {
  const items: T[] = [];
  let path: string | undefined = first;
  for (let page = 0; path !== undefined; page++) {
    const res = await get(path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    const body = res.body as Page<T>;
    expect(Object.keys(body).sort()).toEqual(['data', 'nextCursor']);
    items.push(...body.data);
    const link = res.headers.link as string | undefined;
    if (body.nextCursor === null) {
      expect(link).toBeUndefined();
      path = undefined;
    } else {
      expect(body.data.length).toBeGreaterThan(0);
      const target = NEXT_LINK.exec(link ?? '')?.[1];
      expect(target).toBeDefined();
      expect(new URL(target!, 'http://x').searchParams.get('cursor')).toBe(body.nextCursor);
      path = target;
      await between?.(page);
    }
    expect(page).toBeLessThan(maxPages);
  }
  return items;
}
