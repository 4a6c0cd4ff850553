import { ExactInt64, int64Id, stringifyExactly } from './exact-int64.js';

describe('exact int64 ids in JSON', () => {
  it('keeps ids below 2^53 numbers, and larger ones exact', () => {
    expect(int64Id('42')).toBe(42);
    expect(int64Id('9007199254740991')).toBe(9007199254740991);
    expect(int64Id('9007199254740992')).toEqual(new ExactInt64('9007199254740992'));
    expect(String(int64Id('9223372036854775807'))).toBe('9223372036854775807');
  });

  it('writes an ExactInt64 as a JSON number of its digits, anywhere in a value', () => {
    const value = {
      id: 7,
      petId: int64Id('9007199254740993'),
      list: [int64Id('9223372036854775807'), 1],
      nested: { id: int64Id('9007199254740995') },
    };
    expect(stringifyExactly(value)).toBe(
      '{"id":7,"petId":9007199254740993,"list":[9223372036854775807,1],"nested":{"id":9007199254740995}}',
    );
  });

  it('writes values without one as JSON.stringify does, markers a client could send included', () => {
    const value = { name: '\u0000int64-00000000-0000-0000-0000-000000000000:5', n: [1, 'a'] };
    expect(stringifyExactly(value)).toBe(JSON.stringify(value));
    expect(stringifyExactly({ a: int64Id('9007199254740993'), ...value })).toBe(
      `{"a":9007199254740993,${JSON.stringify(value).slice(1)}`,
    );
  });
});
