import { requestLineLevel } from './logging.module.js';

describe('requestLineLevel', () => {
  it.each([
    [200, 'info'],
    [201, 'info'],
    [304, 'info'],
    [400, 'warn'],
    [408, 'warn'],
    [429, 'warn'],
    [500, 'error'],
    [503, 'warn'],
  ])('logs a finished %i at %s', (status, level) => {
    expect(requestLineLevel(true, status)).toBe(level);
  });

  it('logs an answer the client abandoned as a warning, whatever status it was to have', () => {
    expect(requestLineLevel(false, 499)).toBe('warn');
  });

  it('logs an answer cut by a time limit as a warning, and one cut by a failure as an error', () => {
    const timeout = new Error('the list took longer than 1000 ms (DB_STREAM_TIMEOUT_MS)');
    timeout.name = 'TimeoutError';
    expect(requestLineLevel(false, 499, timeout)).toBe('warn');
    const requestTimeout = Object.assign(new Error('timeout'), {
      code: 'ERR_HTTP_REQUEST_TIMEOUT',
    });
    expect(requestLineLevel(false, 499, requestTimeout)).toBe('warn');
    expect(requestLineLevel(false, 499, new Error('Connection terminated unexpectedly'))).toBe(
      'error',
    );
  });
});
