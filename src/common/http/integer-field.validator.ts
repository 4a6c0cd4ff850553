import { applyDecorators } from '@nestjs/common';
import { ValidateBy, type ValidationArguments } from 'class-validator';

/**
 * A JSON integer field from `min` to `max`. The body reader hands an integer beyond 2^53 over
 * as a bigint (its exact value); a number beyond 2^53 is one that JSON.parse rounded (written
 * with a fraction or an exponent), refused when its exact value matters, within the range.
 * Two constraints, so that a wrong type and a value out of range each get their own message.
 */
export const IntegerField = (min: number | bigint, max: number | bigint): PropertyDecorator =>
  applyDecorators(
    ValidateBy({
      name: 'isInteger',
      validator: {
        validate: isInteger,
        defaultMessage: (args?: ValidationArguments) => `${args?.property} must be an integer`,
      },
    }),
    ValidateBy({
      name: 'integerRange',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) =>
          !isInteger(value) ||
          (value >= min &&
            value <= max &&
            (typeof value === 'bigint' || Number.isSafeInteger(value))),
        defaultMessage: (args?: ValidationArguments) => {
          const value = args?.value as number | bigint;
          return value >= min && value <= max
            ? `${args?.property} must be written exactly: beyond 2^53 only as an integer`
            : `${args?.property} must be from ${min} to ${max}`;
        },
      },
    }),
  );

function isInteger(value: unknown): value is number | bigint {
  return typeof value === 'bigint' || Number.isInteger(value);
}
