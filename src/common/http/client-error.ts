import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, ErrorCode } from '../errors/error-code.js';
import type { ErrorDto } from '../errors/error.dto.js';

/**
 * Requests Node's HTTP parser refuses before Express sees them. Without a handler Node answers
 * with a bare status line and no body; with one, we owe an answer ourselves.
 */
const PARSER_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
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
};

const MALFORMED = {
  code: ErrorCode.VALIDATION_FAILED,
  message: 'The request is not valid HTTP.',
};

/** Which answer a parser error gets; `undefined` when none is owed (the socket is closed). */
export function clientErrorAnswer(error: NodeJS.ErrnoException): ErrorDto | undefined {
  if (error.code === 'ECONNRESET') return undefined;
  const { code, message } = (error.code && PARSER_ERRORS[error.code]) || MALFORMED;
  return { code, message, status: ERROR_STATUS[code] };
}

/**
 * Answers what the HTTP parser refuses with the JSON Error body (docs/api.md, Errors) and closes
 * the connection: the parser cannot find the next request's start after an error. The request
 * timeout keeps Node's own 408, for which docs/api.md has no code.
 */
export function answerClientErrorsWithJson(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const answer = clientErrorAnswer(error);
    // As Node's own handler: never write into an answer already under way on this connection.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && socket.writable) {
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
      return;
    }
    if (!answer || !socket.writable) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(answer);
    socket.end(
      `HTTP/1.1 ${answer.status} ${STATUS_TEXT[answer.status] ?? 'Error'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        `X-Request-Id: ${randomUUID()}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
};
