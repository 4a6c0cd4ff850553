import { Injectable, type PipeTransform } from '@nestjs/common';
import {
  PAGE_QUERY_PARAMETERS,
  QueryParameters,
  readPageQuery,
  type PageQuery,
} from '../../common/pagination/page-query.js';

/** The query string of v2 listCategories: limit, cursor and order alone (contract section 9). */
@Injectable()
export class CategoryListQueryPipe implements PipeTransform<unknown, PageQuery> {
  transform(query: unknown): PageQuery {
    return readPageQuery(new QueryParameters(query, PAGE_QUERY_PARAMETERS));
  }
}
