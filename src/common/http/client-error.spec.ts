import { clientErrorResponse } from './client-error.js';

const error = (code: string): NodeJS.ErrnoException => Object.assign(new Error(code), { code });

describe('clientErrorResponse', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'HEADERS_TOO_LARGE'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'PAYLOAD_TOO_LARGE'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'REQUEST_TIMEOUT'],
    ['HPE_INVALID_METHOD', 400, 'VALIDATION_FAILED'],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400, 'VALIDATION_FAILED'],
  ])('answers %s with %i %s and the Error body', (code, status, errorCode) => {
    expect(clientErrorResponse(error(code))).toEqual({
      code: errorCode,
      message: expect.any(String),
      status,
    });
  });

  it.each(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'HPE_INVALID_EOF_STATE'])(
    'owes no answer to a client that went (%s)',
    (code) => {
      expect(clientErrorResponse(error(code))).toBeUndefined();
    },
  );

  it('answers an error without a code as a request that is not HTTP', () => {
    expect(clientErrorResponse(new Error('odd'))).toMatchObject({ status: 400 });
  });
});
