import fc from 'fast-check';
import type { Response, Test } from 'supertest';
import { expectErrorResponse } from './http-assertions.js';

/*
 * Building blocks of test/hostile-input.e2e-spec.ts: fast-check arbitraries for hostile path
 * ids, bodies, headers and v2 list query strings, and oracles that say, from docs/api.md alone
 * (docs/api.md), what the API must answer to each.
 */

/** docs/api.md: bodies over 16 KiB are 413. */
export const MAX_BODY_BYTES = 16 * 1024;
/** docs/api.md: path ids go up to 2^63 - 1. */
export const INT64_MAX = 9223372036854775807n;
/** The X-Request-Id the app echoes as it is, and the shape of the ones it generates. */
export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** An X-Request-Id that could be an API key (psk_ and 22 or more key characters): replaced. */
export const KEY_LIKE_REQUEST_ID = /psk_[A-Za-z0-9_-]{22,}/i;

/** Every 4xx code of docs/api.md, Errors, with the statuses it may come with. */
const CONTRACT_4XX = new Map<string, readonly number[]>([
  ['VALIDATION_FAILED', [400]],
  ['MALFORMED_JSON', [400]],
  ['UNAUTHORIZED', [401]],
  ['NOT_FOUND', [404]],
  ['ORDER_NOT_FOUND', [404]],
  ['PET_NOT_FOUND', [404, 422]],
  ['ORDER_ALREADY_SHIPPED', [409]],
  ['ORDER_NOT_PENDING', [409]],
  ['CATEGORY_EXISTS', [409]],
  ['WEBHOOK_NOT_FOUND', [404]],
  ['WEBHOOK_LIMIT_REACHED', [409]],
  ['WEBHOOK_DISABLED', [409]],
  ['DELIVERY_NOT_FOUND', [404]],
  ['DELIVERY_PENDING', [409]],
  ['IDEMPOTENCY_KEY_IN_USE', [409]],
  ['IDEMPOTENCY_KEY_REUSED', [422]],
  ['PAYLOAD_TOO_LARGE', [413]],
  ['UNSUPPORTED_MEDIA_TYPE', [415]],
  ['RATE_LIMITED', [429]],
  ['HEADERS_TOO_LARGE', [431]],
  ['REQUEST_TIMEOUT', [408]],
  ['EXPECTATION_FAILED', [417]],
]);

/** What every answer must be, whatever was sent: no 5xx, a sane X-Request-Id. */
export function expectSaneAnswer(res: Response): void {
  expect(res.status).toBeLessThan(500);
  const id = res.headers['x-request-id'] as string | undefined;
  expect({ requestId: id, sane: id !== undefined && SANE_REQUEST_ID.test(id) }).toEqual({
    requestId: id,
    sane: true,
  });
}

/**
 * A 4xx answer: exactly `{code, message, status}`, `status` equal to the HTTP status, `code`
 * one of docs/api.md's codes for that status, a message that leaks nothing
 * (expectErrorResponse). `echoes` is what the caller sent and the message may quote back (an
 * unknown field's name, a path parameter): it is cut out of the message before the leak check,
 * so a field named "/etc/passwd" is not taken for a leaked file path.
 */
export function expectContractError(res: Response, echoes: readonly string[] = []): void {
  expectSaneAnswer(res);
  expect(res.status).toBeGreaterThanOrEqual(400);
  const code: unknown = res.body?.code;
  const statuses = typeof code === 'string' ? CONTRACT_4XX.get(code) : undefined;
  expect({
    status: res.status,
    code,
    isContractCode: statuses?.includes(res.status) ?? false,
  }).toEqual({ status: res.status, code, isContractCode: true });
  let message: unknown = res.body?.message;
  if (typeof message === 'string') {
    for (const echo of [...echoes]
      .filter((e) => e.length > 0)
      .sort((a, b) => b.length - a.length)) {
      message = (message as string).split(echo).join('<echo>');
    }
  }
  // The shared helper checks status, Content-Type, the exact three keys and the message.
  const scrubbed = {
    status: res.status,
    headers: res.headers,
    body: res.body === null || typeof res.body !== 'object' ? res.body : { ...res.body, message },
  };
  expectErrorResponse(scrubbed as unknown as Response, res.status, code as string);
}

/** The same, when the answer must be one given error. */
export function expectError(
  res: Response,
  status: number,
  code: string,
  echoes: readonly string[] = [],
): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expectContractError(res, echoes);
}

/**
 * Errors Node's HTTP client raises before anything is sent: header values with characters
 * outside TAB, SP..~ and 0x80..0xFF (NUL, CR, LF, other controls, anything above U+00FF),
 * header names that are not tokens, paths with unescaped characters. Such a request cannot
 * reach any server through Node, so the case is "not sendable" rather than a failure.
 */
const CLIENT_REFUSALS = new Set([
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_UNESCAPED_CHARACTERS',
  'ERR_INVALID_URL',
]);

export const NOT_SENDABLE = Symbol('not sendable');

/** Sends the request; NOT_SENDABLE when Node's client refuses it (anything else is thrown). */
export async function sendUnlessRefused(
  build: () => Test,
): Promise<Response | typeof NOT_SENDABLE> {
  try {
    return await build();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && CLIENT_REFUSALS.has(code)) return NOT_SENDABLE;
    throw error;
  }
}

/** Header values Node's client sends (see CLIENT_REFUSALS). */
const SENDABLE_HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
export const isSendableHeaderValue = (value: string): boolean => SENDABLE_HEADER_VALUE.test(value);

/** What a server sees of a header value: HTTP strips surrounding spaces and tabs (RFC 9110 5.5). */
export const receivedHeaderValue = (value: string): string => value.replace(/^[ \t]+|[ \t]+$/g, '');

// ---------------------------------------------------------------------------------------------
// Path ids
// ---------------------------------------------------------------------------------------------

/** docs/api.md: decimal digits only, 1 .. 2^63 - 1 (no sign, no leading zero). */
export function isContractId(text: string): boolean {
  return /^[1-9][0-9]*$/.test(text) && BigInt(text) <= INT64_MAX;
}

const digit = fc.constantFrom(...'0123456789');
const digits = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: digit, minLength, maxLength });
/** Characters Unicode calls digits (or numbers) that are not ASCII 0-9. */
const unicodeDigit = fc.constantFrom(
  ...['٠', '١', '٣', '۷', '߂', '३', '১', '๑', '０', '１', '９', '𝟙', '𝟘', '²', '①', 'Ⅻ', '〇', '႑'],
);
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const controlCharacter = fc
  .integer({ min: 0, max: 0x9f })
  .filter((c) => c < 0x20 || c >= 0x7f)
  .map((c) => String.fromCharCode(c));

/**
 * Path-id text sent percent-encoded, so the app receives exactly this string. Any code point
 * (well-formed: a lone surrogate has no UTF-8 form to encode, see rawPercentId for those).
 */
export const encodedIdText: fc.Arbitrary<string> = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 30 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
    fc.string({ unit: 'binary', minLength: 100, maxLength: 300 }),
    digits(1, 40),
    digits(200, 1000),
    fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
    fc.bigInt({ min: INT64_MAX - 3n, max: INT64_MAX + 3n }).map(String),
    fc.bigInt({ min: 2n ** 53n - 2n, max: 2n ** 53n + 2n }).map(String),
    fc
      .tuple(
        fc.constantFrom('+', '-', ' ', '0', '00', '\t', '\n', '\u00a0', '\ufeff', '\u0000', '-0'),
        digits(1, 19),
      )
      .map(([prefix, d]) => prefix + d),
    fc
      .tuple(
        digits(1, 19),
        fc.constantFrom('.0', 'e3', 'E1', ' ', 'n', 'L', '%', '_1', ',5', '\u0000', '/', '\\'),
      )
      .map(([d, suffix]) => d + suffix),
    fc.constantFrom(
      ...['0', '-0', '0x1f', '0b11', '0o7', '1_000', '1e3', '1.5', 'Infinity', 'NaN'],
      ...['null', 'undefined', 'true', '[]', '{}', '__proto__', 'constructor', '%', '%25'],
    ),
    fc.string({ unit: unicodeDigit, minLength: 1, maxLength: 5 }),
    fc.string({ unit: fc.oneof(digit, controlCharacter), minLength: 1, maxLength: 8 }),
  )
  // WHATWG URLs (which the client uses) drop "." and ".." segments, even percent-encoded.
  .filter((id) => id.isWellFormed() && id !== '.' && id !== '..');

/** Percent-encodes every character but the unreserved ones, and dots too (see above). */
export const encodePathSegment = (id: string): string =>
  encodeURIComponent(id).replace(/[.!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);

const hex = fc.constantFrom(...'0123456789abcdefABCDEF');
/** Path-id text sent as it is: digits, letters, `%` escapes good and bad. */
export const rawPercentId: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      digit,
      fc.tuple(hex, hex).map(([a, b]) => `%${a}${b}`),
      fc.constantFrom(
        ...['%', '%%', '%zz', '%G0', '%0', '%u0031', '%C0%AF', '%E0%A4%A', '%ED%A0%80'],
        ...[
          '%F0%9F%98',
          '%00',
          '%2F',
          '%3F',
          '%23',
          '%20',
          '%2B',
          '%31',
          '%39',
          '%30',
          '%EF%BC%91',
        ],
      ),
      fc.constantFrom(..."abxyzAZ-_~!$&'()*+,;=:@"),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((tokens) => tokens.join(''))
  // As above: a segment that is a dot or two, written with %2e, is dropped by the client.
  .filter((id) => !/^(\.|%2e){1,2}$/i.test(id));

/** What Express hands the route for a raw segment: decodeURIComponent, or a decoding error. */
export function decodedSegment(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

/** Keys that mean something to JavaScript objects, and near-misses of the real fields. */
export const WEIRD_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  '__lookupSetter__',
  'then',
  '',
  ' ',
  'id',
  'status',
  'complete',
  '$where',
  'name\u0000',
  'petid',
  'PetId',
  'petId ',
  ' quantity',
  'Name',
  'NAME',
  'descrip\u200btion',
  '/etc/passwd',
  'SELECT 1',
] as const;

export const weirdKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WEIRD_KEYS) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
);

/** Text with everything a careless decoder trips on: NUL, controls, lone surrogates, astral. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({
    unit: fc.oneof(
      fc.string({ minLength: 1, maxLength: 1 }),
      controlCharacter,
      loneSurrogate,
      fc.constantFrom('\u0000', '\u2028', '\u2029', '\ufeff', '\u200b', '\u0301', '😀', '\ufffd'),
      // Bidirectional controls and marks, invisible characters, a decomposed letter.
      fc.constantFrom('\u202e', '\u2066', '\u200e', '\u200d', '\u00ad', '\u3164', 'e\u0301'),
    ),
    maxLength: 30,
  }),
);

/** Any JSON value, with hostile strings and keys, some nested deeply (fc.letrec). */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 2 }),
    hostileText,
    fc.array(tie('value'), { maxLength: 3 }),
    fc
      .array(fc.tuple(weirdKey, tie('value')), { maxLength: 3 })
      // defineProperty: a "__proto__" key becomes a real own key, as JSON.parse makes it.
      .map((entries) => ownObject(entries)),
  ),
})).value;

export function ownObject(entries: ReadonlyArray<readonly [string, unknown]>): object {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/** JSON text nested `depth` levels deep, arrays or objects. */
export const deepJsonText: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 6000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays
      ? '['.repeat(depth) + ']'.repeat(depth)
      : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );

/** A JSON member `key: value`, both already JSON text, so keys may repeat and be escaped. */
export interface Member {
  key: string;
  value: string;
}

export const member = (key: string, value: unknown): Member => ({
  key: JSON.stringify(key),
  value: JSON.stringify(value),
});

/** White space JSON allows between tokens. */
export const jsonSpace = fc.constantFrom('', ' ', '\n', '\t', '\r\n', '  ');

export function objectText(members: readonly Member[], space = ''): string {
  return `{${space}${members.map((m) => `${m.key}${space}:${space}${m.value}`).join(`,${space}`)}${space}}`;
}

/** Values of a wrong type, or the right type at its edges, as JSON text. */
export const wrongTypeText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      ...['null', 'true', 'false', '[]', '{}', '""', '"1"', '" 1"', '"1e3"', '0', '-0', '-1'],
      ...['1.5', '1e400', '-1e400', '1e-400', '2.5e0', '[1]', '{"$gt":0}', '{"__proto__":1}'],
      ...['9007199254740993', '9223372036854775807', '9223372036854775808', '1e19', '1e308'],
    ),
  },
  { weight: 3, arbitrary: hostileJsonValue.map((value) => JSON.stringify(value) ?? 'null') },
  { weight: 1, arbitrary: deepJsonText },
);

// ---------------------------------------------------------------------------------------------
// Body oracle
// ---------------------------------------------------------------------------------------------

/**
 * What docs/api.md says of one body, sent with a valid key as application/json:
 * - refused: exactly this error;
 * - accepted: valid; the business outcome (201, 409, 422) is the caller's to decide;
 * - open: docs/api.md does not decide between 400 VALIDATION_FAILED and "accepted".
 * `fields` are the top-level fields at fault, which the message must name.
 */
export type BodyVerdict = (
  | { kind: 'refused'; status: number; code: string; fields: string[]; keys: string[] }
  | { kind: 'accepted' | 'open'; value: Record<string, unknown>; keys: string[] }
) & {
  /** The text starts with a byte order mark, which a parser may ignore (RFC 8259 8.1). */
  bom?: boolean;
};

type FieldCheck = 'ok' | 'bad' | 'open';

export interface BodyRules {
  /** Each field's check; absent fields are checked with `undefined`. */
  fields: Record<string, (value: unknown) => FieldCheck>;
  /** A body without any of the fields is refused (400 VALIDATION_FAILED): a change of nothing. */
  nonEmpty?: true;
}

export function judgeBody(text: string, rules: BodyRules): BodyVerdict {
  const bytes = Buffer.byteLength(text, 'utf8');
  const refused = (status: number, code: string, fields: string[] = [], keys: string[] = []) =>
    ({ kind: 'refused', status, code, fields, keys }) as const;
  if (bytes > MAX_BODY_BYTES) return refused(413, 'PAYLOAD_TOO_LARGE');
  // What the server decodes: the UTF-8 bytes the client sent (a lone surrogate in the text
  // went out as U+FFFD).
  const received = Buffer.from(text, 'utf8').toString('utf8');
  if (received.startsWith('\ufeff')) {
    return { ...judgeBody(received.slice(1), rules), bom: true };
  }
  let value: unknown;
  try {
    value = JSON.parse(received);
  } catch {
    return refused(400, 'MALFORMED_JSON');
  }
  const keys = allKeys(value);
  // I-JSON (RFC 7493): a name twice in one object, at any depth, is not acceptable JSON.
  const repeated = repeatedName(received);
  if (repeated !== undefined) {
    // The message quotes the name as a JSON string.
    return refused(400, 'MALFORMED_JSON', [], [...keys, JSON.stringify(repeated)]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refused(400, 'VALIDATION_FAILED', [], keys);
  }
  const body = value as Record<string, unknown>;
  const known = Object.keys(rules.fields);
  const fields = Object.keys(body).filter((key) => !known.includes(key));
  let open = false;
  for (const [name, check] of Object.entries(rules.fields)) {
    const verdict = check(Object.hasOwn(body, name) ? body[name] : undefined);
    if (verdict === 'bad') fields.push(name);
    if (verdict === 'open') open = true;
  }
  if (fields.length > 0) return refused(400, 'VALIDATION_FAILED', fields, keys);
  if (rules.nonEmpty && !known.some((name) => Object.hasOwn(body, name))) {
    return refused(400, 'VALIDATION_FAILED', known, keys);
  }
  return { kind: open ? 'open' : 'accepted', value: body, keys };
}

/** A JSON string token, escapes included. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/y;
const JSON_WHITE_SPACE = /[ \t\n\r]*/y;

/**
 * The first member name written twice in one object of valid JSON text, as JSON.parse reads
 * names (`"a"` and `"\u0061"` are one), or undefined. No recursion: depth is hostile.
 */
export function repeatedName(text: string): string | undefined {
  const open: Array<Set<string> | null> = [];
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c !== '"') {
      if (c === '{') open.push(new Set());
      else if (c === '[') open.push(null);
      else if (c === '}' || c === ']') open.pop();
      i++;
      continue;
    }
    JSON_STRING.lastIndex = i;
    const token = JSON_STRING.exec(text)?.[0] ?? '"';
    JSON_WHITE_SPACE.lastIndex = i + token.length;
    JSON_WHITE_SPACE.exec(text);
    i = JSON_WHITE_SPACE.lastIndex;
    const names = open.at(-1);
    if (text[i] !== ':' || !names) continue;
    const name = JSON.parse(token) as string;
    if (names.has(name)) return name;
    names.add(name);
  }
  return undefined;
}

/** Every key of every object in `value`, for the message checks (no recursion: depth is hostile). */
export function allKeys(value: unknown): string[] {
  const keys: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (!Array.isArray(node)) keys.push(...Object.keys(node));
    stack.push(...Object.values(node));
  }
  return keys;
}

/** How many containers deep `value` is: `{}` is 1, `[[]]` is 2. */
export function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

const codePoints = (text: string): number => [...text].length;
const CONTROL = /\p{Cc}/u;
/** Controls prose may not hold: all but tab, line feed and carriage return. */
const PROSE_CONTROL = /[^\P{Cc}\t\n\r]/u;
/** Embeddings, overrides and isolates; names also refuse the marks (U+061C, U+200E, U+200F). */
const BIDI_CONTROL = /\p{Bidi_Control}/u;
const BIDI_MARK = /[\u061c\u200e\u200f]/u;
/** Text that shows as nothing: white space, default-ignorable characters, the Braille blank. */
const INVISIBLE_ONLY = /^[\s\p{Default_Ignorable_Code_Point}\u2800]+$/u;

/** docs/api.md, "Text fields": names and descriptions are stored in Unicode NFC. */
export const storedName = (name: string): string => name.normalize('NFC').trim();
export const storedProse = (text: string): string => text.normalize('NFC');

/**
 * docs/api.md: integers; `petId` an int64 from 1, `quantity` 1..1000. The oracle reads bodies
 * with JSON.parse, which rounds an integer beyond 2^53: the service reads it exactly (the store
 * tests pin that down), so such a value is open unless even rounded it is out of range.
 */
const integerIn =
  (min: number, max: number) =>
  (value: unknown): FieldCheck => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) return 'bad';
    if (!Number.isSafeInteger(value)) return value > max ? 'bad' : 'open';
    return value <= max ? 'ok' : 'bad';
  };

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * placeOrder's optional `shipDate`. docs/api.md shows only the Order's form (UTC with
 * milliseconds); for input it takes an ISO 8601 date-time with an offset. A strict RFC 3339
 * date-time of a real calendar day from year 0100, whose instant lies in years 1..9999 UTC,
 * is valid; what is not a string, or not a date-time at all, is a wrong type; the rest (leap
 * seconds, lower-case `t`, no seconds, years 0000-0099, instants past year 9999 once the offset
 * is applied, ...) is open: refused, or accepted and then answered as an Order of docs/api.md (the
 * caller checks the 201: its shipDate must have docs/api.md's form).
 */
export function checkShipDate(value: unknown): FieldCheck {
  if (value === undefined) return 'ok';
  if (typeof value !== 'string') return 'bad';
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(value)) return 'bad';
  const match = RFC3339.exec(value);
  if (!match) return 'open';
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate();
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const lastDay = month === 2 ? (leap ? 29 : 28) : daysInMonth;
  if (month < 1 || month > 12 || day < 1 || day > lastDay || hour > 23 || minute > 59) {
    return 'bad';
  }
  if (second === 60) return 'open';
  if (second > 59 || offsetHours > 23 || offsetMinutes > 59) return 'bad';
  // Years 0000-0099 as written: ISO 8601 allows them by agreement only, and many parsers
  // read two-digit years; docs/api.md sets no range.
  if (year < 100) return 'open';
  const sign = match[8] === '-' ? -1 : 1;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute - sign * (offsetHours * 60 + offsetMinutes), second, 0);
  const utcYear = utc.getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999 ? 'ok' : 'open';
}

/**
 * The instant (ms since the epoch) a date-time names, for the forms checkShipDate does not
 * refuse: RFC 3339, `t`/`z` in any case, seconds optional; undefined for anything else.
 */
export function shipDateInstant(value: string): number | undefined {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/.exec(
      value,
    );
  if (!match) return undefined;
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number);
  const second = Number(match[6] ?? 0);
  const millis = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const sign = match[8] === '-' ? -1 : 1;
  const offset = match[8] === undefined ? 0 : Number(match[9]) * 60 + Number(match[10]);
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute - sign * offset, second, millis);
  return utc.getTime();
}

export const PLACE_ORDER_RULES: BodyRules = {
  fields: {
    petId: integerIn(1, Number(INT64_MAX)),
    quantity: integerIn(1, 1000),
    shipDate: checkShipDate,
  },
};

/**
 * A category's or a subscription's optional description (docs/api.md, "Text fields"): a
 * string of at most 500 characters once in NFC, that PostgreSQL can store (no lone
 * surrogates), without control characters but tabs and line breaks, without bidirectional
 * embeddings, overrides or isolates, and not only invisible characters unless empty.
 */
function optionalDescription(value: unknown): FieldCheck {
  if (value === undefined) return 'ok';
  if (typeof value !== 'string') return 'bad';
  const text = storedProse(value);
  const bidi = [...text].some((c) => BIDI_CONTROL.test(c) && !BIDI_MARK.test(c));
  return codePoints(text) > 500 ||
    !text.isWellFormed() ||
    PROSE_CONTROL.test(text) ||
    bidi ||
    INVISIBLE_ONLY.test(text)
    ? 'bad'
    : 'ok';
}

export const CREATE_CATEGORY_RULES: BodyRules = {
  fields: {
    // In NFC and trimmed, 1..64 characters (code points, as PostgreSQL counts them), text
    // PostgreSQL can store (no lone surrogates: they cannot be UTF-8), no control characters,
    // line separators or bidirectional controls and marks, not only invisible characters.
    name: (value) => {
      if (typeof value !== 'string') return 'bad';
      const name = storedName(value);
      const length = codePoints(name);
      return length >= 1 &&
        length <= 64 &&
        name.isWellFormed() &&
        !CONTROL.test(name) &&
        !/[\u2028\u2029]/.test(name) &&
        !BIDI_CONTROL.test(name) &&
        !INVISIBLE_ONLY.test(name)
        ? 'ok'
        : 'bad';
    },
    description: optionalDescription,
  },
};

/** Webhook event types (docs/webhooks.md). */
export const WEBHOOK_EVENT_TYPES = [
  'order.placed',
  'order.shipped',
  'order.cancelled',
  'category.created',
];

/**
 * Hosts a webhook URL is generated with, as written, and what docs/api.md says of each when
 * private targets are not allowed: public addresses are fine; loopback, private, link-local,
 * unique-local and unspecified ones (in any spelling the URL parser accepts), and names that
 * resolve to them, are refused; `.invalid` names never resolve (RFC 6761): refused too.
 */
export const WEBHOOK_HOSTS: ReadonlyArray<readonly [written: string, verdict: 'ok' | 'bad']> = [
  ['93.184.216.34', 'ok'],
  ['8.8.8.8', 'ok'],
  ['[2606:4700:4700::1111]', 'ok'],
  ['127.0.0.1', 'bad'],
  ['10.0.0.1', 'bad'],
  ['172.16.5.4', 'bad'],
  ['192.168.1.1', 'bad'],
  ['169.254.169.254', 'bad'],
  ['0.0.0.0', 'bad'],
  ['2130706433', 'bad'],
  ['0x7f.1', 'bad'],
  ['[::1]', 'bad'],
  ['[fd00::1]', 'bad'],
  ['[fe80::1]', 'bad'],
  ['[::ffff:127.0.0.1]', 'bad'],
  // IPv4 carried in IPv6: compatible, SIIT, NAT64, 6to4, Teredo (client inverted)
  ['[::127.0.0.1]', 'bad'],
  ['[::7f00:1]', 'bad'],
  ['[::ffff:0:7f00:1]', 'bad'],
  ['[64:ff9b::7f00:1]', 'bad'],
  ['[64:ff9b:1::a9fe:a9fe]', 'bad'],
  ['[2002:c0a8:101::1]', 'bad'],
  ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'bad'],
  ['[64:ff9b::808:808]', 'ok'],
  ['[2002:808:808::1]', 'ok'],
  ['localhost', 'bad'],
  ['hooks.invalid', 'bad'],
  // The same addresses in the other spellings the URL parser reads as them: shortened,
  // octal, hexadecimal and whole-number IPv4, a trailing dot, percent-encoded or full-width
  // digits (not visible ASCII: refused as written), IPv6 written out or in capitals.
  ['127.1', 'bad'],
  ['0177.0.0.1', 'bad'],
  ['0x7f000001', 'bad'],
  ['017700000001', 'bad'],
  ['127.0.0.1.', 'bad'],
  ['0', 'bad'],
  ['10.1', 'bad'],
  ['3232235777', 'bad'],
  ['0xa9.0xfe.0xa9.0xfe', 'bad'],
  ['%31%32%37.0.0.1', 'bad'],
  ['\uff11\uff12\uff17.\uff10.\uff10.\uff11', 'bad'],
  ['LOCALHOST', 'bad'],
  ['localhost.', 'bad'],
  ['[0:0:0:0:0:0:0:1]', 'bad'],
  ['[::]', 'bad'],
  ['[0::1]', 'bad'],
  ['[::ffff:7f00:1]', 'bad'],
  ['[::FFFF:169.254.169.254]', 'bad'],
  ['[FC00::1]', 'bad'],
  ['[fe80::a:b]', 'bad'],
  ['[0:0:0:0:0:ffff:c0a8:101]', 'bad'],
  ['[64:ff9b::127.0.0.1]', 'bad'],
  ['93.184.216.34.', 'ok'],
  ['0x5d.0xb8.0xd8.0x22', 'ok'],
];

/** The verdict on each host as the URL parser normalizes it (`0x7f.1` is 127.0.0.1). */
const WEBHOOK_HOST_VERDICTS = new Map(
  WEBHOOK_HOSTS.map(([written, verdict]) => [new URL(`http://${written}/`).hostname, verdict]),
);

/** Characters RFC 3986 allows nowhere in a URL (besides controls, space and non-ASCII). */
const URL_UNSAFE = /[<>"{}|\\^`]/;

/**
 * createWebhook's `url` (docs/webhooks.md): an absolute http or https URL of at most 2048
 * characters, without user information, whose host is not private. As docs/api.md has it, it
 * is written as RFC 3986 has it (visible ASCII, `http(s)://`). A host the table above does not
 * know (a mutated one) is open: refused, or accepted if DNS happens to resolve it publicly.
 */
function checkWebhookUrl(value: unknown): FieldCheck {
  if (typeof value !== 'string') return 'bad';
  const length = codePoints(value);
  if (length < 1 || length > 2048) return 'bad';
  if (!/^https?:\/\//i.test(value) || /[^\x21-\x7e]/.test(value) || URL_UNSAFE.test(value)) {
    return 'bad';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'bad';
  }
  if (url.username !== '' || url.password !== '') return 'bad';
  return (
    WEBHOOK_HOST_VERDICTS.get(url.hostname) ?? (url.hostname.endsWith('.invalid') ? 'bad' : 'open')
  );
}

/** A subscription's `events`: a non-empty array of distinct event types. */
const checkWebhookEvents = (value: unknown): FieldCheck =>
  Array.isArray(value) &&
  value.length > 0 &&
  value.every((type) => WEBHOOK_EVENT_TYPES.includes(type as string)) &&
  new Set(value).size === value.length
    ? 'ok'
    : 'bad';

export const CREATE_WEBHOOK_RULES: BodyRules = {
  fields: {
    url: checkWebhookUrl,
    events: checkWebhookEvents,
    description: optionalDescription,
  },
};

/** A field that may be left out; when given, `check` judges it. */
const leftOutOr =
  (check: (value: unknown) => FieldCheck) =>
  (value: unknown): FieldCheck =>
    value === undefined ? 'ok' : check(value);

/**
 * updateWebhook's body (docs/api.md, Webhooks): any of createWebhook's fields under its rules,
 * `description: null` removing the description, and `enabled`, a boolean; null is a wrong type
 * for all but `description`; an empty body is a 400.
 */
export const UPDATE_WEBHOOK_RULES: BodyRules = {
  fields: {
    url: leftOutOr(checkWebhookUrl),
    events: leftOutOr(checkWebhookEvents),
    description: (value) => (value === null ? 'ok' : optionalDescription(value)),
    enabled: (value) => (value === undefined || typeof value === 'boolean' ? 'ok' : 'bad'),
  },
  nonEmpty: true,
};

/** How much of a secret's text counts as showing it: 96 bits of base64, 64 of hex. */
const SECRET_PART = 16;

/**
 * The answer shows nothing of a subscription's signing secret (32 bytes), in its headers or
 * body: not the `whsec_` form only createWebhook's answer shows (docs/api.md, Webhooks), its
 * base64url or hex, nor any SECRET_PART characters of them in a row.
 */
export function expectSecretNotShown(res: Response, secret: Buffer): void {
  const forms = ['base64', 'base64url', 'hex'] as const;
  const parts = forms.flatMap((encoding) => {
    const text = secret.toString(encoding);
    return Array.from({ length: text.length - SECRET_PART + 1 }, (_, i) =>
      text.slice(i, i + SECRET_PART),
    );
  });
  const answer = `${JSON.stringify(res.headers)}\n${res.text}`;
  expect({ status: res.status, shown: parts.filter((part) => answer.includes(part)) }).toEqual({
    status: res.status,
    shown: [],
  });
}

// ---------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------

/**
 * Header text: printable ASCII mostly, Latin-1 (sent as single bytes), and now and then any
 * code point (which Node's client mostly refuses to send: kept rare, so most cases are sent).
 */
export const headerText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength }) },
    {
      weight: 2,
      arbitrary: fc.string({
        unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
        maxLength,
      }),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
  );

/** What Node's client sends of a Content-Type value, and how docs/api.md judges it. */
export interface ContentTypeCase {
  /** undefined: no Content-Type header at all. */
  value: string | undefined;
  /** json: must be accepted; other: must be 415; open: accepted, 415 or 400 MALFORMED_JSON. */
  verdict: 'json' | 'other' | 'open';
}

const jsonTypeWord = fc.constantFrom(
  'application/json',
  'Application/JSON',
  'APPLICATION/JSON',
  'application/Json',
);
const wellFormedUtf8Parameters = fc.constantFrom(
  '',
  '; charset=utf-8',
  ';charset=UTF-8',
  '; charset="utf-8"',
  '; CHARSET=Utf-8',
  '; foo=bar',
  '; charset=utf-8; foo="a b"',
  '; boundary=xyz',
);

export function judgeContentType(value: string | undefined): ContentTypeCase['verdict'] {
  if (value === undefined) return 'other';
  const received = receivedHeaderValue(value);
  const mediaType = (received.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType === 'application/json' ? 'open' : 'other';
}

export const contentTypeCase: fc.Arbitrary<ContentTypeCase> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(jsonTypeWord, wellFormedUtf8Parameters)
      .map(([type, parameters]) => ({ value: type + parameters, verdict: 'json' as const })),
  },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.constant(undefined),
        fc.constantFrom(
          ...['', 'text/plain', 'text/json', 'application/jsonx', 'application/json-patch+json'],
          ...['application/merge-patch+json'],
          ...['application/vnd.api+json', 'application/ld+json', 'application/*', '*/*', 'json'],
          ...['application/ json', 'application /json', 'application', 'application/xml'],
          ...['multipart/form-data; boundary=x', 'application/x-www-form-urlencoded'],
          ...['application/json; charset=latin1', 'application/json; charset=utf-16'],
          ...['application/json; charset=utf8', 'application/json; charset=', 'application/json;'],
          ...['application/json; charset', 'application/json;;;', 'application/json, text/plain'],
          ...['application/json; charset=utf-8; charset=latin1', 'application/json\tx'],
          ...[`application/json; x=${'y'.repeat(2000)}`, 'application/json; charset=utf-32'],
        ),
        headerText(60),
        fc
          .tuple(
            fc.stringMatching(/^[a-z*]{1,12}$/),
            fc.stringMatching(/^[a-z0-9.+*-]{0,20}$/),
            fc.string({ maxLength: 40 }),
          )
          .map(([type, subtype, parameters]) => `${type}/${subtype}${parameters}`),
      )
      .map((value) => ({ value, verdict: judgeContentType(value) })),
  },
);

/** An Authorization header (or several), as generated, before knowing the key. */
export type AuthorizationCase =
  | { kind: 'absent' }
  | { kind: 'valid'; scheme: string; space: string; tail: string }
  | { kind: 'text'; text: string }
  | { kind: 'key-mutant'; mutate: (key: string) => string; label: string }
  | { kind: 'several'; validFirst: boolean; other: string };

const scheme = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR');

export const authorizationCase: fc.Arbitrary<AuthorizationCase> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('valid' as const),
      scheme,
      space: fc.constantFrom(' ', '  ', '   '),
      tail: fc.constantFrom('', ' ', '\t', '  '),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'absent' as const }) },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.string({ maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc
          .string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)) })
          .map((s) => `Bearer ${s}`),
        fc.tuple(scheme, fc.string({ maxLength: 60 })).map(([s, rest]) => `${s} ${rest}`),
        fc.tuple(scheme, hostileText).map(([s, rest]) => `${s} ${rest}`),
        fc.integer({ min: 1000, max: 8000 }).map((n) => `Bearer ${'A'.repeat(n)}`),
        fc.integer({ min: 1000, max: 8000 }).map((n) => `Bearer psk_${'x'.repeat(n)}`),
        fc.constantFrom(
          ...['', ' ', '\t', 'Bearer', 'Bearer ', 'Bearer\t', 'Basic dXNlcjpwYXNz', 'Token abc'],
          ...['Bearer null', 'Bearer undefined', 'Bearer psk_', 'psk_', 'Bearer ,', 'Bearer "x"'],
          ...['Bearer x\r\nX-Injected: 1', 'Bearer \u0000', 'Bearer \u00e9', 'Bearer%20x'],
        ),
      )
      .map((text) => ({ kind: 'text' as const, text })),
  },
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        fc.constant({ label: 'key alone', mutate: (key: string) => key }),
        fc.constant({ label: 'tab after scheme', mutate: (key: string) => `Bearer\t${key}` }),
        fc.constant({ label: 'colon', mutate: (key: string) => `Bearer:${key}` }),
        fc.constant({ label: 'Basic', mutate: (key: string) => `Basic ${key}` }),
        fc.constant({
          label: 'upper-cased',
          mutate: (key: string) => `Bearer ${key.toUpperCase()}`,
        }),
        fc.constant({ label: 'two keys', mutate: (key: string) => `Bearer ${key} ${key}` }),
        fc.constant({ label: 'comma', mutate: (key: string) => `Bearer ${key},` }),
        fc.constant({ label: 'quoted', mutate: (key: string) => `Bearer "${key}"` }),
        fc.constant({ label: 'NUL', mutate: (key: string) => `Bearer ${key}\u0000` }),
        fc.integer({ min: 1, max: 40 }).map((n) => ({
          label: `cut by ${n}`,
          mutate: (key: string) => `Bearer ${key.slice(0, -n)}`,
        })),
        fc.tuple(fc.nat(), fc.string({ minLength: 1, maxLength: 1 })).map(([at, c]) => ({
          label: `one character changed to ${JSON.stringify(c)}`,
          mutate: (key: string) => {
            const i = at % key.length;
            return `Bearer ${key.slice(0, i)}${c}${key.slice(i + 1)}`;
          },
        })),
        fc.integer({ min: 1, max: 7000 }).map((n) => ({
          label: `${n} characters appended`,
          mutate: (key: string) => `Bearer ${key}${'x'.repeat(n)}`,
        })),
      )
      .map((m) => ({ kind: 'key-mutant' as const, ...m })),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('several' as const),
      validFirst: fc.boolean(),
      other: fc.string({ maxLength: 20 }),
    }),
  },
);

/** The header value(s) to send for `key`. */
export function authorizationValues(c: AuthorizationCase, key: string): string[] | undefined {
  switch (c.kind) {
    case 'absent':
      return undefined;
    case 'valid':
      return [`${c.scheme}${c.space}${key}${c.tail}`];
    case 'text':
      return [c.text];
    case 'key-mutant':
      return [c.mutate(key)];
    case 'several':
      return c.validFirst ? [`Bearer ${key}`, c.other] : [c.other, `Bearer ${key}`];
  }
}

/**
 * docs/api.md: `Authorization: Bearer <API_KEY>`, scheme word in any case. RFC 9110
 * 11.4: scheme, one or more spaces, the credentials. Leading and trailing spaces and tabs are
 * not part of a header's value. Several Authorization headers are not a form docs/api.md
 * knows: either answer is acceptable (`undefined`).
 */
export function judgeAuthorization(
  values: string[] | undefined,
  key: string,
): 'valid' | 'missing' | 'invalid' | undefined {
  if (values === undefined) return 'missing';
  if (values.length > 1) return undefined;
  const received = receivedHeaderValue(values[0]);
  if (received === '') return 'missing';
  const credentials = /^bearer +(.*?) *$/is.exec(received)?.[1];
  return credentials === key ? 'valid' : 'invalid';
}

/** An X-Request-Id value (or none). */
export const requestIdCase: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
  fc.constantFrom('z'.repeat(128), 'z'.repeat(129), '', ' ', 'a b', 'a"b', '<script>', 'a;b'),
  // Shaped like an API key: never echoed, never logged.
  fc.stringMatching(/^[A-Za-z0-9._:-]{0,20}psk_[A-Za-z0-9_-]{22,43}$/),
  headerText(200),
  fc.integer({ min: 129, max: 1024 }).map((n) => 'r'.repeat(n)),
);

/**
 * Headers that change how a message is framed or routed rather than what it says: left to the
 * HTTP layer (and Node's client sets some itself: Expect makes it send the headers at once).
 */
const FRAMING_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'expect',
  'upgrade',
  'te',
  'trailer',
  'content-encoding',
  'authorization',
  'content-type',
  'x-request-id',
]);

/** Extra request headers: known ones with odd values, and made-up ones. */
export const extraHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.tuple(
    fc
      .oneof(
        fc.constantFrom(
          ...['Accept', 'Accept-Language', 'Accept-Encoding', 'User-Agent', 'Cookie', 'Referer'],
          ...['Origin', 'X-Forwarded-For', 'X-Forwarded-Proto', 'X-Real-Ip', 'Forwarded'],
          ...['X-HTTP-Method-Override', 'If-None-Match', 'If-Modified-Since', 'Range'],
          // Idempotency-Key has a property of its own (it changes what a repeat answers).
          ...['Cache-Control', 'X-Api-Key', 'Proxy-Authorization', 'Prefer'],
        ),
        fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,40}$/),
      )
      .filter((name) => !FRAMING_HEADERS.has(name.toLowerCase())),
    fc.oneof(
      headerText(100),
      fc.constantFrom('DELETE', 'POST', '*/*', 'text/html', 'gzip, br', '1.2.3.4, ::1', '0'),
      fc.integer({ min: 100, max: 512 }).map((n) => 'h'.repeat(n)),
    ),
  ),
  { maxLength: 3 },
);

/**
 * Idempotency-Key values: any header text, visible ASCII of every length around the limit,
 * the draft's quoted form (with escapes, stray quotes and spaces), and a few short keys that
 * come back again and again, so repeats are exercised.
 */
export const idempotencyKeyValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: headerText(300) },
  { weight: 3, arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,260}$/) },
  {
    weight: 2,
    arbitrary: fc
      .string({ unit: fc.constantFrom('a', 'b', ' ', '"', '\\', '\\"', '~'), maxLength: 8 })
      .map((inner) => `"${inner}"`),
  },
  { weight: 2, arbitrary: fc.constantFrom('a', '"a"', 'b', '"', '""', 'a b', '\\', '"\\\\"') },
);

/**
 * The key the service must read from a sent value (docs/api.md, Idempotency-Key), or undefined when
 * the value must be refused with 400: 1 to 255 characters 0x21-0x7E; `"…"` is the quoted form
 * (an RFC 8941 string: `\"` and `\\` escapes), whose content must be such a key.
 */
export function judgeIdempotencyKey(sent: string): string | undefined {
  const value = receivedHeaderValue(sent);
  let key = value;
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    key = '';
    for (let i = 1; i < value.length - 1; i++) {
      let char = value[i];
      if (char === '"') return undefined;
      if (char === '\\') {
        i++;
        char = value[i];
        if (i >= value.length - 1 || (char !== '"' && char !== '\\')) return undefined;
      }
      key += char;
    }
  }
  const visible = [...key].every((char) => char >= '!' && char <= '~');
  return key.length >= 1 && key.length <= 255 && visible ? key : undefined;
}

// ---------------------------------------------------------------------------------------------
// v2 list query strings
// ---------------------------------------------------------------------------------------------

/*
 * The query parameters of v2's three lists, judged from docs/api.md ("Pages") alone: names,
 * values, repeats, the ship-date range and cursors. The service's own parsers are deliberately
 * not used: this is a second reading of the same rules.
 */

export const ORDER_STATUSES = ['pending', 'shipped', 'cancelled'] as const;
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

export interface ListRules {
  list: 'orders' | 'categories' | 'pets';
  operationId: 'listOrders' | 'listCategories' | 'listPets';
  path: string;
  /** Every parameter the list takes; any other name is a 400. */
  parameters: readonly string[];
  /** What its `status` may name, in the order docs/api.md lists them (none: no `status`). */
  statuses: readonly string[];
}

export const LIST_ORDERS_V2: ListRules = {
  list: 'orders',
  operationId: 'listOrders',
  path: '/v2/store/orders',
  parameters: ['limit', 'cursor', 'order', 'status', 'petId', 'shipDateFrom', 'shipDateTo'],
  statuses: ORDER_STATUSES,
};

export const LIST_CATEGORIES_V2: ListRules = {
  list: 'categories',
  operationId: 'listCategories',
  path: '/v2/categories',
  parameters: ['limit', 'cursor', 'order'],
  statuses: [],
};

export const LIST_PETS_V2: ListRules = {
  list: 'pets',
  operationId: 'listPets',
  path: '/v2/pets',
  parameters: ['limit', 'cursor', 'order', 'status', 'categoryId'],
  statuses: PET_STATUSES,
};

/**
 * What a cursor belongs to: the list, the order and the filters, by meaning (statuses as a
 * set, ship dates as instants), so the same query written differently is the same binding.
 * The limit is not part of it: it may change from page to page.
 */
export interface ListBinding {
  list: ListRules['list'];
  order: 'asc' | 'desc';
  /** In the list's statuses' order; absent when `status` was not given. */
  statuses?: string[];
  petId?: string;
  categoryId?: string;
  /** Microseconds since 1970, UTC. */
  from?: bigint;
  to?: bigint;
}

/** A nextCursor the service answered, and what it was answered for. */
export interface IssuedCursor {
  binding: ListBinding;
  /** The id of the last item of the page that carried it. */
  lastId: bigint;
}

export type ListVerdict =
  | { valid: true; limit: number; binding: ListBinding; after?: bigint }
  | { valid: false; bad: string[] };

const isHexDigit = (byte: number): boolean =>
  (byte >= 0x30 && byte <= 0x39) ||
  (byte >= 0x41 && byte <= 0x46) ||
  (byte >= 0x61 && byte <= 0x66);
/** UTF-8 with U+FFFD for what is not, keeping a byte order mark (it is part of the text here). */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/** application/x-www-form-urlencoded text: `+` is a space, `%XX` a byte (else kept), UTF-8. */
function formDecode(text: string): string {
  const bytes = Buffer.from(text.replaceAll('+', ' '), 'utf8');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (
      bytes[i] === 0x25 &&
      i + 2 < bytes.length &&
      isHexDigit(bytes[i + 1]) &&
      isHexDigit(bytes[i + 2])
    ) {
      out.push(Number.parseInt(String.fromCharCode(bytes[i + 1], bytes[i + 2]), 16));
      i += 2;
    } else {
      out.push(bytes[i]);
    }
  }
  return utf8.decode(Uint8Array.from(out));
}

/**
 * The name-value pairs a server reads from a query string, as the WHATWG URL standard parses
 * application/x-www-form-urlencoded (written out here: Node's URLSearchParams mis-decodes
 * non-ASCII text next to a bad escape). A leading `?` is part of the first name, as a server
 * sees it.
 */
export function decodeQuery(query: string): Array<[string, string]> {
  return query
    .split('&')
    .filter((piece) => piece !== '')
    .map((piece) => {
      const at = piece.indexOf('=');
      return at === -1
        ? [formDecode(piece), '']
        : [formDecode(piece.slice(0, at)), formDecode(piece.slice(at + 1))];
    });
}

function sameBinding(a: ListBinding, b: ListBinding): boolean {
  return (
    a.list === b.list &&
    a.order === b.order &&
    a.statuses?.join(',') === b.statuses?.join(',') &&
    a.petId === b.petId &&
    a.categoryId === b.categoryId &&
    a.from === b.from &&
    a.to === b.to
  );
}

const LIST_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const MICROS_PER_DAY = 86_400_000_000n;

const isLeapYear = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * ((m + 9) % 12) + 2) / 5) + d - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/** The date of a day count from 1970-01-01 (civil_from_days). */
function civilFromDays(days: number): [year: number, month: number, day: number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

/** 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z: docs/api.md, "within the years 0001 to 9999 in UTC". */
const FIRST_LIST_INSTANT = BigInt(daysFromCivil(1, 1, 1)) * MICROS_PER_DAY;
const END_LIST_INSTANT = BigInt(daysFromCivil(10000, 1, 1)) * MICROS_PER_DAY;

/**
 * A ship-date parameter as docs/api.md defines it: an ISO 8601 date-time (four-digit year,
 * upper-case `T`) with an offset, `Z` or `±hh:mm`; seconds and up to six fractional digits
 * optional; a real calendar day and time of day (no leap second, no 24:00); the instant it
 * names within the years 0001 to 9999 in UTC. Returns that instant in microseconds.
 */
export function parseListDateTime(text: string): bigint | undefined {
  const match = LIST_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute] = match.slice(1, 6).map(Number);
  const second = Number(match[6] ?? '0');
  const fraction = BigInt((match[7] ?? '').padEnd(6, '0'));
  const monthDays = [31, isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (month < 1 || month > 12 || day < 1 || day > monthDays[month - 1]) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offset = 0;
  if (match[8] !== undefined) {
    const [offsetHours, offsetMinutes] = [Number(match[9]), Number(match[10])];
    if (offsetHours > 23 || offsetMinutes > 59) return undefined;
    offset = (match[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  }
  const seconds = (hour * 60 + minute - offset) * 60 + second;
  const instant =
    BigInt(daysFromCivil(year, month, day)) * MICROS_PER_DAY +
    BigInt(seconds) * 1_000_000n +
    fraction;
  return instant >= FIRST_LIST_INSTANT && instant < END_LIST_INSTANT ? instant : undefined;
}

/**
 * `instant` written as a query parameter value: local time at `offsetMinutes` (written `Z`
 * when 0 and `zulu`), to the minute (`digits` -1), the second (0) or 1..9 fractional digits
 * (cut, or padded with zeros past the sixth), the `+` of an offset escaped or not.
 */
export function writeDateTime(
  instant: bigint,
  offsetMinutes: number,
  digits: number,
  options: { zulu?: boolean; escapePlus?: boolean } = {},
): string {
  const local = instant + BigInt(offsetMinutes) * 60_000_000n;
  let days = local / MICROS_PER_DAY;
  let rest = local % MICROS_PER_DAY;
  if (rest < 0n) {
    days -= 1n;
    rest += MICROS_PER_DAY;
  }
  const [year, month, day] = civilFromDays(Number(days));
  const pad = (n: number | bigint, width = 2) => String(n).padStart(width, '0');
  const micros = rest % 1_000_000n;
  const totalSeconds = Number(rest / 1_000_000n);
  let time = `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}`;
  if (digits >= 0) time += `:${pad(totalSeconds % 60)}`;
  if (digits > 0) time += `.${pad(micros, 6).padEnd(9, '0').slice(0, digits)}`;
  const sign = offsetMinutes < 0 ? '-' : options.escapePlus === false ? '+' : '%2B';
  const size = Math.abs(offsetMinutes);
  const zone =
    offsetMinutes === 0 && options.zulu !== false
      ? 'Z'
      : `${sign}${pad(Math.floor(size / 60))}:${pad(size % 60)}`;
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${time}${zone}`;
}

/**
 * What docs/api.md says of one query string on a v2 list: valid (with the page it must
 * answer), or invalid with every parameter that makes it so (the message must name one).
 * `issued` holds every cursor the service answered so far, with what it was answered for.
 */
export function judgeListQuery(
  query: string,
  rules: ListRules,
  issued: ReadonlyMap<string, IssuedCursor>,
): ListVerdict {
  const pairs = decodeQuery(query);
  const bad = new Set<string>();
  const values = new Map<string, string>();
  for (const [name] of pairs) if (!rules.parameters.includes(name)) bad.add(name);
  for (const name of rules.parameters) {
    const given = pairs.filter(([n]) => n === name).map(([, value]) => value);
    // Given twice (even with the same value) or empty: 400 naming it.
    if (given.length > 1 || given[0] === '') bad.add(name);
    else if (given.length === 1) values.set(name, given[0]);
  }
  const check = (name: string, ok: (value: string) => boolean) => {
    const value = values.get(name);
    if (value !== undefined && !bad.has(name) && !ok(value)) bad.add(name);
  };
  // limit: decimal digits without a leading zero (or sign), 1 to 1000.
  check('limit', (v) => /^[1-9][0-9]*$/.test(v) && BigInt(v) <= 1000n);
  check('order', (v) => v === 'asc' || v === 'desc');
  // status: known statuses, comma-separated, each at most once, no empty item.
  check('status', (v) => {
    const items = v.split(',');
    return (
      items.every((item) => rules.statuses.includes(item)) && new Set(items).size === items.length
    );
  });
  check('petId', isContractId);
  check('categoryId', isContractId);
  check('shipDateFrom', (v) => parseListDateTime(v) !== undefined);
  check('shipDateTo', (v) => parseListDateTime(v) !== undefined);
  const from = bad.has('shipDateFrom') ? undefined : values.get('shipDateFrom');
  const to = bad.has('shipDateTo') ? undefined : values.get('shipDateTo');
  if (from !== undefined && to !== undefined) {
    // From must be earlier than to: an empty or reversed range names both.
    if (parseListDateTime(from)! >= parseListDateTime(to)!) {
      bad.add('shipDateFrom');
      bad.add('shipDateTo');
    }
  }

  const cursor = bad.has('cursor') ? undefined : values.get('cursor');
  const source = cursor === undefined ? undefined : issued.get(cursor);
  // Not issued by the service (forged, altered, cut), or issued by the other list.
  if (cursor !== undefined && source?.binding.list !== rules.list) bad.add('cursor');
  if (bad.size > 0) return { valid: false, bad: [...bad] };

  const statuses = values.get('status')?.split(',');
  const binding: ListBinding = {
    list: rules.list,
    order: values.get('order') === 'desc' ? 'desc' : 'asc',
    ...(statuses && { statuses: rules.statuses.filter((s) => statuses.includes(s)) }),
    ...(values.has('petId') && { petId: values.get('petId') }),
    ...(values.has('categoryId') && { categoryId: values.get('categoryId') }),
    ...(from !== undefined && { from: parseListDateTime(from) }),
    ...(to !== undefined && { to: parseListDateTime(to) }),
  };
  // Issued for other filters or another order.
  if (source !== undefined && !sameBinding(source.binding, binding)) {
    return { valid: false, bad: ['cursor'] };
  }
  const limit = values.get('limit');
  return {
    valid: true,
    limit: limit === undefined ? 100 : Number(limit),
    binding,
    ...(source && { after: source.lastId }),
  };
}

/**
 * The parameter an error message is about: of `candidates`, the one it names first (as a
 * word, or quoted as JSON, or, for a long name, by its quoted beginning). A message may go on
 * to list other names ("accepted: limit, cursor, …"); what it names first is its subject.
 */
export function subjectOf(message: string, candidates: readonly string[]): string | undefined {
  let subject: string | undefined;
  let at = Infinity;
  for (const name of new Set(candidates)) {
    const forms = [JSON.stringify(name)];
    if (name.length > 40) forms.push(JSON.stringify([...name].slice(0, 16).join('')).slice(0, -1));
    let index = Math.min(...forms.map((form) => message.indexOf(form)).filter((i) => i >= 0));
    if (name !== '') {
      const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const word = new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, 'u').exec(
        message,
      );
      if (word) index = Math.min(index, word.index);
    }
    // The earliest mention; at the same place, the longer name (shipDateFrom, not shipDate).
    if (index < at || (index === at && subject !== undefined && name.length > subject.length)) {
      subject = name;
      at = index;
    }
  }
  return subject;
}

/** The fixture the list queries are built around: real pets, categories and ship dates. */
export interface ListQueryContext {
  /** Pets with orders (and one without). */
  petIds: readonly string[];
  /** Categories with pets (and one without). */
  categoryIds: readonly string[];
  /** Ship dates of the fixture's orders, in microseconds, so ranges fall on their edges. */
  instants: readonly bigint[];
}

/**
 * A cursor in a generated query. Only the service can issue one, so the case says where it
 * comes from and how it is then mangled; the test asks the service for it before sending:
 * - same: a page of the query's own filters (as written);
 * - rewritten: the same filters written otherwise (statuses reordered, another offset, an
 *   explicit default order), which the cursor must still fit;
 * - other-order: the query's own filters in the other order;
 * - other-filter: the query's own filters with one changed (another pet, a microsecond, …);
 * - other: a page of other filters (`issuer`), which mostly it must not fit;
 * - other-list: a page of the other list;
 * - forged: text the service never issued.
 */
export interface CursorCase {
  source: 'same' | 'rewritten' | 'other-order' | 'other-filter' | 'other' | 'other-list' | 'forged';
  /** The limit of the page that issues it: how deep it points. */
  depth: number;
  /** The other filters' query, for `other`. */
  issuer: string;
  forged: string;
  alteration:
    | 'none'
    | 'percent-encoded'
    | 'cut'
    | 'changed'
    | 'appended'
    | 'padded'
    | 'case-swapped'
    | 'base64';
  at: number;
}

/** One `&`-separated piece of a generated query, or a cursor to fetch and place there. */
export type QueryPart = { text: string } | { cursorName: string; cursor: CursorCase };

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A cursor the service issued, as the case writes it (most alterations make it another string). */
export function alterCursor(cursor: string, c: CursorCase): string {
  const i = c.at % cursor.length;
  const char = cursor[i];
  switch (c.alteration) {
    case 'none':
      return cursor;
    case 'percent-encoded':
      // The same cursor once decoded.
      return `${cursor.slice(0, i)}%${char.charCodeAt(0).toString(16).toUpperCase()}${cursor.slice(i + 1)}`;
    case 'cut':
      return cursor.slice(0, i);
    case 'changed': {
      const other = BASE64URL[(BASE64URL.indexOf(char) + 1 + (c.at % 63)) % 64];
      return `${cursor.slice(0, i)}${other}${cursor.slice(i + 1)}`;
    }
    case 'appended':
      return `${cursor}${BASE64URL[c.at % 64]}`;
    case 'padded':
      return `${cursor}%3D`;
    case 'case-swapped': {
      const swapped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
      return `${cursor.slice(0, i)}${swapped}${cursor.slice(i + 1)}`;
    }
    case 'base64':
      // Standard base64 instead of base64url (the + escaped, as a client would).
      return cursor.replaceAll('-', '%2B').replaceAll('_', '/');
  }
}

/** Text sent as it is (no `&`, `#`, white space or controls, which change what is sent). */
const rawQueryText = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .string({
      unit: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(..."abcxyzAZ019-._~!$'()*,;:@/?=+%") },
        { weight: 2, arbitrary: fc.constantFrom('%zz', '%', '%E0%A4%A', '%C0%AF', '%ED%A0%80') },
        { weight: 2, arbitrary: fc.constantFrom('%F0%9F%98', '%00', '%FF', '%2B', '%20', '%26') },
        { weight: 1, arbitrary: fc.constantFrom('é', '😀', '\u200b', '\ufeff', '１', '٣') },
      ),
      maxLength,
    })
    .map((s) => s.replaceAll('&', ''));

/** Any text, percent-encoded (lone surrogates, which have no UTF-8 form, made well-formed). */
const encodedText = (maxLength: number): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.string({ maxLength }),
      fc.string({ unit: 'binary', maxLength }),
      fc.string({ unit: 'grapheme', maxLength: Math.ceil(maxLength / 2) }),
    )
    .map((s) => encodeURIComponent(s.toWellFormed()));

/** A parameter name as written: as it is, or with a character percent-encoded (the same name). */
const validName = (name: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(name) },
    {
      weight: 1,
      arbitrary: fc
        .nat({ max: name.length - 1 })
        .map(
          (i) =>
            `${name.slice(0, i)}%${name.charCodeAt(i).toString(16).toUpperCase()}${name.slice(i + 1)}`,
        ),
    },
  );

/** A near-miss of a parameter name: another case, a suffix or a prefix make it another name. */
const nearMissName = (name: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.mixedCase(fc.constant(name)),
    fc
      .constantFrom('s', '[]', '%5B%5D', '%20', '+', '.', '_', '%00', '[0]', '%E2%80%8B')
      .map((suffix) => name + suffix),
    fc.constantFrom('%20', '+', '_', '$', '%EF%BB%BF').map((prefix) => prefix + name),
  );

/** What a parameter's values are made of: valid ones, and the near-misses of docs/api.md. */
interface ParameterValues {
  valid: fc.Arbitrary<string>;
  nearMiss: fc.Arbitrary<string>;
}

/** limit: mostly small (so that pages are cut), its edges, leading zeros, signs, spaces. */
const LIMIT_VALUES: ParameterValues = {
  valid: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 8 }).map(String) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 1000 }).map(String) },
    { weight: 2, arbitrary: fc.constantFrom('1', '1000', '999', '%31', '1%30') },
  ),
  nearMiss: fc.oneof(
    // Just outside the range, most of all.
    { weight: 3, arbitrary: fc.constantFrom('0', '1001') },
    {
      // Leading zeros, signs, white space (a raw + is a space), nothing.
      weight: 3,
      arbitrary: fc.constantFrom(
        ...['01', '001', '0100', '01000', '-1', '-0', '%2B1', '+1', '1+', '%205', '5%20'],
        ...['%095', ''],
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        ...['10000', '1.0', '1.5', '1e2', '1E3', '0x10', 'ten', '%EF%BC%91', '%D9%A3', '1,2'],
        ...['99999999999999999999', 'Infinity', 'NaN', '5%00', '2%2C'],
      ),
    },
  ),
};

const ORDER_VALUES: ParameterValues = {
  valid: fc.constantFrom('asc', 'desc', 'asc', 'desc', 'a%73c', 'DESC'.toLowerCase()),
  nearMiss: fc.constantFrom(
    ...['ASC', 'Desc', 'ascending', 'descending', 'random', '', 'asc%20', '%20asc', 'asc+'],
    ...['asc,desc', '1', '-1', 'up', 'desc%00', '%EF%BD%81sc'],
  ),
};

/** status: distinct known statuses in any order. */
const validStatuses = (statuses: readonly string[]): fc.Arbitrary<string[]> =>
  fc.shuffledSubarray([...statuses], { minLength: 1 });

/** A status list with one thing wrong (or, by chance, nothing: the oracle says). */
const STATUS_MUTATIONS: ReadonlyArray<(items: string[], at: number) => string[]> = [
  // A status twice.
  (items, at) => [...items, items[at % items.length]],
  // An empty item: leading, trailing or doubled comma.
  (items, at) => {
    const copy = [...items];
    copy.splice(at % (items.length + 1), 0, '');
    return copy;
  },
  // Another case, another spelling, an unknown name, white space.
  (items, at) =>
    items.map((item, i) =>
      i === at % items.length
        ? [
            ...['Pending', 'SHIPPED', 'Cancelled', 'canceled', 'done', 'complete', 'placed'],
            // The other list's statuses, and pets' near-misses.
            ...['shipped', 'sold', 'available', 'Available', 'SOLD', 'adopted', 'reserved'],
          ][at % 14]
        : item,
    ),
  (items, at) =>
    items.map((item, i) =>
      i === at % items.length ? ['%20', '+', '%00', '%09'][at % 4] + item : item,
    ),
  (items, at) =>
    items.map((item, i) =>
      i === at % items.length ? item + ['%20', '+', '%2C', '%E2%80%8B'][at % 4] : item,
    ),
];

const statusValues = (statuses: readonly string[]): ParameterValues => ({
  valid: fc
    .tuple(validStatuses(statuses), fc.boolean())
    .map(([items, escaped]) => items.join(escaped ? '%2C' : ',')),
  nearMiss: fc
    .tuple(validStatuses(statuses), fc.nat({ max: STATUS_MUTATIONS.length - 1 }), fc.nat())
    .map(([items, mutation, at]) => STATUS_MUTATIONS[mutation](items, at).join(',')),
});

/** An id filter: real ids (and ids naming none); path-id near-misses, any integer. */
const idValues = (ids: readonly string[]): ParameterValues => ({
  valid: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...ids) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('987654321', '9223372036854775807', '9007199254740993', '1'),
    },
    // '%3' + '7' is '%37', the digit 7 percent-encoded: the same id.
    { weight: 1, arbitrary: fc.constantFrom(...ids).map((id) => `%3${id}`) },
  ),
  nearMiss: fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...ids),
        fc.constantFrom(
          ...[
            ['-', ''],
            ['+', ''],
            ['%2B', ''],
            ['0', ''],
            ['%20', ''],
            ['', '%20'],
          ],
          ...[
            ['', '.0'],
            ['', 'e0'],
            ['', ',1'],
            ['00', ''],
          ],
        ),
      )
      .map(([id, [before, after]]) => `${before}${id}${after}`),
    // The edges of the path-id range.
    fc.constantFrom('0', '-1', '9223372036854775808', '-9223372036854775808'),
    fc.constantFrom(...['99999999999999999999', 'abc', '', '0x1F', '%EF%BC%91', '1_000', 'null']),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  ),
});

const OFFSETS = [0, 0, 0, 60, -60, 330, -210, 14 * 60, -12 * 60, 23 * 60 + 59, -(23 * 60 + 59)];

/** An instant near the fixture's ship dates: one of them, a microsecond or more away. */
const nearInstant = (context: ListQueryContext): fc.Arbitrary<bigint> =>
  fc
    .tuple(
      fc.constantFrom(...context.instants),
      fc.constantFrom(0n, 0n, 0n, 1n, -1n, 1000n, -1000n, 3_600_000_000n, -86_400_000_000n),
    )
    .map(([instant, delta]) => instant + delta);

/** Any instant of the years 0001 to 9999 (microseconds). */
const anyInstant = fc.bigInt({ min: FIRST_LIST_INSTANT, max: END_LIST_INSTANT - 1n });

/**
 * An instant written at some offset, to the minute, the second or up to six fractional digits
 * (at the edges of the years, the local time may leave the four-digit years: the oracle says).
 */
const writtenInstant = (instant: fc.Arbitrary<bigint>): fc.Arbitrary<string> =>
  fc
    .tuple(instant, fc.constantFrom(...OFFSETS), fc.integer({ min: -1, max: 6 }), fc.boolean())
    .map(([at, offset, digits, zulu]) => writeDateTime(at, offset, digits, { zulu }));

/** A ship date: valid ones around the fixture and anywhere; the near-misses of the docs. */
const shipDateValues = (context: ListQueryContext): ParameterValues => ({
  valid: fc.oneof(
    { weight: 3, arbitrary: writtenInstant(nearInstant(context)) },
    { weight: 1, arbitrary: writtenInstant(anyInstant) },
  ),
  nearMiss: fc.oneof(
    {
      // Too many fractional digits.
      weight: 2,
      arbitrary: fc
        .tuple(nearInstant(context), fc.constantFrom(...OFFSETS), fc.integer({ min: 7, max: 9 }))
        .map(([at, offset, digits]) => writeDateTime(at, offset, digits)),
    },
    {
      // The + of an offset left unescaped: a space once decoded.
      weight: 1,
      arbitrary: fc
        .tuple(nearInstant(context), fc.constantFrom(60, 330, 14 * 60))
        .map(([at, offset]) => writeDateTime(at, offset, 3, { escapePlus: false })),
    },
    {
      weight: 5,
      arbitrary: fc.constantFrom(
        // The edges of the years 0001 to 9999, in UTC and as written.
        ...['0001-01-01T00:00:00Z', '0001-01-01T00:00Z', '9999-12-31T23:59:59.999999Z'],
        ...['0000-12-31T23:59:59.999999Z', '10000-01-01T00:00:00Z', '0000-01-01T00:00:00Z'],
        ...[
          '0001-01-01T00:30:00%2B01:00',
          '0000-12-31T23:30:00-01:00',
          '9999-12-31T23:30:00-01:00',
        ],
        ...['10000-01-01T00:30:00%2B01:00', '9999-12-31T23:59:59-00:01', '+002026-03-01T00:00:00Z'],
        // Not ISO 8601 date-times with an offset, or not real dates and times.
        ...['2026-03-01T00:00:00', '2026-03-01', '2026-03-01T00Z', '2026-03-01t00:00:00z'],
        ...['2026-03-01T00:00:00z', '2026-03-01 00:00:00Z', '2026-03-01%2000:00:00Z'],
        ...[
          '2026-03-01T00:00:00%2B0100',
          '2026-03-01T00:00:00%2B01',
          '2026-03-01T00:00:00%2B24:00',
        ],
        ...['2026-03-01T00:00:00-00:60', '2026-03-01T24:00:00Z', '2026-03-01T23:60:00Z'],
        ...[
          '2026-03-01T23:59:60Z',
          '2026-02-29T00:00:00Z',
          '2024-02-29T00:00:00Z',
          '2000-02-29T12:00Z',
        ],
        ...[
          '1900-02-29T00:00:00Z',
          '2026-04-31T00:00:00Z',
          '2026-00-10T00:00:00Z',
          '2026-13-01T00:00Z',
        ],
        ...['2026-03-01T00:00:00.Z', '2026-03-01T00:00.5Z', '2026-03-01T00:00:00,5Z', 'now', ''],
        ...['2026-03-01T00:00:00%EF%BC%BA', '２０２６-03-01T00:00:00Z', '1772323200', '-1'],
      ),
    },
    { weight: 1, arbitrary: encodedText(30) },
  ),
});

/** Valid parameters only, for the query that issues an `other` cursor. */
const otherFilters = (rules: ListRules, context: ListQueryContext): fc.Arbitrary<string> =>
  rules.list === 'categories'
    ? fc.constantFrom('', 'order=asc', 'order=desc')
    : rules.list === 'pets'
      ? fc
          .tuple(
            fc.option(fc.shuffledSubarray([...PET_STATUSES], { minLength: 1 }), {
              nil: undefined,
            }),
            fc.option(fc.constantFrom(...context.categoryIds), { nil: undefined }),
            fc.constantFrom(undefined, 'asc', 'desc'),
          )
          .map(([statuses, categoryId, order]) =>
            [
              statuses && `status=${statuses.join(',')}`,
              categoryId && `categoryId=${categoryId}`,
              order && `order=${order}`,
            ]
              .filter((p): p is string => typeof p === 'string')
              .join('&'),
          )
      : fc
          .tuple(
            fc.option(fc.shuffledSubarray([...ORDER_STATUSES], { minLength: 1 }), {
              nil: undefined,
            }),
            fc.option(fc.constantFrom(...context.petIds), { nil: undefined }),
            fc.option(fc.constantFrom(...context.instants), { nil: undefined }),
            fc.constantFrom(undefined, 'asc', 'desc'),
          )
          .map(([statuses, petId, from, order]) =>
            [
              statuses && `status=${statuses.join(',')}`,
              petId && `petId=${petId}`,
              from !== undefined && `shipDateFrom=${writeDateTime(from, 0, 6)}`,
              order && `order=${order}`,
            ]
              .filter((p): p is string => typeof p === 'string')
              .join('&'),
          );

const cursorCase = (
  rules: ListRules,
  context: ListQueryContext,
  sources: ReadonlyArray<CursorCase['source']>,
  alterations: ReadonlyArray<CursorCase['alteration']>,
): fc.Arbitrary<CursorCase> =>
  fc.record({
    source: fc.constantFrom(...sources),
    depth: fc.integer({ min: 1, max: 5 }),
    issuer: otherFilters(rules, context),
    forged: fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      fc.constantFrom('A'.repeat(32), `${'A'.repeat(31)}%3D`, '_'.repeat(32), 'null', '0', 'x'),
      fc.integer({ min: 33, max: 3000 }).map((n) => 'A'.repeat(n)),
      encodedText(40),
    ),
    alteration: fc.constantFrom(...alterations),
    at: fc.nat(),
  });

/** A cursor that fits its query (unless its own filters do not: the oracle says). */
const validCursor = (rules: ListRules, context: ListQueryContext): fc.Arbitrary<CursorCase> =>
  cursorCase(rules, context, ['same', 'same', 'rewritten'], ['none', 'none', 'percent-encoded']);

/**
 * A cursor that does not fit: a real one of another order, other filters or the other list;
 * the query's own, altered; or forged.
 */
const nearMissCursor = (rules: ListRules, context: ListQueryContext): fc.Arbitrary<CursorCase> =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: cursorCase(
        rules,
        context,
        rules.list !== 'categories'
          ? ['other-order', 'other-filter', 'other-filter', 'other', 'other-list']
          : ['other-order', 'other', 'other-list'],
        ['none'],
      ),
    },
    {
      weight: 3,
      arbitrary: cursorCase(
        rules,
        context,
        ['same', 'rewritten'],
        ['cut', 'changed', 'appended', 'padded', 'case-swapped', 'base64'],
      ),
    },
    { weight: 1, arbitrary: cursorCase(rules, context, ['forged'], ['none']) },
  );

function parameterValues(
  rules: ListRules,
  name: string,
  context: ListQueryContext,
): ParameterValues {
  switch (name) {
    case 'limit':
      return LIMIT_VALUES;
    case 'order':
      return ORDER_VALUES;
    case 'status':
      return statusValues(rules.statuses);
    case 'petId':
      return idValues(context.petIds);
    case 'categoryId':
      return idValues(context.categoryIds);
    default:
      return shipDateValues(context);
  }
}

/**
 * A parameter of the list: `valid`, a valid value under its name (as it is or
 * percent-encoded); `near-miss`, a near-miss of its value or of its name.
 */
function knownParameter(
  rules: ListRules,
  context: ListQueryContext,
  name: string,
  quality: 'valid' | 'near-miss',
): fc.Arbitrary<QueryPart> {
  const valid = quality === 'valid';
  if (name === 'cursor') {
    return fc
      .tuple(
        valid ? validName(name) : fc.oneof(validName(name), nearMissName(name)),
        valid ? validCursor(rules, context) : nearMissCursor(rules, context),
      )
      .map(([cursorName, cursor]) => ({ cursorName, cursor }));
  }
  const values = parameterValues(rules, name, context);
  const written = valid
    ? fc.tuple(validName(name), values.valid)
    : fc.oneof(
        { weight: 3, arbitrary: fc.tuple(validName(name), values.nearMiss) },
        { weight: 1, arbitrary: fc.tuple(nearMissName(name), values.valid) },
      );
  return written.map(([n, v]) => ({ text: `${n}=${v}` }));
}

/**
 * shipDateFrom and shipDateTo together: `to` a little after `from` (valid), at the same instant
 * written otherwise, or before it (400 naming them).
 */
const shipDateRange = (context: ListQueryContext): fc.Arbitrary<QueryPart[]> =>
  fc
    .tuple(
      fc.oneof(
        { weight: 3, arbitrary: nearInstant(context) },
        { weight: 1, arbitrary: anyInstant },
      ),
      fc.oneof(
        { weight: 8, arbitrary: fc.bigInt({ min: 1n, max: 40n * 3_600_000_000n }) },
        { weight: 2, arbitrary: fc.constantFrom(1n, 1000n, 0n, -1n) },
        { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 15n), max: 0n }) },
      ),
      fc.constantFrom(...OFFSETS),
      fc.constantFrom(...OFFSETS),
    )
    .map(([from, span, fromOffset, toOffset]) => [
      { text: `shipDateFrom=${writeDateTime(from, fromOffset, 6)}` },
      { text: `shipDateTo=${writeDateTime(from + span, toOffset, 6)}` },
    ]);

/** Names that are not parameters of `rules`' list: near-misses, the other list's, JavaScript's. */
const unknownName = (rules: ListRules): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        ...['Limit', 'LIMIT', 'limits', 'offset', 'page', 'per_page', 'size', 'sort', 'orderBy'],
        ...['cursor%5B%5D', 'status%5B%5D', 'petid', 'pet_id', 'PetId', 'shipDate', 'shipdatefrom'],
        ...[
          'ShipDateFrom',
          'shipDateFrom%20',
          'from',
          'to',
          'since',
          'id',
          'quantity',
          'webhookId',
        ],
        ...['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'],
        ...['__proto__%5Bpolluted%5D', 'q', 'filter', 'callback', '_', '', '%20', '?limit'],
        ...[...LIST_ORDERS_V2.parameters, ...LIST_PETS_V2.parameters].filter(
          (name) => !rules.parameters.includes(name),
        ),
        ...['categoryid', 'category_id', 'category', 'CategoryId', 'name', 'tags'],
      ),
    },
    { weight: 1, arbitrary: encodedText(12).filter((name) => name !== '') },
  );

/**
 * Junk: unknown names with any value, percent escapes good and bad, empty pieces (`&&`), bare
 * names, a very long name or value.
 */
const junkPart = (rules: ListRules): fc.Arbitrary<QueryPart> =>
  fc
    .oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(unknownName(rules), fc.oneof(rawQueryText(12), encodedText(12)))
          .map(([name, value]) => `${name}=${value}`),
      },
      { weight: 2, arbitrary: rawQueryText(20) },
      { weight: 1, arbitrary: fc.constantFrom('', '=', '==', '=1', 'a=b=c', '%26=%3D', '?') },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom(...rules.parameters, 'x'),
            fc.integer({ min: 500, max: 4000 }),
            fc.constantFrom('1', 'a', '%C3%A9', 'pending,'),
          )
          .map(([name, n, unit]) => `${name}=${unit.repeat(Math.ceil(n / unit.length))}`),
      },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => `${'n'.repeat(n)}=1`),
      },
    )
    .map((text) => ({ text }));

/**
 * Query strings of one v2 list built from its real parameter names, in any order:
 * - valid: distinct parameters with valid values (written in any valid way);
 * - near-miss: the same, one parameter with a near-miss value or name (or a bad cursor);
 * - extra: the same plus a parameter given twice, an unknown name or junk;
 * - wild: any mix of parameters, near-misses, repeats and junk.
 */
export function listQueryCase(
  rules: ListRules,
  context: ListQueryContext,
): fc.Arbitrary<QueryPart[]> {
  const dates = ['shipDateFrom', 'shipDateTo'];
  /** Valid parameters, any of them but `left`. */
  const validParts = (left?: string): fc.Arbitrary<QueryPart[]> => {
    const single = rules.parameters.filter((n) => !dates.includes(n) && n !== left);
    const kept = dates.filter((n) => rules.parameters.includes(n) && n !== left);
    const range: Array<fc.Arbitrary<QueryPart[]>> = [fc.constant([])];
    if (kept.length === 2) range.push(shipDateRange(context));
    for (const name of kept)
      range.push(knownParameter(rules, context, name, 'valid').map((p) => [p]));
    return fc
      .tuple(fc.shuffledSubarray(single), fc.oneof(...range))
      .chain(([names, dated]) =>
        fc
          .tuple(...names.map((name) => knownParameter(rules, context, name, 'valid')))
          .map((parts) => [...parts, ...dated]),
      );
  };
  // The cursor most often: it goes wrong in the most ways.
  const nearMiss = fc
    .constantFrom(...rules.parameters, 'cursor', 'cursor')
    .chain((name) =>
      fc
        .tuple(validParts(name), knownParameter(rules, context, name, 'near-miss'))
        .map(([parts, bad]) => [...parts, bad]),
    );
  const extra = fc
    .tuple(
      validParts(),
      fc.oneof(
        { weight: 2, arbitrary: junkPart(rules) },
        { weight: 1, arbitrary: unknownName(rules).map((name) => ({ text: `${name}=1` })) },
      ),
      fc.boolean(),
    )
    .map(([parts, more, repeat]) =>
      // One of the parameters given again (the same part), or one more part.
      repeat && parts.length > 0 ? [...parts, parts[parts.length - 1]] : [...parts, more],
    );
  const anyKnown = fc
    .constantFrom(...rules.parameters)
    .chain((name) =>
      fc.oneof(
        knownParameter(rules, context, name, 'valid'),
        knownParameter(rules, context, name, 'near-miss'),
      ),
    );
  const wild = fc.array(fc.oneof(anyKnown, junkPart(rules)), { maxLength: 8 });
  return fc
    .oneof(
      { weight: 5, arbitrary: validParts() },
      { weight: 6, arbitrary: nearMiss },
      { weight: 2, arbitrary: extra },
      { weight: 2, arbitrary: wild },
    )
    .chain((parts) => fc.shuffledSubarray(parts, { minLength: parts.length }));
}
