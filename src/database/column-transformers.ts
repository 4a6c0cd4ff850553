import type { ValueTransformer } from 'typeorm';

/**
 * PostgreSQL bigint arrives as a string. Identity columns stop at 2^53 - 1 (see the initial
 * migration), so every stored id converts to a JavaScript number without rounding.
 */
export const bigintAsNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
