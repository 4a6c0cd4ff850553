import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';

/*
 * The rules for text people write into the API: names (one line, unique) and prose
 * (descriptions). docs/api.md, "Text fields", says the same in words.
 *
 * Character classes are written with \u escapes of the Basic Multilingual Plane only, so the
 * OpenAPI patterns built from them mean the same with or without ECMA-262's `u` flag. The
 * validator itself uses Unicode properties and so also covers the other planes.
 */

// C0 controls (NUL included), DEL and C1 controls.
const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';
// The same, but tabs and line breaks are fine in prose.
const CONTROL_CHARACTERS_EXCEPT_WHITESPACE =
  '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';
// U+2028 and U+2029: line and paragraph separators, line breaks a name must not hold either.
const LINE_SEPARATORS = '\\u2028\\u2029';
// Embeddings, overrides (U+202A-U+202E) and isolates (U+2066-U+2069): they reorder what
// follows them, so `abc\u202Egpj.exe` shows as "abcexe.jpg".
const BIDI_CONTROLS = '\\u202a-\\u202e\\u2066-\\u2069';
// Arabic letter, left-to-right and right-to-left marks: invisible, and they make a second
// name look like the first. Prose in right-to-left scripts needs them; names do not.
const BIDI_MARKS = '\\u061c\\u200e\\u200f';
// White space, default-ignorable code points (soft hyphen, zero-width space and joiners,
// word joiner, U+FEFF, variation selectors, Hangul fillers, ...) and the Braille blank: a
// value made only of these shows as nothing.
const INVISIBLE_CHARACTERS =
  '\\u0009-\\u000d\\u0020\\u0085\\u00a0\\u00ad\\u034f\\u061c\\u115f\\u1160\\u1680' +
  '\\u17b4\\u17b5\\u180b-\\u180f\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u2800' +
  '\\u3000\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\ufff8';

const NAME_FORBIDDEN = CONTROL_CHARACTERS + LINE_SEPARATORS + BIDI_CONTROLS + BIDI_MARKS;
const PROSE_FORBIDDEN = CONTROL_CHARACTERS_EXCEPT_WHITESPACE + BIDI_CONTROLS;

/**
 * The same rules as JSON Schema `pattern`s (ECMA-262), for the OpenAPI documents: a name holds
 * no control, line-breaking or bidirectional formatting character and at least one visible
 * one; prose may also hold tabs, line breaks and bidirectional marks, and may be empty. What a
 * pattern cannot say (unpaired surrogates, characters beyond U+FFFF) the validator checks.
 */
export const SAFE_TEXT_PATTERN = `^[^${NAME_FORBIDDEN}]*[^${NAME_FORBIDDEN}${INVISIBLE_CHARACTERS}][^${NAME_FORBIDDEN}]*$`;
export const SAFE_PROSE_PATTERN = `^([^${PROSE_FORBIDDEN}]*[^${PROSE_FORBIDDEN}${INVISIBLE_CHARACTERS}][^${PROSE_FORBIDDEN}]*)?$`;

/**
 * What text stored before these rules may hold, for the answers that show it: no control
 * characters (names) or none but tabs and line breaks (prose).
 */
export const STORED_TEXT_PATTERN = `^[^${CONTROL_CHARACTERS}]*$`;
export const STORED_PROSE_PATTERN = `^[^${CONTROL_CHARACTERS_EXCEPT_WHITESPACE}]*$`;

const CONTROL = new RegExp(`[${CONTROL_CHARACTERS}]`);
const CONTROL_EXCEPT_WHITESPACE = new RegExp(`[${CONTROL_CHARACTERS_EXCEPT_WHITESPACE}]`);
const LINE_SEPARATOR = new RegExp(`[${LINE_SEPARATORS}]`);
const BIDI_CONTROL = new RegExp(`[${BIDI_CONTROLS}]`);
const BIDI_CONTROL_OR_MARK = new RegExp(`[${BIDI_CONTROLS}${BIDI_MARKS}]`);
/** Only invisible characters, in every plane (INVISIBLE_CHARACTERS is this, within the BMP). */
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]+$/u;

export type TextKind = 'name' | 'prose';

/** What is wrong with a text field's value (after normalizeText), or undefined. */
export function textProblem(value: string, kind: TextKind): string | undefined {
  if (!value.isWellFormed()) {
    // An unpaired surrogate has no UTF-8 form: PostgreSQL would store U+FFFD.
    return 'must not contain unpaired surrogates';
  }
  if (kind === 'name') {
    if (CONTROL.test(value) || LINE_SEPARATOR.test(value)) {
      return 'must not contain control characters or line breaks';
    }
    if (BIDI_CONTROL_OR_MARK.test(value)) {
      return 'must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)';
    }
  } else {
    if (CONTROL_EXCEPT_WHITESPACE.test(value)) {
      return 'must not contain control characters other than tabs and line breaks';
    }
    if (BIDI_CONTROL.test(value)) {
      return 'must not contain bidirectional embedding, override or isolate characters (U+202A to U+202E, U+2066 to U+2069)';
    }
  }
  // Empty is the length rule's to judge (a name has one, a description may be empty).
  if (value !== '' && INVISIBLE_ONLY.test(value)) {
    return 'must contain a visible character, not only white space or invisible characters';
  }
  return undefined;
}

/**
 * Text as it is validated and stored: in Unicode Normalization Form C, so that one name has
 * one form ("Café" composed or decomposed is the same name, and the same row for the unique
 * index), and a name without surrounding white space.
 */
export function normalizeText(value: string, kind: TextKind): string {
  const composed = value.normalize('NFC');
  return kind === 'name' ? composed.trim() : composed;
}

/**
 * A text field of a request body: normalised (normalizeText) when the body is read, then
 * refused with a message saying why when textProblem finds something. Type and length are the
 * field's own rules (IsString, CodePointLength), checked on the normalised value.
 */
export function SafeText(kind: TextKind): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? normalizeText(value, kind) : value,
    ),
    ValidateBy({
      name: 'safeText',
      constraints: [kind],
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !textProblem(value, kind),
        defaultMessage: (args?: ValidationArguments) =>
          `${args?.property ?? 'text'} ${textProblem(String(args?.value), kind) ?? ''}`,
      },
    }),
  );
}
