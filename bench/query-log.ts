/**
 * Preloaded into the built service by `npm run bench:explain` (NODE_OPTIONS=--import …): every
 * statement a pg client sends (text and parameters) is appended, one JSON line each, to the file
 * in BENCH_QUERY_LOG. The harness then EXPLAINs the statements the real request path sent,
 * rather than a copy of the SQL that could drift from it. Synchronous writes: it is for
 * requests sent one at a time, never for a load run.
 */
import { appendFileSync } from 'node:fs';
import pg from 'pg';

/** One line of the log. */
export interface LoggedQuery {
  text: string;
  values: unknown[];
}

const file = process.env.BENCH_QUERY_LOG;
if (file) {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args;
    // query(text, values) or query({ text, values }) (cursors and submittables carry `text` too).
    const config =
      typeof first === 'object' && first !== null ? (first as Partial<LoggedQuery>) : {};
    const text = typeof first === 'string' ? first : config.text;
    const values = Array.isArray(second) ? second : (config.values ?? []);
    if (typeof text === 'string') {
      appendFileSync(file, `${JSON.stringify({ text, values } satisfies LoggedQuery)}\n`);
    }
    return original.apply(this, args);
  };
}
