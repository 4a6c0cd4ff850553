import { Type } from '@nestjs/common';
import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** A cursor as the reference's examples show it. */
const CURSOR_EXAMPLE = 'AAAAAAAAACrV1rC3yPq0bF6h2n9wXk0T';

/** The example of a page holding `data`, with more to read after it. */
export function pageExample<T>(data: T[]): { data: T[]; nextCursor: string } {
  return { data, nextCursor: CURSOR_EXAMPLE };
}

/** The Link header of a page that has a next one (documented on every paged list). */
export const NEXT_PAGE_LINK_HEADER = {
  Link: {
    description:
      'RFC 8288: the next page, this request with its cursor replaced; sent exactly when nextCursor is not null',
    schema: {
      type: 'string',
      maxLength: 4200,
      pattern: '^<[^>]+[?&]cursor=[A-Za-z0-9_-]{32}>; rel="next"$',
      example: `</v2/store/orders?limit=100&cursor=${CURSOR_EXAMPLE}>; rel="next"`,
    },
  },
};

/**
 * The OpenAPI schema of a page of `item` (`{data, nextCursor}`), named `name`. One class per
 * item type: Swagger needs a concrete class for each.
 */
export function PageDto<T>(item: Type<T>, name: string, description: string): Type<unknown> {
  @ApiSchema({ name, description })
  class PageOfItems {
    @ApiProperty({ type: item, isArray: true, maxItems: 1000, description: 'This page, in order' })
    data: T[];

    @ApiProperty({
      type: 'string',
      nullable: true,
      minLength: 32,
      maxLength: 32,
      pattern: '^[A-Za-z0-9_-]{32}$',
      example: CURSOR_EXAMPLE,
      description:
        'Pass as `cursor` to read the next page of the same query; null when nothing more matched',
    })
    nextCursor: string | null;
  }
  return PageOfItems;
}
