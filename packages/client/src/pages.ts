/** One page of a v2 list, as the API answers it. */
export interface Page<T> {
  data: T[];
  /** The cursor of the next page, null on the last. */
  nextCursor: string | null;
}

/**
 * A v2 list, read lazily: `for await (const item of list)` walks every item of every page,
 * and `list.pages()` every page, following `nextCursor` with the query's filters and limit.
 * Nothing is requested until the walk starts, and each walk starts from the first page.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item of every page, in one array: for lists known to be short. */
  async toArray(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
