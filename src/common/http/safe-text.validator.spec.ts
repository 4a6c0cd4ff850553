import fc from 'fast-check';
import {
  normalizeText,
  SAFE_PROSE_PATTERN,
  SAFE_TEXT_PATTERN,
  textProblem,
  type TextKind,
} from './safe-text.validator.js';

const namePattern = new RegExp(SAFE_TEXT_PATTERN, 'u');
const prosePattern = new RegExp(SAFE_PROSE_PATTERN, 'u');
const namePatternWithoutU = new RegExp(SAFE_TEXT_PATTERN);
const prosePatternWithoutU = new RegExp(SAFE_PROSE_PATTERN);

/** What the validator says of a value as a client sends it. */
const problem = (value: string, kind: TextKind): string | undefined =>
  textProblem(normalizeText(value, kind), kind);

describe('safe text: names and descriptions', () => {
  it('normalises to NFC, so composed and decomposed forms are one value; names are trimmed', () => {
    expect(normalizeText('Cafe\u0301', 'name')).toBe('Caf\u00e9');
    expect(normalizeText('Caf\u00e9', 'name')).toBe('Caf\u00e9');
    expect(normalizeText(' \u00a0Cafe\u0301\ufeff\n', 'name')).toBe('Caf\u00e9');
    expect(normalizeText(' Cafe\u0301\n', 'prose')).toBe(' Caf\u00e9\n');
    // NFC, not NFKC: compatibility characters stay as written.
    expect(normalizeText('\ufb01sh', 'name')).toBe('\ufb01sh');
  });

  it.each([
    ['dog', 'name'],
    ['Café', 'name'],
    ['猫', 'name'],
    ['😀 pets', 'name'],
    ['👨\u200d👩\u200d👧', 'name'],
    ['می\u200cخواهم', 'name'],
    ['كلاب', 'name'],
    ['a\u00adb', 'name'],
    ['Small rodents\n\tkept as pets', 'prose'],
    ['שלום \u200fabc\u200e', 'prose'],
    ['', 'prose'],
  ] as const)('accepts %j as a %s', (value, kind) => {
    expect(problem(value, kind)).toBeUndefined();
    const pattern = kind === 'name' ? namePattern : prosePattern;
    expect(pattern.test(normalizeText(value, kind))).toBe(true);
  });

  it.each([
    ['\u200b', 'name', 'must contain a visible character'],
    ['\u200b\u200c\u200d\u2060\ufeff\u00ad', 'name', 'must contain a visible character'],
    ['\u3164', 'name', 'must contain a visible character'],
    ['\u2800\u2800', 'name', 'must contain a visible character'],
    ['\u{e0041}\u{e0042}', 'name', 'must contain a visible character'],
    ['\ufe0f', 'prose', 'must contain a visible character'],
    ['   \n\t ', 'prose', 'must contain a visible character'],
    ['\u00a0\u2003\u3000', 'prose', 'must contain a visible character'],
    ['abc\u202egpj.exe', 'name', 'bidirectional'],
    ['\u2066x\u2069', 'name', 'bidirectional'],
    ['dog\u200e', 'name', 'bidirectional'],
    ['abc\u202egpj.exe', 'prose', 'bidirectional'],
    ['\u2067x', 'prose', 'bidirectional'],
    ['a\u0000b', 'name', 'control characters'],
    ['a\nb', 'name', 'control characters or line breaks'],
    ['a\u2028b', 'name', 'control characters or line breaks'],
    ['a\u0085b', 'prose', 'control characters'],
    ['a\u001bb', 'prose', 'control characters'],
    ['a\ud800b', 'name', 'unpaired surrogates'],
    ['\udfff', 'prose', 'unpaired surrogates'],
  ] as const)('refuses %j as a %s (%s)', (value, kind, message) => {
    expect(problem(value, kind)).toContain(message);
  });

  it('leaves an empty name to the length rule', () => {
    expect(problem(' \t ', 'name')).toBeUndefined();
    expect(normalizeText(' \t ', 'name')).toBe('');
  });

  it('has OpenAPI patterns that agree with the validator on text of the Basic Multilingual Plane, with the u flag or without', () => {
    const bmpCharacter = fc.oneof(
      fc.integer({ min: 0, max: 0xd7ff }),
      fc.integer({ min: 0xe000, max: 0xffff }),
      // The characters the rules are about, more often than chance would pick them.
      fc.constantFrom(
        ...[0x00, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x7f, 0x85, 0x9f, 0xa0, 0xad, 0x34f, 0x61c],
        ...[0x1680, 0x180e, 0x200b, 0x200d, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202e],
        ...[0x202f, 0x2060, 0x2066, 0x2069, 0x206f, 0x2800, 0x3000, 0x3164, 0xfe0f, 0xfeff],
        ...[0xffa0, 0xfff0, 0x41, 0xe9],
      ),
    );
    const text = fc
      .array(bmpCharacter, { maxLength: 6 })
      .map((codes) => String.fromCharCode(...codes))
      .filter((value) => value.isWellFormed());
    fc.assert(
      fc.property(text, fc.constantFrom<TextKind>('name', 'prose'), (value, kind) => {
        // The patterns describe what is stored: the value after normalisation, not empty.
        const stored = normalizeText(value, kind);
        fc.pre(stored !== '');
        const valid = textProblem(stored, kind) === undefined;
        const [withU, withoutU] =
          kind === 'name'
            ? [namePattern, namePatternWithoutU]
            : [prosePattern, prosePatternWithoutU];
        expect({ stored, kind, withU: withU.test(stored) }).toEqual({ stored, kind, withU: valid });
        expect({ stored, kind, withoutU: withoutU.test(stored) }).toEqual({
          stored,
          kind,
          withoutU: valid,
        });
      }),
      { seed: 20261126, numRuns: 3000 },
    );
  });
});
