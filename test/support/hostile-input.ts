import fc from 'fast-check';
import type { Response, Test } from 'supertest';
import { expectErrorResponse } from './http-assertions.js';

/*
 * Building blocks of test/hostile-input.e2e-spec.ts: fast-check arbitraries for hostile path
 * ids, bodies and headers, and oracles that say, from the contract alone
 * (docs/api.md), what the API must answer to each.
 */

/** Contract section 3: bodies over 16 KiB are 413. */
export const MAX_BODY_BYTES = 16 * 1024;
/** Contract section 3: path ids go up to 2^63 - 1. */
export const INT64_MAX = 9223372036854775807n;
/** The X-Request-Id the app echoes as it is, and the shape of the ones it generates. */
export const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every 4xx code of contract section 6, with the statuses it may come with. */
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
  ['IDEMPOTENCY_KEY_IN_USE', [409]],
  ['IDEMPOTENCY_KEY_REUSED', [422]],
  ['PAYLOAD_TOO_LARGE', [413]],
  ['UNSUPPORTED_MEDIA_TYPE', [415]],
  ['RATE_LIMITED', [429]],
  ['HEADERS_TOO_LARGE', [431]],
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
 * one of the contract's codes for that status, a message that leaks nothing
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

/** Contract section 3: decimal digits only, 1 .. 2^63 - 1 (no sign, no leading zero). */
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
 * What the contract says of one body, sent with a valid key as application/json:
 * - refused: exactly this error;
 * - accepted: valid; the business outcome (201, 409, 422) is the caller's to decide;
 * - open: the contract does not decide between 400 VALIDATION_FAILED and "accepted".
 * `fields` are the top-level fields at fault, which the message must name (section 3).
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
  return { kind: open ? 'open' : 'accepted', value: body, keys };
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

/** Contract section 2: integers; `petId` an int64 from 1, `quantity` 1..1000. */
const integerIn =
  (min: number, max: number) =>
  (value: unknown): FieldCheck =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
      ? 'ok'
      : 'bad';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * placeOrder's optional `shipDate`. The contract shows only the Order's form (UTC with
 * milliseconds); for input it takes an ISO 8601 date-time with an offset. A strict RFC 3339
 * date-time of a real calendar day from year 0100, whose instant lies in years 1..9999 UTC,
 * is valid; what is not a string, or not a date-time at all, is a wrong type; the rest (leap
 * seconds, lower-case `t`, no seconds, years 0000-0099, instants past year 9999 once the offset
 * is applied, ...) is open: refused, or accepted and then answered as a contract Order (the
 * caller checks the 201: its shipDate must have the contract's form).
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
  // read two-digit years; the contract sets no range.
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
 * A category's or a subscription's optional description: a string of at most 500 characters
 * that PostgreSQL can store. The contract says nothing of other control characters: open.
 */
function optionalDescription(value: unknown): FieldCheck {
  if (value === undefined) return 'ok';
  if (typeof value !== 'string') return 'bad';
  if (codePoints(value) > 500 || !value.isWellFormed() || value.includes('\u0000')) {
    return 'bad';
  }
  return /[^\P{Cc}\t\n\r]/u.test(value) ? 'open' : 'ok';
}

export const CREATE_CATEGORY_RULES: BodyRules = {
  fields: {
    // Trimmed, 1..64 characters (code points, as PostgreSQL counts them), no control
    // characters, text PostgreSQL can store (no lone surrogates: they cannot be UTF-8).
    name: (value) => {
      if (typeof value !== 'string') return 'bad';
      const name = value.trim();
      const length = codePoints(name);
      return length >= 1 && length <= 64 && name.isWellFormed() && !CONTROL.test(name)
        ? 'ok'
        : 'bad';
    },
    description: optionalDescription,
  },
};

/** Webhook event types (contract section 11). */
export const WEBHOOK_EVENT_TYPES = [
  'order.placed',
  'order.shipped',
  'order.cancelled',
  'category.created',
];

/**
 * Hosts a webhook URL is generated with, as written, and what the contract says of each when
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
  ['localhost', 'bad'],
  ['hooks.invalid', 'bad'],
];

/** The verdict on each host as the URL parser normalizes it (`0x7f.1` is 127.0.0.1). */
const WEBHOOK_HOST_VERDICTS = new Map(
  WEBHOOK_HOSTS.map(([written, verdict]) => [new URL(`http://${written}/`).hostname, verdict]),
);

/** Characters RFC 3986 allows nowhere in a URL (besides controls, space and non-ASCII). */
const URL_UNSAFE = /[<>"{}|\\^`]/;

/**
 * createWebhook's `url` (contract section 11): an absolute http or https URL of at most 2048
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

export const CREATE_WEBHOOK_RULES: BodyRules = {
  fields: {
    url: checkWebhookUrl,
    // A non-empty array of distinct event types.
    events: (value) =>
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((type) => WEBHOOK_EVENT_TYPES.includes(type as string)) &&
      new Set(value).size === value.length
        ? 'ok'
        : 'bad',
    description: optionalDescription,
  },
};

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

/** What Node's client sends of a Content-Type value, and how the contract judges it. */
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
 * Contract section 4: `Authorization: Bearer <API_KEY>`, scheme word in any case. RFC 9110
 * 11.4: scheme, one or more spaces, the credentials. Leading and trailing spaces and tabs are
 * not part of a header's value. Several Authorization headers are not a form the contract
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
 * The key the service must read from a sent value (contract section 10), or undefined when
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
