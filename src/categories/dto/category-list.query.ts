import { Injectable, type PipeTransform } from '@nestjs/common';
import {
  PAGE_QUERY_PARAMETERS,
  QueryParameters,
  readPageQuery,
  type PageQuery,
} from '../../common/pagination/page-query.js';

/** The query string of v2 listCategories: limit, cursor and order alone (docs/api.md, Pages). */
@Injectable()
export class CategoryListQueryPipe implements PipeTransform<unknown, PageQuery> {
  transform(query: unknown): PageQuery {
    return readPageQuery(new QueryParameters(query, PAGE_QUERY_PARAMETERS));
  }
}
