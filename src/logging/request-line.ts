import { pino, type Level, type Logger } from 'pino';
import { jsonString } from '../common/json-string.js';

/** What one request's line says (docs/operating.md, Logs). */
export interface RequestLine {
  requestId: string;
  method: string;
  /** The path, without its query and without anything that could be a key. */
  url: string;
  statusCode: number;
  /** Only for an answer that did not finish: what the connection carried of it. */
  bytesSent?: number;
  responseTimeMs: number;
  route: string;
  keyPrefix?: string;
  /** Why the service cut the answer. */
  err?: string;
  traceIds?: { trace_id: string; span_id: string };
  msg: string;
}

const symbols = pino.symbols;

/** The pino internals a line is framed with (`pino.symbols` is pino's public name for them). */
interface PinoFrame {
  [symbols.lsCacheSym]: Record<number, string>;
  [symbols.chindingsSym]: string;
  [symbols.streamSym]: { write(line: string): void };
  [symbols.timeSym]: () => string;
  [symbols.endSym]: string;
}

/**
 * Writes request lines to `logger`'s destination, byte for byte as `logger[level](fields, msg)`
 * would (request-line.spec.ts holds it to pino's own output). Every request writes one, so it is
 * built from its fixed shape rather than by pino's walk over an arbitrary object, which costs
 * several times as much in the running service (docs/performance.md, "What the features cost
 * where they run"). Its strings are escaped as JSON.stringify escapes them, as pino's are.
 */
export function requestLineWriter(logger: Logger): (level: Level, line: RequestLine) => void {
  const frame = logger as unknown as PinoFrame;
  const stream = frame[symbols.streamSym];
  const time = frame[symbols.timeSym];
  const bindings = frame[symbols.chindingsSym];
  const end = frame[symbols.endSym];
  const levels = frame[symbols.lsCacheSym];
  return (level, line) => {
    const res =
      line.bytesSent === undefined
        ? `{"statusCode":${line.statusCode}}`
        : `{"statusCode":${line.statusCode},"aborted":true,"bytesSent":${line.bytesSent}}`;
    const keyPrefix =
      line.keyPrefix === undefined ? '' : `,"keyPrefix":${jsonString(line.keyPrefix)}`;
    const err = line.err === undefined ? '' : `,"err":${jsonString(line.err)}`;
    const trace =
      line.traceIds === undefined
        ? ''
        : `,"trace_id":${jsonString(line.traceIds.trace_id)},"span_id":${jsonString(line.traceIds.span_id)}`;
    stream.write(
      `${levels[logger.levels.values[level]]}${time()}${bindings}` +
        `,"req":{"id":${jsonString(line.requestId)},"method":${jsonString(line.method)},"url":${jsonString(line.url)}}` +
        `,"res":${res},"responseTime":${line.responseTimeMs},"route":${jsonString(line.route)}` +
        `${keyPrefix}${err}${trace},"msg":${jsonString(line.msg)}${end}`,
    );
  };
}
