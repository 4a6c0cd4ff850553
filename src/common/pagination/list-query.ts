import { applyDecorators, type PipeTransform } from '@nestjs/common';
import { ApiQuery, type ApiQueryOptions } from '@nestjs/swagger';
import { ValidationFailedError } from '../errors/domain-error.js';
import { INT64_MAX, isInt64Id } from '../http/int64-id.pipe.js';
import { ApiPageQuery } from './page-query.decorator.js';
import {
  PAGE_QUERY_PARAMETERS,
  QueryParameters,
  readPageQuery,
  readValueList,
  type PageQuery,
} from './page-query.js';

/** The filter in canonical form, as a page's cursor binds it: [parameter, value] pairs. */
export type CanonicalFilter = Array<[string, string]>;

/** A filtered list's query string, read: its page and its filter. */
export interface ListQuery<Filter> {
  page: PageQuery;
  filter: Filter;
  canonical: CanonicalFilter;
}

/** One filter of a list: its query parameter, how it is read and how the document shows it. */
export interface ListFilter<Value> {
  parameter: string;
  /** Its value, undefined when it filters nothing; recorded in `canonical` when given. */
  read(parameters: QueryParameters, canonical: CanonicalFilter): Value | undefined;
  openApi: ApiQueryOptions;
}

/** Each field of a filter, and the ListFilter that reads it. */
type ListFilters<Filter> = { [Field in keyof Filter]-?: ListFilter<NonNullable<Filter[Field]>> };

/**
 * A filtered v2 list's query string (docs/api.md, Pages), checked whole: the page parameters and
 * the filters, read and documented from one definition. Unknown, repeated or empty parameters
 * and values out of range are 400 VALIDATION_FAILED naming the parameter. The filters are read
 * in their order, which is their canonical order; `check` then sees them together.
 */
export class ListQueryPipe<Filter extends object> implements PipeTransform<
  unknown,
  ListQuery<Filter>
> {
  private readonly accepted: readonly string[];
  private readonly fields: Array<[keyof Filter, ListFilter<unknown>]>;

  constructor(
    filters: ListFilters<Filter>,
    private readonly check: (filter: Filter) => void = () => undefined,
  ) {
    this.fields = Object.entries(filters) as Array<[keyof Filter, ListFilter<unknown>]>;
    this.accepted = [
      ...PAGE_QUERY_PARAMETERS,
      ...this.fields.map(([, filter]) => filter.parameter),
    ];
  }

  transform(query: unknown): ListQuery<Filter> {
    const parameters = new QueryParameters(query, this.accepted);
    const page = readPageQuery(parameters);
    const canonical: CanonicalFilter = [];
    const filter: Partial<Record<keyof Filter, unknown>> = {};
    for (const [field, listFilter] of this.fields) {
      const value = listFilter.read(parameters, canonical);
      if (value !== undefined) filter[field] = value;
    }
    this.check(filter as Filter);
    return { page, filter: filter as Filter, canonical };
  }

  /** The OpenAPI parameters it accepts: the page's, then each filter's. */
  apiQuery(): MethodDecorator {
    return applyDecorators(
      ApiPageQuery(),
      ...this.fields.map(([, filter]) => ApiQuery(filter.openApi)),
    );
  }
}

/**
 * A list's `status` filter: one or more of `statuses`, comma-separated, each at most once;
 * recorded as given, and answered as the statuses to filter on (in `statuses`' order), or
 * undefined when it names every status, which filters nothing. `items` names what is listed.
 */
export function statusFilter<Status extends string>(
  items: string,
  statuses: readonly Status[],
  example: string,
): ListFilter<Status[]> {
  const one = `(${statuses.join('|')})`;
  return {
    parameter: 'status',
    read(parameters, canonical) {
      const given = readValueList(parameters, 'status', statuses);
      if (given === undefined) return undefined;
      canonical.push(['status', given.join(',')]);
      return given.length < statuses.length ? given : undefined;
    },
    openApi: {
      name: 'status',
      required: false,
      description: `Only ${items} in one of these statuses: one or more of ${statuses.join(', ')}, separated by commas, each at most once`,
      schema: {
        type: 'string',
        maxLength: statuses.join(',').length,
        pattern: `^${one}(,${one}){0,${statuses.length - 1}}$`,
        example,
      },
    },
  };
}

/** An id filter (listOrders' `petId`, listPets' `categoryId`), under the rules of path ids. */
export function idFilter(
  parameter: string,
  description: string,
  example: number,
): ListFilter<string> {
  return {
    parameter,
    read(parameters, canonical) {
      const id = parameters.get(parameter);
      if (id === undefined) return undefined;
      if (!isInt64Id(id)) {
        throw new ValidationFailedError(
          `${parameter} must be a whole number from 1 to ${INT64_MAX} written in decimal digits`,
        );
      }
      canonical.push([parameter, id]);
      return id;
    },
    openApi: {
      name: parameter,
      required: false,
      description,
      schema: { type: 'integer', format: 'int64', minimum: 1, example },
    },
  };
}
