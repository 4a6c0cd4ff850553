import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';

// C0 controls (NUL included), DEL and C1 controls.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
// Like CONTROL_CHARACTER, but tabs and line breaks are fine in prose.
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_CHARACTER_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * Text PostgreSQL can store and a person can read: well-formed UTF-16 (no lone surrogates,
 * which would silently become U+FFFD) and no control characters.
 */
export function IsSafeText(
  options: { allowLineBreaks?: boolean } = {},
  validationOptions?: ValidationOptions,
): PropertyDecorator {
  const forbidden = options.allowLineBreaks
    ? CONTROL_CHARACTER_EXCEPT_WHITESPACE
    : CONTROL_CHARACTER;
  return ValidateBy(
    {
      name: 'isSafeText',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && value.isWellFormed() && !forbidden.test(value),
        defaultMessage: buildMessage(
          (each) => `${each}$property must not contain control characters or unpaired surrogates`,
          validationOptions,
        ),
      },
    },
    validationOptions,
  );
}
