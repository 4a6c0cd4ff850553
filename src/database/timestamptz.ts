/**
 * A timestamptz as PostgreSQL writes it in text (DateStyle ISO, the driver's assumption too),
 * as `Date.prototype.toISOString` would: UTC, milliseconds (microseconds cut off, as `to_char`'s
 * MS does). With TimeZone UTC, as the list queries set it, a few slices do; any other offset
 * goes through Date. Years outside 0001-9999 are not expected (the schema refuses them).
 */
export function isoFromTimestamptz(text: string): string {
  // "2026-11-25 05:03:54.571234+00", fraction optional.
  if (text.length >= 22 && text[4] === '-' && text[10] === ' ' && text.endsWith('+00')) {
    const fraction = text.length > 22 ? text.slice(20, -3) : '';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`;
  }
  return isoFromOffsetTimestamp(text);
}

const TIMESTAMPTZ =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?$/;

function isoFromOffsetTimestamp(text: string): string {
  const match = TIMESTAMPTZ.exec(text);
  if (!match) throw new Error(`unexpected timestamptz text: ${text}`);
  const [, year, month, day, hour, minute, second, fraction = '', sign, oh, om = '0', os = '0'] =
    match;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter maps years 0-99 to 1900-1999.
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(
    Number(hour),
    Number(minute),
    Number(second),
    Number((fraction + '000').slice(0, 3)),
  );
  const offsetSeconds =
    (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60 + Number(os));
  return new Date(date.getTime() - offsetSeconds * 1000).toISOString();
}
