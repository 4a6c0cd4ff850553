import type { ValueTransformer } from 'typeorm';
import { int64Id, type Int64Id } from '../common/http/exact-int64.js';

/**
 * PostgreSQL bigint arrives as a string. Identity columns stop at 2^53 - 1 (see the initial
 * migration), so every stored id converts to a JavaScript number without rounding.
 */
export const bigintAsNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

/** A bigint id the service did not assign (a pet's): exact whatever its size (int64Id). */
export const bigintAsInt64Id: ValueTransformer = {
  to: (value: Int64Id | null | undefined) => (value == null ? value : value.toString()),
  from: (value: string | null) => (value === null ? null : int64Id(value)),
};
