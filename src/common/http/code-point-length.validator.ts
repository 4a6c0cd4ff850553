import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';

/**
 * Length in Unicode code points, as PostgreSQL's varchar(n) and char_length() count it.
 * class-validator's @Length counts differently (it skips variation selectors, and JavaScript
 * counts surrogate pairs twice), which would let a too-long value reach the database.
 */
export function CodePointLength(
  min: number,
  max: number,
  validationOptions?: ValidationOptions,
): PropertyDecorator {
  return ValidateBy(
    {
      name: 'codePointLength',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const length = [...value].length;
          return length >= min && length <= max;
        },
        defaultMessage: buildMessage(
          (each) =>
            min > 0
              ? `${each}$property must be ${min} to ${max} characters long`
              : `${each}$property must be at most ${max} characters long`,
          validationOptions,
        ),
      },
    },
    validationOptions,
  );
}
