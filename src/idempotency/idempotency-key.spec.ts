import { ValidationFailedError } from '../common/errors/domain-error.js';
import { canonicalJson, parseIdempotencyKey, requestFingerprint } from './idempotency-key.js';

describe('parseIdempotencyKey', () => {
  it('answers undefined when no header was sent', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey([])).toBeUndefined();
  });

  it.each([
    ['abc', 'abc'],
    ['"abc"', 'abc'],
    ['"a\\"b\\\\c"', 'a"b\\c'],
    ['"', '"'],
    ['"abc', '"abc'],
    ['k'.repeat(255), 'k'.repeat(255)],
    [`"${'k'.repeat(255)}"`, 'k'.repeat(255)],
    ['!~', '!~'],
  ])('reads %j as the key %j', (value, key) => {
    expect(parseIdempotencyKey([value])).toBe(key);
  });

  it.each([
    [''],
    ['""'],
    ['a b'],
    ['"a b"'],
    ['tab\there'],
    ['clé'],
    ['k'.repeat(256)],
    [`"${'k'.repeat(256)}"`],
    ['"a"b"'],
    ['"a\\b"'],
    ['"a\\"'],
  ])('refuses %j with a 400 naming the header', (value) => {
    expect(() => parseIdempotencyKey([value])).toThrow(ValidationFailedError);
    expect(() => parseIdempotencyKey([value])).toThrow(/^Idempotency-Key /);
  });

  it('refuses a header sent twice, even with one value', () => {
    expect(() => parseIdempotencyKey(['a', 'a'])).toThrow(/Idempotency-Key must be sent once/);
  });
});

describe('the request fingerprint', () => {
  it('ignores key order and white space, at every depth', () => {
    expect(canonicalJson(JSON.parse('{ "b": [1, {"y": 2, "x": 1}], "a": "é" }'))).toBe(
      '{"a":"é","b":[1,{"x":1,"y":2}]}',
    );
    expect(requestFingerprint(JSON.parse('{"petId":1,"quantity":2}'))).toEqual(
      requestFingerprint(JSON.parse('{ "quantity": 2.0, "petId": 1 }')),
    );
  });

  it('tells values apart', () => {
    const fingerprints = [
      { petId: 1, quantity: 2 },
      { petId: 1, quantity: '2' },
      { petId: 1, quantity: 2, shipDate: null },
      { petId: 1 },
      { name: 'dog' },
      { name: 'Dog' },
      { name: ' dog' },
      [1, 2],
      [2, 1],
    ].map((body) => requestFingerprint(body).toString('hex'));
    expect(new Set(fingerprints).size).toBe(fingerprints.length);
  });
});
