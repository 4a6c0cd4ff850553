import { ValidationFailedError } from '../errors/domain-error.js';
import { Int64IdPipe, isInt64Id } from './int64-id.pipe.js';

describe('Int64IdPipe', () => {
  const pipe = new Int64IdPipe();
  const metadata = { type: 'param' as const, data: 'orderId' };

  it.each(['1', '42', '9007199254740993', '9223372036854775807'])(
    'passes %s through as the exact string',
    (id) => {
      expect(pipe.transform(id, metadata)).toBe(id);
    },
  );

  it.each([
    '0',
    '-1',
    '+1',
    '01',
    '1.0',
    '1e3',
    '0x1f',
    ' 1',
    '1 ',
    '',
    'abc',
    '9223372036854775808',
    '12345678901234567890',
  ])('rejects %j with VALIDATION_FAILED naming the parameter', (id) => {
    expect(() => pipe.transform(id, metadata)).toThrow(ValidationFailedError);
    expect(() => pipe.transform(id, metadata)).toThrow(/^orderId must be a whole number/);
  });

  it('rejects non-strings', () => {
    expect(isInt64Id(5)).toBe(false);
    expect(isInt64Id(undefined)).toBe(false);
  });
});
