import type { ExactInt64, Int64Id } from '../common/http/exact-int64.js';
import type { TextRow } from './batched-query-stream.js';
import { JsonBytes } from './json-bytes.js';
import { isoFromTimestamptz } from './timestamptz.js';
import { Ascii } from '../common/ascii.js';
import { jsonString } from '../common/json-string.js';

/*
 * A resource's JSON, defined once: its columns and its fields, in the order answers write them.
 * Every rendering is derived from that one definition, so they cannot drift apart:
 * - in Node, from the resource as Node holds it: the object an answer serialises (its DTO);
 * - in Node, from a row of its columns as PostgreSQL writes them in text (COPY, or a query
 *   without type parsing): the JSON text, for lists rendered row by row;
 * - in Node, from a row of COPY's text format as bytes: the JSON as bytes, for the long list,
 *   with no string or object per row or field;
 * - in PostgreSQL (json_build_object), for JSON stored in the statement that makes the
 *   resource: an Idempotency-Key record's answer, a webhook event's data.
 * All of them give the same text as JSON.stringify of the DTO (src/database/resource-json.spec.ts
 * and test/resource-json.e2e-spec.ts hold them to it).
 */

/** A value of a resource's JSON as Node holds it, for JSON.stringify (see stringifyExactly). */
export type JsonValue = number | ExactInt64 | string | boolean | readonly string[];

/** How one kind of column is written in JSON: the same text from PostgreSQL and from Node. */
export interface JsonKind<Value> {
  /** The value's expression in json_build_object, from the column's expression. */
  sql(column: string): string;
  /** The JSON text of the column's text as PostgreSQL writes it. */
  fromText(text: string): string;
  /** The JSON value (for JSON.stringify) of the column's value as Node holds it. */
  fromValue(value: Value): JsonValue;
  /**
   * fromText's JSON, as bytes into `out`, of the column's field src[start, end) in COPY's text
   * format (not `\N`; backslash escapes not undone). `out` has room for 6 bytes per byte in.
   */
  fromCopy(src: Buffer, start: number, end: number, out: JsonBytes): void;
}

/** fromCopy by way of fromText, for kinds too rare in long lists to deserve a byte writer. */
function copyViaText(fromText: (text: string) => string): JsonKind<never>['fromCopy'] {
  return (src, start, end, out) => out.text(fromText(copyFieldText(src, start, end)));
}

/** A COPY text-format field as the text it stands for (COPY TO's escapes undone). */
export function copyFieldText(src: Buffer, start: number, end: number): string {
  const field = src.toString('utf8', start, end);
  return field.includes('\\')
    ? field.replace(/\\(.)/gs, (_, c: string) => COPY_ESCAPES[c] ?? c)
    : field;
}

const COPY_ESCAPES: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/**
 * An integer (int4, int8): its text is its JSON. Ids stop at 2^53 - 1 (identity columns, see
 * the initial migration), so a JavaScript number holds every one exactly; a larger id's text
 * would still be written digit for digit.
 */
export const integer: JsonKind<number> = {
  sql: (column) => column,
  fromText: (text) => text,
  fromValue: (value) => value,
  fromCopy: (src, start, end, out) => out.bytes(src, start, end),
};

/**
 * An int64 id the service did not assign (a pet's, which operators store): a number while
 * exact, beyond 2^53 an ExactInt64, which answers write digit for digit.
 */
export const int64: JsonKind<Int64Id> = {
  sql: (column) => column,
  fromText: (text) => text,
  fromValue: (value) => value,
  fromCopy: (src, start, end, out) => out.bytes(src, start, end),
};

/**
 * Text, escaped as JSON.stringify escapes it: PostgreSQL's json escapes the same characters
 * (`"`, `\` and the controls below U+0020) the same way.
 */
export const text: JsonKind<string> = {
  sql: (column) => column,
  fromText: jsonString,
  fromValue: (value) => value,
  fromCopy: (src, start, end, out) => out.copyFieldAsString(src, start, end),
};

/** to_char's pattern for Date.prototype.toISOString's form: UTC, milliseconds. */
export const SQL_ISO_UTC = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * A timestamptz as Date.prototype.toISOString writes it: UTC with milliseconds, the
 * microseconds cut off. The same text for the years 0001-9999 (the API's dates stay within
 * them; beyond, toISOString writes a sign and six digits, to_char does not).
 */
export const timestamp: JsonKind<Date> = {
  sql: (column) => `to_char(${column} AT TIME ZONE 'UTC', ${SQL_ISO_UTC})`,
  fromText: (value) => `"${isoFromTimestamptz(value)}"`,
  fromValue: (value) => value.toISOString(),
  fromCopy: (src, start, end, out) => {
    // "2026-11-25 05:03:54.571234+00" (the lists set TimeZone to UTC), fraction optional:
    // rearranged byte for byte; any other form goes through fromText.
    const length = end - start;
    if (
      length >= 22 &&
      length <= 29 &&
      src[start + 4] === Ascii.MINUS &&
      src[start + 10] === Ascii.SPACE &&
      src[start + 19] === (length === 22 ? Ascii.PLUS : Ascii.DOT) &&
      src[end - 3] === Ascii.PLUS &&
      src[end - 2] === Ascii.ZERO &&
      src[end - 1] === Ascii.ZERO
    ) {
      out.byte(Ascii.QUOTE);
      out.bytes(src, start, start + 10);
      out.byte(Ascii.LETTER_T);
      out.bytes(src, start + 11, start + 19);
      out.byte(Ascii.DOT);
      let digit = start + 20;
      for (let k = 0; k < 3; k++) out.byte(digit < end - 3 ? src[digit++] : Ascii.ZERO);
      out.byte(Ascii.LETTER_Z);
      out.byte(Ascii.QUOTE);
    } else {
      out.text(timestamp.fromText(copyFieldText(src, start, end)));
    }
  },
};

/** A boolean column: PostgreSQL writes it `t` or `f` in text. */
export const boolean: JsonKind<boolean> = {
  sql: (column) => column,
  fromText: (value) => (value === 't' ? 'true' : 'false'),
  fromValue: (value) => value,
  fromCopy: (src, start, _end, out) => out.bytes(src[start] === LETTER_t ? TRUE : FALSE),
};

const LETTER_t = 0x74;

/** A one-dimensional text[] as an array of strings. */
export const textArray: JsonKind<readonly string[]> = {
  sql: (column) => column,
  fromText: (value) => JSON.stringify(parseTextArray(value)),
  fromValue: (value) => [...value],
  fromCopy: copyViaText((value) => textArray.fromText(value)),
};

/** true when a text column holds `word`: a flag derived from a state (an order's `complete`). */
export function equalTo(word: string): JsonKind<string> {
  if (!SQL_NAME.test(word)) throw new Error(`"${word}" is not a plain word`);
  const bytes = Buffer.from(word, 'latin1');
  return {
    sql: (column) => `${column} = '${word}'`,
    fromText: (value) => (value === word ? 'true' : 'false'),
    fromValue: (value) => value === word,
    fromCopy: (src, start, end, out) => {
      // The word is plain: a field that holds it has no escapes.
      let equal = end - start === bytes.length;
      for (let k = 0; equal && k < bytes.length; k++) equal = src[start + k] === bytes[k];
      out.bytes(equal ? TRUE : FALSE);
    },
  };
}

/**
 * One key of the JSON: the column it is written from (by its name in Source), its kind, and,
 * for a column that can be null, `optional`: the key is then left out when the value is null.
 */
export type JsonField<Source> = {
  [Name in keyof Source & string]: {
    /** The JSON key; the column's name when omitted. */
    key?: string;
    from: Name;
    kind: JsonKind<NonNullable<Source[Name]>>;
  } & (null extends Source[Name] ? { optional: true } : { optional?: never });
}[keyof Source & string];

/** The renderings of one resource's JSON; see the top of this file. */
export interface ResourceJson<Source, View> {
  /**
   * The select list a statement answers the resource with: each column under its name in
   * Source (`pet_id AS "petId"`), in the definition's order (the order fromText reads a row
   * in). `table` qualifies each column: a table, or a CTE with the table's columns.
   */
  columns: (table?: string) => string;
  /** PostgreSQL's rendering, of type json, of the row named `row` that has columns(). */
  sql: (row: string) => string;
  /** Node's rendering: the object an answer serialises, keys in the JSON's order. */
  view: (source: Source) => View;
  /** Node's rendering of a row of columns() in PostgreSQL's text: sql()'s exact text. */
  fromText: (row: TextRow) => string;
  /**
   * view and fromText as one loop over the fields, without generated code: what runs where
   * Node refuses to compile code from strings (`--disallow-code-generation-from-strings`, a
   * hardening some deployments set). The same text; the unit tests hold both to the DTO.
   */
  interpreted: Pick<ResourceJson<Source, View>, 'view' | 'fromText'>;
  /**
   * fromText's JSON, as bytes into `out`, of the row src[start, end) of columns() in COPY's
   * text format (without its newline).
   */
  fromCopy: (src: Buffer, start: number, end: number, out: JsonBytes) => void;
}

const TRUE = Buffer.from('true', 'latin1');
const FALSE = Buffer.from('false', 'latin1');

/** The renderings of a resource's rows, whatever the resource: what a list of rows needs. */
export type RowJson = Pick<ResourceJson<unknown, unknown>, 'fromText' | 'fromCopy'>;

/** A name written into SQL unquoted: a plain lower-case identifier. */
const SQL_NAME = /^[a-z_][a-z0-9_]*$/;
/** A JSON key or a column's name in Source, written into SQL as a literal or a quoted name. */
const KEY = /^[A-Za-z][A-Za-z0-9]*$/;

const quoted = (name: string): string => (SQL_NAME.test(name) ? name : `"${name}"`);

/**
 * A resource's JSON from its definition. `columns` maps each of Source's names to the table's
 * column, in the order statements select them; `fields` are the JSON's keys in the order
 * answers write them. View is the DTO the fields describe (the unit test holds each resource's
 * view to its DTO).
 */
export function resourceJson<Source, View>(
  columns: { readonly [Name in keyof Source & string]: string },
  fields: ReadonlyArray<JsonField<Source>>,
): ResourceJson<Source, View> {
  const names = Object.keys(columns) as Array<keyof Source & string>;
  for (const name of names) {
    if (!KEY.test(name) || !SQL_NAME.test(columns[name])) {
      throw new Error(`column ${name} (${columns[name]}) is not a plain name`);
    }
  }
  const entries = fields.map((field) => {
    const key = field.key ?? field.from;
    if (!KEY.test(key)) throw new Error(`"${key}" is not a plain JSON key`);
    return {
      key,
      from: field.from,
      kind: field.kind,
      optional: field.optional === true,
      /** The column's position in a row of columns(). */
      at: names.indexOf(field.from),
      /** `"key":`, as the JSON text writes it. */
      label: `${JSON.stringify(key)}:`,
      /** The same, as bytes, after `{` or `,`. */
      labelBytes: [`{${JSON.stringify(key)}:`, `,${JSON.stringify(key)}:`].map((bytes) =>
        Buffer.from(bytes, 'latin1'),
      ),
    };
  });
  const labelsLength = entries.reduce((sum, { labelBytes }) => sum + labelBytes[0].length, 0);
  /** Where each column's field of the COPY row being rendered begins and ends. */
  const fieldStart = new Int32Array(names.length);
  const fieldEnd = new Int32Array(names.length);

  const selectList = (table: string | undefined): string => {
    const prefix = table === undefined ? '' : `${table}.`;
    return names
      .map((name) =>
        columns[name] === name
          ? `${prefix}${name}`
          : `${prefix}${columns[name]} AS ${quoted(name)}`,
      )
      .join(', ');
  };
  // json_strip_nulls leaves the optional keys out when null (no other column can be: they are
  // NOT NULL), and writes the text compact, as JSON.stringify does.
  const jsonOf = (row: string): string =>
    `json_strip_nulls(json_build_object(${entries
      .map(({ key, from, kind }) => `'${key}', ${kind.sql(`${row}.${quoted(from)}`)}`)
      .join(', ')}))`;

  const interpreted = {
    view: (source: Source): View => {
      const view: Record<string, JsonValue> = {};
      for (const { key, from, kind, optional } of entries) {
        const value = source[from];
        if (value === null || value === undefined) {
          if (optional) continue;
          throw new Error(`${key} has no value`);
        }
        view[key] = kind.fromValue(value);
      }
      return view as View;
    },

    fromText: (row: TextRow): string => {
      let json = '';
      for (const { label, at, kind, optional } of entries) {
        const value = row[at];
        if (value === null) {
          if (optional) continue;
          throw new Error(`${label} has no value`);
        }
        json += `${json === '' ? '{' : ','}${label}${kind.fromText(value)}`;
      }
      return json === '' ? '{}' : `${json}}`;
    },
  };

  return {
    // Statements are built per request from a few names: each text is made once.
    columns: memoized(selectList),
    sql: memoized(jsonOf),

    ...(generatedOrNot(() => ({
      view: compiledView<Source, View>(entries),
      fromText: compiledFromText(entries),
    })) ?? interpreted),
    interpreted,

    fromCopy: (src, start, end, out) => {
      let column = 0;
      fieldStart[0] = start;
      for (let at = start; at < end; at++) {
        if (src[at] !== Ascii.TAB) continue;
        if (++column === names.length) break;
        fieldEnd[column - 1] = at;
        fieldStart[column] = at + 1;
      }
      if (column !== names.length - 1) {
        throw new Error(
          `a COPY row without ${names.length} fields: ${src.toString('utf8', start, end)}`,
        );
      }
      fieldEnd[column] = end;
      out.reserve(labelsLength + 6 * (end - start) + 2);
      let written = 0;
      for (const { labelBytes, at, kind, optional } of entries) {
        const from = fieldStart[at];
        const to = fieldEnd[at];
        if (to - from === 2 && src[from] === Ascii.BACKSLASH && src[from + 1] === Ascii.LETTER_N) {
          if (optional) continue;
          throw new Error(`${labelBytes[0].toString('latin1').slice(1)} has no value`);
        }
        out.bytes(labelBytes[written++ === 0 ? 0 : 1]);
        kind.fromCopy(src, from, to, out);
      }
      out.byte(written === 0 ? Ascii.OPEN_BRACE : Ascii.CLOSE_BRACE);
      if (written === 0) out.byte(Ascii.CLOSE_BRACE);
    },
  };
}

/** What `generate` makes, or undefined where Node refuses code generation from strings. */
function generatedOrNot<Made>(generate: () => Made): Made | undefined {
  try {
    return generate();
  } catch (error) {
    if (error instanceof EvalError) return undefined;
    throw error;
  }
}

/**
 * Node's rendering of one resource, as code written for that resource's fields: one function per
 * resource, so that V8 sees one object shape at each property read and write, and one kind at
 * each call. A loop over the fields, shared by every resource, made each of those accesses
 * megamorphic (a hash lookup per field; docs/performance.md, "Code written per resource"). The
 * generated text holds only the definition's keys and column names, which resourceJson has
 * checked are plain names, and calls each kind's fromValue: the loop it replaces, unrolled.
 */
function compiledView<Source, View>(
  entries: ReadonlyArray<{ key: string; from: string; kind: JsonKind<never>; optional: boolean }>,
): (source: Source) => View {
  const body = entries.map(({ key, from, optional }, index) => {
    const missing = optional ? '' : `throw new Error(${JSON.stringify(`${key} has no value`)});`;
    return (
      `value = source[${JSON.stringify(from)}];\n` +
      `if (value === null || value === undefined) { ${missing} }\n` +
      `else view[${JSON.stringify(key)}] = kinds[${index}].fromValue(value);\n`
    );
  });
  return generatedFunction<(source: Source) => View>(
    entries,
    `function view(source) {\nconst view = {};\nlet value;\n${body.join('')}return view;\n}`,
  );
}

/**
 * Node's rendering of a row of a resource's columns in PostgreSQL's text, written for that
 * resource as compiledView is, for the same reason: a list renders it once per row. The JSON is
 * one concatenation, each label a literal with its `{` or `,`: appending field by field, with a
 * test for the first, cost a list of 100 orders about twice the hand-written renderer's time
 * (docs/performance.md, "The short order list").
 */
function compiledFromText(
  entries: ReadonlyArray<{ label: string; at: number; kind: JsonKind<never>; optional: boolean }>,
): (row: TextRow) => string {
  // Each label after the first is written after a comma. When the first field may be left
  // out, which field comes first is only known per row: the comma before it is then cut off.
  const firstAlwaysThere = entries.length > 0 && !entries[0].optional;
  const reads = entries.map(
    ({ at }, index) => `const v${index} = row[${at}];
`,
  );
  const checks = entries.map(({ label, optional }, index) =>
    optional
      ? ''
      : `if (v${index} === null) throw new Error(${JSON.stringify(`${label} has no value`)});
`,
  );
  const parts = entries.map(({ label, optional }, index) => {
    const written = `${JSON.stringify(index === 0 && firstAlwaysThere ? `{${label}` : `,${label}`)} + kinds[${index}].fromText(v${index})`;
    return optional ? `(v${index} === null ? '' : ${written})` : written;
  });
  const json = parts.length === 0 ? "''" : parts.join(' +\n');
  const result = firstAlwaysThere ? `${json} + '}'` : `'{' + (${json}).slice(1) + '}'`;
  return generatedFunction<(row: TextRow) => string>(
    entries,
    `function fromText(row) {\n${reads.join('')}${checks.join('')}return ${result};\n}`,
  );
}

/**
 * The function whose text is `source`, compiled with `kinds` (each entry's kind, in order) in
 * scope. `source` is made by compiledView or compiledFromText from checked names only.
 */
function generatedFunction<Made>(
  entries: ReadonlyArray<{ kind: JsonKind<never> }>,
  source: string,
): Made {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see above.
  const make = new Function('kinds', `return ${source};`) as (
    kinds: ReadonlyArray<JsonKind<never>>,
  ) => Made;
  return make(entries.map(({ kind }) => kind));
}

/** `make`, remembering its result for each argument (a handful of SQL names). */
function memoized<Argument>(make: (argument: Argument) => string): (argument: Argument) => string {
  const made = new Map<Argument, string>();
  return (argument) => {
    let text = made.get(argument);
    if (text === undefined) {
      text = make(argument);
      made.set(argument, text);
    }
    return text;
  };
}

/**
 * The elements of a one-dimensional text[] as PostgreSQL writes it: `{a,b}`, an element in
 * double quotes (with `\` escaping `"` and `\`) when it is empty, holds a delimiter, a quote, a
 * backslash or white space, or reads NULL. A NULL element is refused: no string array holds one.
 */
export function parseTextArray(value: string): string[] {
  if (value[0] !== '{' || value[value.length - 1] !== '}') {
    throw new Error(`unexpected text[] text: ${value}`);
  }
  const elements: string[] = [];
  let at = 1;
  while (at < value.length - 1) {
    let element = '';
    if (value[at] === '"') {
      at++;
      while (value[at] !== '"') {
        if (value[at] === '\\') at++;
        if (at >= value.length) throw new Error(`unexpected text[] text: ${value}`);
        element += value[at++];
      }
      at++;
    } else {
      const end = value.slice(at).search(/[,}]/) + at;
      element = value.slice(at, end);
      if (element === 'NULL') throw new Error('a text[] with a NULL element is not a string array');
      at = end;
    }
    elements.push(element);
    // Past the delimiter, or onto the closing brace.
    if (value[at] === ',') at++;
  }
  return elements;
}
