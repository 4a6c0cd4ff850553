import { randomUUID } from 'node:crypto';
import type { Express, Response } from 'express';
import { sendJsonText } from './send-streamed-json.js';

/**
 * An id beyond 2^53 - 1, which a JavaScript number cannot hold: ids are int64 (docs/api.md).
 * The service assigns ids below 2^53, but pets are stored by operators, with any int64 id.
 * JSON.stringify writes it as a marker string that stringifyExactly turns into its digits:
 * Node 20's JSON has no raw numbers (JSON.rawJSON came with Node 22).
 */
export class ExactInt64 {
  constructor(readonly digits: string) {}

  toString(): string {
    return this.digits;
  }

  toJSON(): string {
    markersWritten++;
    return `${MARKER}${this.digits}`;
  }
}

/** An int64 id as the database writes it in text: a number while exact, else ExactInt64. */
export type Int64Id = number | ExactInt64;

export function int64Id(text: string): Int64Id {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : new ExactInt64(text);
}

/** Unguessable, so that no string a client stored can pass for a marker. */
const TOKEN = randomUUID();
const MARKER = `\u0000int64-${TOKEN}:`;
/** A marker as JSON.stringify writes it, NUL escaped. */
const MARKED = new RegExp(`"\\\\u0000int64-${TOKEN}:(\\d+)"`, 'g');
let markersWritten = 0;

/**
 * JSON.stringify, with each ExactInt64 written as a JSON number of its digits. Values without
 * one cost nothing more: no replacer, no second pass.
 */
export function stringifyExactly(value: unknown): string {
  const before = markersWritten;
  const text = JSON.stringify(value);
  return markersWritten === before ? text : text.replace(MARKED, '$1');
}

/** Every res.json() of this Express app writes ExactInt64 values as numbers. */
export function sendJsonExactly(app: Express): void {
  app.response.json = function json(this: Response, body: unknown): Response {
    sendJsonText(this, stringifyExactly(body));
    return this;
  };
}
