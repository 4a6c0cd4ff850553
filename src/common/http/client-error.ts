import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, ErrorCode } from '../errors/error-code.js';
import type { ErrorDto } from '../errors/error.dto.js';
import { JSON_CONTENT_TYPE, writeJsonAnswer } from './send-streamed-json.js';

/**
 * Requests Node's HTTP server refuses before or while Express serves them. Without a handler
 * Node answers with a bare status line and no body; with one, we owe an answer ourselves.
 */
const CLIENT_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  // Request line and headers over the server's limit (Node's --max-http-header-size, 16 KiB).
  HPE_HEADER_OVERFLOW: {
    code: ErrorCode.HEADERS_TOO_LARGE,
    message: 'The request headers are larger than the server accepts (16 KiB).',
  },
  // Chunk extensions are not headers: the body is what is too large to read.
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    code: ErrorCode.PAYLOAD_TOO_LARGE,
    message: 'The chunk extensions of the request body are too large.',
  },
  // HEADERS_TIMEOUT_MS or REQUEST_TIMEOUT_MS, from the request's first byte.
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: ErrorCode.REQUEST_TIMEOUT,
    message: 'The request did not arrive in time; the connection is closed.',
  },
};

/**
 * Errors that mean the client went: it reset the connection, or closed it while the service was
 * still writing (EPIPE, which a streamed answer meets when the write comes after the close), or
 * ended its side mid-request. No answer is owed, and an answer under way was not cut by us.
 */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'HPE_INVALID_EOF_STATE']);

const MALFORMED = {
  code: ErrorCode.VALIDATION_FAILED,
  message: 'The request is not valid HTTP.',
};

/** Which answer a client error gets; `undefined` when none is owed (the socket is closed). */
export function clientErrorResponse(error: NodeJS.ErrnoException): ErrorDto | undefined {
  if (error.code !== undefined && CLIENT_GONE.has(error.code)) return undefined;
  const { code, message } = (error.code && CLIENT_ERRORS[error.code]) || MALFORMED;
  return { code, message, status: ERROR_STATUS[code] };
}

/** An answer the HTTP server wrote itself, before any request reached the app. */
export interface Rejection {
  answer: ErrorDto;
  /** The X-Request-Id it carried (made up: no request was read). */
  requestId: string;
  /** Node's code for what was wrong (`HPE_HEADER_OVERFLOW`, `ERR_HTTP_REQUEST_TIMEOUT`, …). */
  reason: string;
}

/** Internals of Node's HTTP server a clientError handler needs (as Node's own handler reads them). */
type ServerSocket = Duplex & {
  /** The answer under way on this connection, if any. */
  _httpMessage?: ServerResponse | null;
  /** The request being read, until its body ends. */
  parser?: { incoming?: IncomingMessage | null } | null;
};

/**
 * Answers client errors with the JSON Error body (docs/api.md, Errors) and closes the
 * connection: the parser cannot find the next request's start after an error.
 *
 * When a request is being served (its headers were read; the app waits for a slow body, say),
 * the answer goes out through its response: the request log and the metrics record it as any
 * other answer, with the request's id and route. Otherwise (nothing was read but bytes that
 * are not a request, or the headers were too slow) the answer is written on the socket and
 * `onRejected` reports it, so it is logged and counted too. When nothing can be answered (the
 * client went, or an answer is already under way), the connection is closed; an answer under
 * way is then logged as cut, with the error as the reason.
 */
export function sendClientErrorsAsJson(
  server: Server,
  onRejected: (rejection: Rejection) => void,
): void {
  server.on('clientError', (error: NodeJS.ErrnoException, duplex: Duplex) => {
    const socket = duplex as ServerSocket;
    const answer = clientErrorResponse(error);
    const inFlight = socket._httpMessage ?? undefined;
    if (answer === undefined || !socket.writable || inFlight?.headersSent) {
      // As Node's own handler: never write into an answer already under way.
      if (answer !== undefined && inFlight !== undefined) inFlight.destroy(error);
      else socket.destroy();
      return;
    }
    if (inFlight !== undefined) {
      sendThrough(inFlight, answer);
      return;
    }
    // The request being read was answered already (the app did not wait for its body): a
    // second answer would be one the client never asked for.
    if (socket.parser?.incoming) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const body = JSON.stringify(answer);
    socket.end(
      `HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status] ?? 'Error'}\r\n` +
        `Content-Type: ${JSON_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
    onRejected({ answer, requestId, reason: error.code ?? error.message });
  });
}

/**
 * The answer through the response of the request being served: the headers the app set
 * already (X-Request-Id, security headers) stay. Connection: close makes Node close the
 * connection once it is sent; the app's own work on the request then finds it closed.
 */
function sendThrough(response: ServerResponse, answer: ErrorDto): void {
  response.statusCode = answer.status;
  response.setHeader('Connection', 'close');
  writeJsonAnswer(response, JSON.stringify(answer));
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};
