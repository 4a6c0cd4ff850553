import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';

// C0 controls (NUL included), DEL and C1 controls.
const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';
// The same, but tabs and line breaks are fine in prose.
const CONTROL_CHARACTERS_EXCEPT_WHITESPACE =
  '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';

const CONTROL_CHARACTER = new RegExp(`[${CONTROL_CHARACTERS}]`);
const CONTROL_CHARACTER_EXCEPT_WHITESPACE = new RegExp(`[${CONTROL_CHARACTERS_EXCEPT_WHITESPACE}]`);

/**
 * The same rules as JSON Schema `pattern`s (ECMA-262), for the OpenAPI document: text without
 * control characters, and prose that may also hold tabs and line breaks.
 */
export const SAFE_TEXT_PATTERN = `^[^${CONTROL_CHARACTERS}]*$`;
export const SAFE_PROSE_PATTERN = `^[^${CONTROL_CHARACTERS_EXCEPT_WHITESPACE}]*$`;

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
