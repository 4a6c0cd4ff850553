import fc from 'fast-check';
import { countMemberNames, findDuplicateMemberName } from './json-member-names.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');

/** Keys of every object JSON.parse makes of `text`, at every depth. */
function parsedMemberNames(text: string): number {
  let names = 0;
  const stack: unknown[] = [JSON.parse(text)];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (!Array.isArray(node)) names += Object.keys(node).length;
    stack.push(...Object.values(node));
  }
  return names;
}

describe('duplicate member names in JSON text', () => {
  it.each([
    ['{"quantity":5000,"quantity":1}', 'quantity'],
    ['{"a":1,"b":{"c":1,"c":2}}', 'c'],
    ['[{"x":1},{"y":[{"z":1, "z" :1}]}]', 'z'],
    // The same value twice is still a duplicate (I-JSON); lossless-json would let it pass.
    ['{"a":1,"a":1}', 'a'],
    // Escaped and written out: the same name once JSON.parse has read it.
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"\\"":1,"\\u0022":2}', '"'],
    ['{"é":1,"\\u00e9":2}', 'é'],
    // A byte order mark before the text, and one at the start of a name, which is kept.
    ['\ufeff{"\ufeffk":1,"\ufeffk":2}', '\ufeffk'],
    ['{\n\t"petId" \r\n: 1,\n "petId": 2}', 'petId'],
  ])('%s repeats %j', (text, name) => {
    expect(findDuplicateMemberName(bytes(text))).toBe(name);
    expect(countMemberNames(bytes(text))).toBeGreaterThan(
      parsedMemberNames(text.replace(/^\ufeff/, '')),
    );
  });

  it.each([
    '{"a":1,"b":2}',
    // The same name in different objects, and names that only look alike.
    '{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}',
    '{"a":1,"A":2,"e\\u0301":1,"é":2}',
    // Strings that hold quotes, colons, braces and backslashes are values, not names.
    '{"a":"\\":\\"a\\":","b":"{\\"a\\":1}","c":"\\\\","d":["a",":","a"]}',
    '{"a\\\\":1,"a":2}',
    '"a"',
    '[]',
    '{}',
  ])('%s has none', (text) => {
    expect(findDuplicateMemberName(bytes(text))).toBeUndefined();
    expect(countMemberNames(bytes(text))).toBe(parsedMemberNames(text));
  });

  it('costs no stack on deep nesting', () => {
    const depth = 16000;
    const text = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    expect(findDuplicateMemberName(bytes(text))).toBeUndefined();
    expect(countMemberNames(bytes(text))).toBe(depth);
  });

  it('counts what JSON.parse keeps exactly when no name repeats (fast-check, any JSON)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 1, '\t'), (value, space) => {
        const text = JSON.stringify(value, null, space);
        expect(countMemberNames(bytes(text))).toBe(parsedMemberNames(text));
        expect(findDuplicateMemberName(bytes(text))).toBeUndefined();
      }),
      { seed: 20261126, numRuns: 500 },
    );
  });

  it('finds a name repeated anywhere (fast-check: one member of some object written twice)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string(), fc.jsonValue({ maxDepth: 2 })), { minLength: 1 }),
        fc.jsonValue({ maxDepth: 2 }),
        fc.nat(),
        (entries, other, at) => {
          const members = [...new Map(entries)].map(
            ([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`,
          );
          const [name] = [...new Map(entries)][at % members.length];
          const repeated = `${JSON.stringify(name)}:${JSON.stringify(other)}`;
          const text = `[{"outer":{${[...members, repeated].join(',')}}}]`;
          expect(findDuplicateMemberName(bytes(text))).toBe(name);
          // JSON.parse kept the last value, so the first one's own names are gone too.
          expect(countMemberNames(bytes(text))).toBeGreaterThan(parsedMemberNames(text));
        },
      ),
      { seed: 20261126, numRuns: 300 },
    );
  });
});
