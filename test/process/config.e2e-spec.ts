import { startService } from '../support/service-process.js';

describe('configuration at start-up (real process)', () => {
  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://db/petstore' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL'],
    [{ RATE_LIMIT_PER_MINUTE: '-5' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ TRUST_PROXY: 'everyone' }, 'TRUST_PROXY'],
    [{ CORS_ORIGINS: 'app.example.com' }, 'CORS_ORIGINS'],
    [{ REQUEST_TIMEOUT_MS: '20000', HEADERS_TIMEOUT_MS: '25000' }, 'HEADERS_TIMEOUT_MS'],
    [{ LOG_LEVEL: 'chatty' }, 'LOG_LEVEL'],
    [{ CHANGELOG_URL: 'changelog.example.test' }, 'CHANGELOG_URL'],
    // Each key's last write reaches every instance through Redis: replicas need it.
    [{ DATABASE_REPLICA_URLS: 'postgres://u@127.0.0.1:2/x' }, 'DATABASE_REPLICA_URLS'],
    // With tracing on, the preload meets the same bad value and leaves the message to main.
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER: 'ratio' },
      'OTEL_TRACES_SAMPLER',
    ],
    [{ OTEL_TRACES_SAMPLER_ARG: '10%' }, 'OTEL_TRACES_SAMPLER_ARG'],
  ])('refuses %j: exit code 1 and one line naming %s', async (env, variable) => {
    const service = await startService(
      { DATABASE_URL: 'postgres://u@127.0.0.1:1/x', ...env },
      { waitUntilLive: false },
    );
    const { code } = await service.exited;
    expect(code).toBe(1);
    const lines = service.stderr.filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${variable} `));
  });
});
