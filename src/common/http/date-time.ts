/**
 * An ISO 8601 date-time with an offset (`Z` or `±hh:mm`), seconds and up to six fractional
 * digits optional, as a query parameter gives it. Microseconds: PostgreSQL's precision, so what
 * the service compares is exactly what the database compares. Also the documented pattern:
 * RFC 3339's date-time requires seconds, so the documents give this form instead.
 */
export const DATE_TIME_WITH_OFFSET_PATTERN =
  '^(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,6}))?)?(?:(Z)|([+-])(\\d{2}):(\\d{2}))$';
const DATE_TIME = new RegExp(DATE_TIME_WITH_OFFSET_PATTERN);

/** 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z in microseconds: ship dates stay between. */
const FIRST = -62135596800000000n;
const END = 253402300800000000n;

/**
 * The instant `text` names, in microseconds since 1970 (UTC); undefined when it is not a real
 * date and time of this form, or falls outside the years 0001–9999 in UTC.
 */
export function parseDateTimeWithOffset(text: string): bigint | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zulu, sign, offH, offM] =
    match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number);
  // Year 0000 as written is fine when the offset brings the instant into 0001 in UTC: the range
  // below is what counts.
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  if (!zulu && (Number(offH) > 23 || Number(offM) > 59)) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  // 31 February and the like roll over into the next month: not a real date.
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  const offsetMinutes = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(offH) * 60 + Number(offM));
  const millis = date.getTime() + ((h * 60 + mi - offsetMinutes) * 60 + s) * 1000;
  const micros = BigInt(millis) * 1000n + BigInt(fraction.padEnd(6, '0'));
  return micros >= FIRST && micros < END ? micros : undefined;
}

/** `micros` as PostgreSQL and the cursor take it: UTC, six fractional digits. */
export function formatMicros(micros: bigint): string {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const rest = micros - millis * 1000n;
  const iso = new Date(Number(millis)).toISOString(); // yyyy-mm-ddThh:mm:ss.mmmZ
  return `${iso.slice(0, 23)}${String(rest).padStart(3, '0')}Z`;
}
