import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import querystring from 'node:querystring';
import type { AppConfig } from '../../config/app-config.js';
import { unversionedBaseUrl } from '../../config/base-url.js';
import { InjectConfig } from '../../config/app-config.provider.js';
import { CursorCodec, type CursorBinding } from './cursor-codec.js';
import type { PageQuery } from './page-query.js';

/** A page as the API answers it: exactly these two keys (docs/api.md, Pages). */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** One paged read: which list, how it is cut, and how to fetch the rows after an id. */
export interface PageRequest<T> extends Omit<CursorBinding, 'order'> {
  query: PageQuery;
  /**
   * Up to `take` items after `after` (exclusive) in `query.order` by id; every item when
   * `after` is undefined. Keyset, never an offset.
   */
  fetch(after: string | undefined, take: number): Promise<T[]>;
  idOf(item: T): number | string;
}

/**
 * Cuts every paged list the same way: the cursor is checked against the query, one item more
 * than the limit is read so that nextCursor is null exactly when nothing else matched, and the
 * next page's address goes in `Link: <…>; rel="next"` (RFC 8288).
 */
@Injectable()
export class Paginator {
  /** PUBLIC_BASE_URL without a trailing version: the origin (and path) clients reach us at. */
  private readonly publicBase: string | undefined;

  constructor(
    private readonly cursors: CursorCodec,
    @InjectConfig() config: AppConfig,
  ) {
    this.publicBase =
      config.publicBaseUrl === undefined ? undefined : unversionedBaseUrl(config.publicBaseUrl);
  }

  async page<T>(request: Request, response: Response, spec: PageRequest<T>): Promise<Page<T>> {
    const binding: CursorBinding = {
      list: spec.list,
      order: spec.query.order,
      filters: spec.filters,
    };
    const after =
      spec.query.cursor === undefined
        ? undefined
        : String(await this.cursors.decode(spec.query.cursor, binding));
    const rows = await spec.fetch(after, spec.query.limit + 1);
    const data = rows.slice(0, spec.query.limit);
    const nextCursor =
      rows.length > spec.query.limit
        ? await this.cursors.encode(BigInt(spec.idOf(data[data.length - 1])), binding)
        : null;
    if (nextCursor !== null) {
      response.setHeader('Link', `<${this.nextPageUrl(request, nextCursor)}>; rel="next"`);
    }
    return { data, nextCursor };
  }

  /**
   * This request's address with its cursor replaced: the same path and parameters as the
   * client wrote them. Relative, unless PUBLIC_BASE_URL says where clients reach the service
   * (behind a gateway that adds a path, a relative reference would miss it).
   */
  private nextPageUrl(request: Request, cursor: string): string {
    const url = request.originalUrl;
    const mark = url.indexOf('?');
    const [path, query] = mark === -1 ? [url, ''] : [url.slice(0, mark), url.slice(mark + 1)];
    const kept = query.split('&').filter((pair) => pair !== '' && !isCursorPair(pair));
    const next = `${path}?${[...kept, `cursor=${cursor}`].join('&')}`;
    return this.publicBase === undefined ? next : `${this.publicBase}${next}`;
  }
}

/**
 * Whether a `name=value` piece of a query string sets the cursor, its name read as the query
 * parser reads it (`%63ursor` is `cursor` too): a Link that kept it would name two cursors.
 */
function isCursorPair(pair: string): boolean {
  const at = pair.indexOf('=');
  const name = at === -1 ? pair : pair.slice(0, at);
  return querystring.unescape(name.replaceAll('+', ' ')) === 'cursor';
}
